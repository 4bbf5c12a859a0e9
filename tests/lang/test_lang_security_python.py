"""The sandbox around the names issue 13 added: math, numpy, arrays from `.numpy()`,
exceptions, devices, the generator. Each escape attempt is a ProgramError with a
position; a limit is never caught by a program's `except`."""
from __future__ import annotations

import pytest

from gradcli.errors import LimitError, ParseError, ProgramError
from gradcli.lang import compile_program
from gradcli.lang.limits import Limits


def attempt(source: str, **limits) -> tuple:
    lines: list = []
    with pytest.raises(ProgramError) as info:
        compile_program(source).run(stdout=lines.append, script=True,
                                    limits=Limits(**limits) if limits else None)
    assert info.value.span is not None, f"{info.value!r} has no position"
    return info.value, lines


def run(source: str) -> list:
    lines: list = []
    compile_program(source).run(stdout=lines.append, script=True)
    return lines


@pytest.mark.parametrize("source", [
    "import math\nmath.__dict__", "import numpy as np\nnp.__loader__",
    "import numpy as np\nnp.float64.__mro__", "e = ValueError('x')\ne.__traceback__",
    "torch.device('cpu').__class__", "import math\nmath.sqrt.__self__",
])
def test_dunders_of_the_new_names_are_refused_before_running(source):
    error, lines = attempt("print('started')\n" + source)
    assert isinstance(error, ParseError) and lines == []


@pytest.mark.parametrize("source, message", [
    ("import numpy as np\nnp.load('x.npy')", "module 'numpy' has no attribute 'load'"),
    ("import numpy as np\nnp.save", "module 'numpy' has no attribute 'save'"),
    ("import numpy as np\nnp.fromfile", "module 'numpy' has no attribute 'fromfile'"),
    ("import numpy as np\nnp.lib", "module 'numpy' has no attribute 'lib'"),
    ("import numpy as np\nnp.random", "module 'numpy' has no attribute 'random'"),
    ("import numpy as np\nnp.ctypeslib", "module 'numpy' has no attribute 'ctypeslib'"),
    ("x = torch.ones(2)\nx.numpy().tofile('x')", "'ndarray' object has no attribute 'tofile'"),
    ("x = torch.ones(2)\nx.numpy().base", "'ndarray' object has no attribute 'base'"),
    ("x = torch.ones(2)\nx.numpy().ctypes", "'ndarray' object has no attribute 'ctypes'"),
    ("x = torch.ones(2)\nx.numpy().flags", "'ndarray' object has no attribute 'flags'"),
    ("x = torch.ones(2)\nx.numpy().view", "'ndarray' object has no attribute 'view'"),
    ("x = torch.ones(2)\nx.numpy().astype", "'ndarray' object has no attribute 'astype'"),
    ("x = torch.ones(2)\nx.numpy().dtype.type", "object has no attribute 'type'"),
    ("import numpy as np\nnp.float64(1).view", "'float64' object has no attribute 'view'"),
    ("import numpy as np\nnp.float32.fromhex", "'type' object has no attribute 'fromhex'"),
    ("import numpy as np\nnp.ndarray", "module 'numpy' has no attribute 'ndarray'"),
    ("s = {1}\ns.update", "'set' object has no attribute 'update'"),
    ("import math\nmath.sqrt.fn", "object has no attribute 'fn'"),
    ("e = ValueError('x')\ne.with_traceback", "'ValueError' object has no attribute"),
    ("ValueError.mro", "'type' object has no attribute 'mro'"),
    ("torch.Tensor.add", "'type' object has no attribute 'add'"),
    ("g = torch.manual_seed(0)\ng.seed_value", "'Generator' object has no attribute 'seed_value'"),
    ("torch.cuda.memory", "torch.cuda.memory is not supported in gradcli"),
    ("sorted([1], key=torch.Tensor)", "'type' object is not callable"),
    ("import numpy as np\nnp.array([print])", "an array holds numbers"),
    ("import numpy as np\nnp.array(['a'])", "an array holds numbers"),
    ("import numpy as np\nnp.multiply('ab', 10**9)", "an array holds numbers, not 'str'"),
    ("import numpy as np\nnp.sin(torch)", "an array holds numbers, not 'module'"),
    ("import numpy as np\nnp.add(ValueError('x'), 1)", "an array holds numbers, not 'ValueError'"),
    ("import numpy as np\nnp.array([3]) * 'ab'", "an array holds numbers, not 'str'"),
    ("import numpy as np\n{} == np.array([3])", "an array holds numbers, not 'dict'"),
    ("import numpy as np\nnp.array([1.], dtype='O')", "data type 'O' not understood"),
])
def test_attributes_and_calls_outside_the_facades_do_not_exist(source, message):
    error, _ = attempt(source)
    assert message in str(error)


