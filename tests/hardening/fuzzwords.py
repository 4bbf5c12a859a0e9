"""The mutator's words (tests/hardening/fuzzgen.py): fragments, numbers, operators and whole
statements an attacker or a typo would put into a program, each list grown with the shapes
an attack round found (issues 19 and 26)."""

# Fragments an attacker or a typo would put in: escapes, limits, odd numbers, syntax.
INTERESTING = [
    "__class__", "__import__('os')", "import os", "open('fuzz-pwned', 'w')", "eval('1')",
    "getattr", "globals()", ".__dict__", "f'{x.__class__}'", "'{0.__class__}'.format(x)",
    "9 ** 9 ** 9", "10 ** 400", "1e308 * 10", "-0.0", "0", "1", "-1", "2 ** 63", "nan", "inf",
    "-inf", "1e-320", "(", ")", "[", "]", "{", "}", ":", ",", ".", "**", "@", "\n    ", "\n", "\t",
    "lambda x=print: x", "while True:\n    pass\n", "range(10 ** 12)", "zeros(10 ** 9)",
    ".grad_fn.next_functions[0][0]", ".grad", ".backward()", ".item()", ".T", "[0]", "[:, 1]",
    "[-1]", "[1:3]", "x", "y", "z", "torch.", "F.", "None", "True", "[[1., 2.], [3.]]",
    "def f(a):\n    return f(a)\nf(1)\n", "with no_grad():\n    ", "return", "break", "class",
    "retain_grad()", "requires_grad_()", ".detach()", "zero_()", "expand(100000, 100000)",
    "outer(ones(5000), ones(5000))", "cat([x, x])", "sum(dim=5)", "reshape(-1, -1)", "print(x)",
    "x += 1", "x.grad.zero_()", "autograd.grad(z, x)", "'%999999999d' % 1", "f'{1:{2}}'",
    "\\", "#", "\"\"\"", "'", "\"", "\x00", "\u00e9", "\u200b",
    # issue 19: callbacks of the wrong kind, deep and shared values, sizes near each limit
    "register_hook(5)", "register_hook(torch)", "register_hook(len)", "register_hook(print)",
    "0.5 in range(10 ** 18)", "int('1' * 10 ** 6, 2)", "zeros(10 ** 10, 0).sum(1)",
    "ones(1000, 1000) @ ones(1000, 1000)", "inverse(ones(2000, 2000))", "[0] * 10 ** 7",
    "sum([[0] * 1000] * 1000, [])", "tolist()", "\u2028", "\u0085", "\x0c", "\x1b[31m", "\ufeff",
]


NUMBERS = ["0", "0.", "-1", "1", "2", "3.5", "1e308", "1e-320", "2 ** 63", "10 ** 20", "nan", "inf",
           "-inf", "100000", "-0.0", "1e6", "0.5", "65"]
OPERATORS = ["+", "-", "*", "/", "**", "@", "//", "%", "<", ">", "==", "!=", "<=", ">=", "and", "or",
             "in", "is"]
