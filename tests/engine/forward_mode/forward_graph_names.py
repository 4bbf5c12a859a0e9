import torch
import torch.nn.functional as F
from torch.func import jvp, jacfwd

# Node names of graphs built by forward mode with a graph kept: torch.func.jvp and
# torch.autograd.functional.jvp(create_graph=True) tangents, jacfwd's Jacobian, and what
# broadcasting leaves in a create_graph gradient (PyTorch's sum_to: SumBackward0/1, ViewBackward0)


def names(fn, depth):
    out = []
    todo = [(fn, 0)]
    while todo:
        f, d = todo.pop(0)
        if f is None or d > depth:
            continue
        out.append(f.name().replace("torch::autograd::", ""))
        todo.extend((g, d + 1) for g, _ in f.next_functions)
    return " ".join(out)


x = torch.tensor([[1., -2., 3.], [0.5, 2., -1.]], requires_grad=True)
v = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
t = torch.tensor([0, 2])
y = torch.tensor([[1., 0., 0.], [0., 1., 0.]])
progs = {
    "norm": lambda a: a.norm(),
    "norm_dim": lambda a: a.norm(dim=1),
    "softmax": lambda a: a.softmax(dim=1),
    "log_softmax": lambda a: a.log_softmax(dim=1),
    "sum_dim": lambda a: (a * a).sum(dim=1),
    "mse_loss": lambda a: F.mse_loss(a, y),
    "cross_entropy": lambda a: F.cross_entropy(a, t),
    "nll_loss": lambda a: F.nll_loss(a.log_softmax(1), t),
    "prod": lambda a: a.prod(),
    "bce": lambda a: F.binary_cross_entropy(a.sigmoid(), y),
    "huber": lambda a: F.smooth_l1_loss(a, y),
    "logsumexp": lambda a: a.logsumexp(dim=1),
    "std": lambda a: a.std(dim=1),
    "div": lambda a: a / (a * a + 1),
    "where": lambda a: torch.where(a > 0, a, a * a),
    "sin": lambda a: a.sin(),
    "mul": lambda a: a * a,
    "matmul": lambda a: a @ a.t(),
    "pow": lambda a: a ** 3,
    "sqrt": lambda a: (a * a).sqrt(),
    "abs": lambda a: a.abs(),
    "l1": lambda a: F.l1_loss(a, y),
}
# the tangent's node as torch.autograd.functional.jvp(create_graph=True) leaves it
for name in ["norm", "norm_dim", "mse_loss", "cross_entropy", "nll_loss", "prod", "bce", "huber",
             "logsumexp", "std", "div", "where", "sin", "mul", "matmul", "pow", "sqrt", "abs"]:
    _, tout = torch.autograd.functional.jvp(progs[name], x, v, create_graph=True)
    print(name, "functional.jvp:", names(tout.grad_fn, 0))
# as torch.func.jvp leaves it
for name in ["softmax", "log_softmax", "sum_dim", "cross_entropy", "nll_loss", "sin", "mul", "matmul", "pow",
             "sqrt", "abs", "l1"]:
    _, tout = jvp(progs[name], (x,), (v,))
    print(name, "func.jvp:", names(tout.grad_fn, 0))
for name in ["cross_entropy", "nll_loss", "log_softmax"]:
    _, tout = torch.autograd.functional.jvp(progs[name], x, v, create_graph=True)
    print(name, "chain:", names(tout.grad_fn, 3))
for name in ["norm", "softmax", "mse_loss", "cross_entropy", "sin", "sum_dim"]:
    J = jacfwd(progs[name])(x)
    print(name, "jacfwd:", names(J.grad_fn, 2))
    J = jacfwd(progs[name])(x)
    J.sum().backward()
    print(x.grad.abs().max() < 1e-6 or x.grad)   # (a sum of zeros: rounding noise)
    x.grad = None
J = jacfwd(lambda a, b: a * b, argnums=(0, 1))(x, v)
print(names(J[0].grad_fn, 2), names(J[1].grad_fn, 2))
# broadcasting undone in a create_graph gradient, and x.sum_to_size
a = torch.ones(3, requires_grad=True)
b = torch.ones(2, 3, requires_grad=True)
c = torch.ones(2, 1, requires_grad=True)
s = torch.ones((), requires_grad=True)
for leaf in [a, c, s]:
    g, = torch.autograd.grad((leaf * b * b).sum(), leaf, create_graph=True)
    print(names(g.grad_fn, 1))
print(b.sum_to_size(3).grad_fn.name(), b.sum_to_size(2, 1).grad_fn.name(), b.sum_to_size((1, 3)).grad_fn.name())
w = torch.ones(4, 1, 3, requires_grad=True)
print(names(w.sum_to_size(1, 3).grad_fn, 1), w.sum_to_size(4, 1, 3) is w, w.sum_to_size(()).grad_fn.name())
try:
    b.sum_to_size(4)
except RuntimeError as e:
    print("RuntimeError", e)
print(torch.autograd.grad(b.split([3], -1)[0].sum(), b))