@pytest.mark.parametrize("source", [
    "x = torch.ones(2)\nn = x.numpy()\nn[0] = 5.",
    "x = torch.ones(2)\nn = x.numpy()\nn += 1",
    "x = torch.ones(2)\nx.numpy()[:] = 0.",
])
def test_writing_through_numpy_is_refused_and_the_tensor_is_unchanged(source):
    error, _ = attempt(source + "\nprint(x)")
    assert "read-only" in str(error)
    assert run(f"try:\n    {source.splitlines()[-1]}\nexcept ValueError:\n    pass\n"
               .replace("try:\n    ", "x = torch.ones(2)\nn = x.numpy()\ntry:\n    ")
               + "print(x)") == ["tensor([1., 1.])"]


def test_the_tolist_copy_is_the_programs_own():
    assert run("x = torch.ones(2)\nl = x.tolist()\nl[0] = 5.\nprint(x, l)") == \
        ["tensor([1., 1.]) [5.0, 1.0]"]


@pytest.mark.parametrize("value", ["5", "print", "torch", "'text'", "torch.ones(1)", "None",
                                   "torch.Tensor", "[ValueError]"])
def test_raise_of_a_non_exception_is_a_type_error(value):
    error, _ = attempt(f"raise {value}")
    assert "exceptions must derive from BaseException" in str(error)


def test_except_of_a_non_exception_class_is_a_type_error():
    error, _ = attempt("try:\n    1 / 0\nexcept torch.Tensor:\n    pass")
    assert "catching classes that do not inherit from BaseException" in str(error)


@pytest.mark.parametrize("handler", ["except:", "except Exception:", "except BaseException:",
                                     "except RuntimeError:"])
def test_a_step_limit_is_never_caught(handler):
    source = f"try:\n    while True:\n        pass\n{handler}\n    print('caught')\n" \
             "finally:\n    print('finally')\nprint('after')"
    error, lines = attempt(source, max_steps=1000)
    assert isinstance(error, LimitError) and lines == []


def test_an_element_limit_and_a_length_limit_are_never_caught():
    error, lines = attempt("try:\n    torch.zeros(10**9)\nexcept:\n    print('caught')")
    assert isinstance(error, LimitError) and lines == []
    error, lines = attempt("try:\n    x = [0] * 10**9\nexcept Exception:\n    print('caught')")
    assert isinstance(error, LimitError) and lines == []


def test_the_recursion_limit_is_never_caught():
    source = "def f():\n    return f()\ntry:\n    f()\nexcept RecursionError:\n    print('caught')"
    error, lines = attempt(source)
    assert "maximum recursion depth exceeded" in str(error) and lines == []


@pytest.mark.parametrize("source", [
    "import numpy as np\nnp.zeros(10**9)",
    "import numpy as np\nnp.ones([100000, 100000])",
    "import numpy as np\nnp.arange(10**10)",
    "import numpy as np\nnp.linspace(0, 1, 10**10)",
    "import numpy as np\na = np.zeros(100000).reshape(100000, 1)\na + a.T",
    "import numpy as np\na = np.zeros(100000).reshape(100000, 1)\na < a.T",
    "import numpy as np\na = np.zeros(100000).reshape(100000, 1)\nnp.maximum(a, a.T)",
    "import numpy as np\na = np.zeros(100000).reshape(100000, 1)\na @ a.T",
    "import numpy as np\na = np.zeros((1, 100000))\na[[0] * 100000]",
    "import numpy as np\na = np.zeros(100000)\ni = np.zeros(100000, dtype='int64')\n"
    "a[i.reshape(-1, 1) + i]",
    "import numpy as np\na = np.zeros((1, 100000))\na[[0] * 100000] = 1.",
    "import numpy as np\na = np.zeros((100000, 1))\n[1.] * 100000 in a",
])
def test_numpy_results_over_the_element_limit_are_refused_before_they_are_made(source):
    error, _ = attempt(source)
    assert isinstance(error, LimitError)


@pytest.mark.parametrize("expression, printed", [
    ("math.factorial(10**9)", "inf"),
    ("math.comb(10**9, 5 * 10**8)", "inf"),
    ("math.perm(10**9)", "inf"),
    ("math.prod([2**62] * 1000)", "inf"),
    ("math.factorial(21)", "5.109094217170944e+19"),
])
def test_math_cannot_build_huge_integers(expression, printed):
    assert run(f"import math\nprint({expression})") == [printed]


def test_math_lcm_past_int64_is_an_error():
    error, _ = attempt("import math\nmath.lcm(*range(1, 100))")
    assert "more than 63 bits" in str(error)