# Statements put in whole between lines: valid syntax, hostile or odd semantics.
STATEMENTS = [
    "x = x * 1e308", "x.requires_grad_(False)", "x.grad = None", "y = x.detach()", "x.data = x * 2",
    "x.retain_grad()", "z.backward(retain_graph=True)", "x.grad.zero_()", "x += 1",
    "with no_grad():\n    x *= 2", "x = x.reshape(-1)", "x = x.expand(3, -1)", "x = x[None]",
    "x = x.unsqueeze(0).T", "x = stack([x, x])", "x = cat([x, x], dim=-1)", "print(x, x.grad_fn)",
    "print(f'{x}')", "h = x.register_hook(lambda g: g * 2)", "h = x.register_hook(lambda g: None)",
    "x = where(x > 0, x, -x)", "x = x.clamp(min=0)", "x = x.max(dim=0)[0]", "x = x.sum(dim=0, keepdim=True)",
    "x = autograd.grad(x.sum(), x, create_graph=True)[0]", "for i in range(3):\n    x = x * x",
    "while x.sum() < 100:\n    x = x * 2", "x = x / 0", "x = x ** -1", "x = log(x - x)", "x = sqrt(-x)",
    "x = torch.randn(3, seed=1)", "x = x @ x", "x = x.T @ x", "x = inverse(x)", "x = x.det()",
    "x = F.softmax(x, dim=0)", "x = x.norm()", "x = x.var()", "x = x.std()", "x = x[0]", "x = x[-1:]",
    "x = x.unbind()[0]", "def g(a):\n    return g(a)", "x = g(x)", "x = [x] * 3", "x = len(x)",
    "x = float(x)", "x = int(x)", "x = x.item()", "assert x", "del x", "x = None", "x = x.grad",
    # issue 19's shapes
    "t = (0,)\nfor i in range(2000):\n    t = (t,)", "d = {t: 1}",
    "a = [1.0]\nfor i in range(60):\n    a = [a, a]", "print(a == a)", "print(a)", "s = f'{a}'",
    "L = [0] * 10 ** 6\nfor i in range(10 ** 6):\n    L.insert(0, 1)", "n = L.count(5)",
    "x.register_hook(5)", "x.register_hook(torch)", "x.register_hook(lambda g: 'text')",
    "o = optim.SGD([x], lr=0.1)\no.param_groups[0]['lr'] = 'a'\no.step()",
    "o = optim.SGD([x], lr=0.1)\no.param_groups[0] = 5.0\no.step()",
    "optim.Optimizer([x], {}).step()", "optim.SGD([x], lr=0.1).step(autograd.Function)",
    "for i in range(30):\n    (x,) = autograd.grad(x.sum(), x, create_graph=True)",
    "x = x.sum(dim=1)", "x = x.tolist()", "print(0.5 in range(10 ** 18))",
    "print(autograd.gradcheck(lambda t: 'abc', (x,)))",
    # issue 26's shapes: module DAGs, optimizer state edits, nested create_graph, errors
    # caught in loops, facade calls, control characters in a program's names
    "m = nn.Linear(3, 3)\nfor i in range(40):\n    p = nn.Module()\n    p.a = m\n    p.b = m\n    m = p",
    "print(m)", "s = m.state_dict()", "m.load_state_dict({'a.weight': 5})", "m.apply(print)",
    "o = optim.Adam([x])\no.step()\nfor k in o.state[x]:\n    o.state[x][k] = torch.zeros(7)\no.step()",
    "o = optim.SGD([x], lr=0.1, momentum=0.9)\no.param_groups[0]['params'] = [1, 'a', None]\no.step()",
    "o = optim.RMSprop([x])\no.param_groups.append({'params': [x * 2]})\no.zero_grad()\nprint(o)",
    "s = optim.lr_scheduler.LambdaLR(optim.SGD([x]), lambda e: 10 ** 9)\ns.base_lrs[0] = 'x'\ns.step()",
    "for i in range(10 ** 6):\n    try:\n        undefined_name\n    except Exception:\n        pass",
    "for i in range(10 ** 6):\n    try:\n        x = x + torch.ones(7)\n    except RuntimeError as e:\n        s = str(e)",
    "g = x\nfor i in range(20):\n    (g,) = autograd.grad(g.sum() * g.sum(), x, create_graph=True)",
    "import numpy as np\nimport math\nv = np.isclose(np.ones(10 ** 4), [1.0])\nn = math.comb(10 ** 5, 5 * 10 ** 4)",
    "import math\nn = math.prod(['abc', 10 ** 9])", "import numpy as np\nv = np.linspace(np.ones(10 ** 4), 1, 10 ** 4)",
    "md = nn.ModuleDict({'\\x1b[2J\\x07': nn.Linear(3, 1)})\nx = md['\\x1b[2J\\x07'](x).sum()",
    # issue 26, third round: facades charged by their work, hook lists, a command's total
    "L = [[1.0] * 1000] * 1000\nimport numpy as np\nfor i in range(100):\n    a = np.array(L).sum()",
    "import numpy as np\nv = np.ones(10 ** 7).tolist()", "import numpy as np\nv = np.array([x] * 10 ** 6)",
    "import numpy as np\nv = np.allclose(np.ones((1, 10 ** 5)), np.ones((10 ** 4, 1)))",
    "import math\nL = [3.0] * 10 ** 6\nfor i in range(100):\n    n = math.hypot(*L) + math.fsum(L)",
    "import math\nfor i in range(10 ** 5):\n    n = math.comb(10000, 5000)",
    "for i in range(10 ** 6):\n    h = x.register_hook(lambda g: None)",
    "m = nn.Linear(3, 3)\nfor i in range(10 ** 6):\n    h = m.register_forward_hook(lambda *a: None)",
    "n = int(1e308)\nfor i in range(10 ** 6):\n    n = n * n + 10 ** 10 ** 6",
    "m = nn.Sequential(nn.Linear(1, 1))\np = m.state_dict(prefix='x' * 9000000)",
]
