"""The Python a PyTorch snippet uses (issue 13): try/except/finally/raise, assert,
isinstance, comprehensions, the builtins, `import math`, `import numpy as np`,
`.numpy()`/`.tolist()`, devices and the seeded generator. The expected lines are
what Python 3.11 and PyTorch 2.13 print for the same program (checked by hand);
where gradcli differs on purpose (every tensor is float64), the test says so."""
from __future__ import annotations

import pytest

from gradcli.errors import LimitError, ProgramError
from gradcli.lang import compile_program
from gradcli.lang.limits import Limits


def run(source: str, **limits) -> list:
    lines: list = []
    compile_program(source).run(stdout=lines.append, script=True,
                                limits=Limits(**limits) if limits else None)
    return lines


def error_of(source: str, **limits) -> ProgramError:
    with pytest.raises(ProgramError) as info:
        run(source, **limits)
    assert info.value.span is not None
    return info.value


# --- try / except / finally / raise -------------------------------------------------


def test_raise_and_catch_a_builtin_exception():
    assert run("try:\n    raise ValueError('bad')\nexcept ValueError as e:\n"
               "    print('caught', e, repr(e), e.args)\n") == \
        ["caught bad ValueError('bad') ('bad',)"]


def test_an_uncaught_raise_reads_as_pythons_last_traceback_line():
    error = error_of("x = 1\nraise TypeError('no')")
    assert str(error) == "TypeError: no" and (error.span.line, error.span.col) == (2, 1)
    assert str(error_of("raise KeyError")) == "KeyError"


@pytest.mark.parametrize("statement, kind, message", [
    ("torch.ones(2) + torch.ones(3)", "RuntimeError",
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ("torch.ones(2)[5]", "IndexError", "index 5 is out of bounds for dimension 0 with size 2"),
    ("{}['k']", "KeyError", "'k'"),
    ("1 / 0", "ZeroDivisionError", "division by zero"),
    ("len(3)", "TypeError", "object of type 'int' has no len()"),
    ("int('x')", "ValueError", "invalid literal for int() with base 10: 'x'"),
    ("undefined_name", "NameError", "unknown name 'undefined_name'"),
    ("torch.ones(1).foo", "AttributeError", "'Tensor' object has no attribute 'foo'"),
    ("torch.foo", "AttributeError", "module 'torch' has no attribute 'foo'"),
    ("assert 1 == 2, 'nope'", "AssertionError", "nope"),
    ("x = torch.ones(1, requires_grad=True)\n    x.numpy()", "RuntimeError",
     "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
])
def test_errors_are_caught_as_pythons_types(statement, kind, message):
    source = f"try:\n    {statement}\nexcept {kind} as e:\n    print(str(e))\n"
    assert run(source) == [message]


def test_a_pytorch_error_is_a_runtime_error_and_an_exception():
    source = ("for kind in (RuntimeError, Exception):\n    try:\n"
              "        torch.ones(2) @ torch.ones(3)\n    except kind:\n        print('ok')\n")
    assert run(source) == ["ok", "ok"]


def test_the_first_matching_handler_runs_and_a_tuple_matches_any():
    source = ("try:\n    [][1]\nexcept (KeyError, IndexError) as e:\n    print('tuple', e)\n"
              "except Exception:\n    print('no')\n")
    assert run(source) == ["tuple list index out of range"]


def test_an_unmatched_error_passes_through_finally():
    source = "try:\n    [][1]\nexcept KeyError:\n    print('no')\nfinally:\n    print('finally')\n"
    lines: list = []
    with pytest.raises(ProgramError, match="list index out of range"):
        compile_program(source).run(stdout=lines.append, script=True)
    assert lines == ["finally"]


def test_else_finally_and_return_through_finally():
    source = ("def f():\n    try:\n        return 1\n    finally:\n        print('cleanup')\n"
              "try:\n    y = f()\nexcept ValueError:\n    print('no')\nelse:\n    print('else', y)\n"
              "finally:\n    print('done')\n")
    assert run(source) == ["cleanup", "else 1", "done"]


def test_bare_raise_reraises_and_outside_a_handler_is_a_runtime_error():
    source = ("try:\n    try:\n        raise ValueError('inner')\n    except ValueError:\n"
              "        raise\nexcept ValueError as e:\n    print('outer', e)\n")
    assert run(source) == ["outer inner"]
    assert str(error_of("raise")) == "RuntimeError: No active exception to reraise"


def test_raise_of_a_class_and_raise_from():
    assert run("try:\n    raise NotImplementedError\nexcept RuntimeError as e:\n"
               "    print(repr(e))\n") == ["NotImplementedError()"]
    assert run("try:\n    raise ValueError('a') from KeyError('b')\nexcept ValueError as e:\n"
               "    print(e)\n") == ["a"]


def test_break_and_continue_in_try_bodies():
    source = ("for i in range(4):\n    try:\n        if i == 1:\n            continue\n"
              "        if i == 3:\n            break\n        print(i)\n    finally:\n"
              "        print('f', i)\n")
    assert run(source) == ["0", "f 0", "f 1", "2", "f 2", "f 3"]


# --- assert, isinstance -------------------------------------------------------------


def test_assert_uncaught_keeps_its_message():
    assert str(error_of("assert 1 > 2, 'too small'")) == "assertion failed: too small"


def test_isinstance():
    source = ("print(isinstance(1.0, float), isinstance(1, (str, int)), isinstance(True, int),\n"
              "      isinstance(torch.ones(1), torch.Tensor), isinstance([], tuple),\n"
              "      isinstance(ValueError('x'), Exception), isinstance({}, dict))")
    assert run(source) == ["True True True True False True True"]
    assert "isinstance() arg 2 must be a type" in str(error_of("isinstance(1, 2)"))


def test_torch_tensor_is_a_class_for_isinstance_and_a_constructor():
    source = ("x = torch.Tensor([1, 2])\n"
              "print(x, x.dtype, isinstance(x, torch.Tensor), isinstance(torch.arange(2), torch.Tensor))\n"
              "print(torch.Tensor(2, 1).shape, x.numpy().dtype, torch.tensor([1, 2]).numpy().dtype)")
    assert run(source) == ["tensor([1., 2.]) torch.float64 True True",
                           "torch.Size([2, 1]) float64 int64"]


# --- comprehensions and builtins -----------------------------------------------------


def test_comprehensions():
    source = ("print([x * 2 for x in range(4)], {x: x ** 2 for x in range(3)}, "
              "{x % 2 for x in range(5)})\n"
              "print([(i, j) for i in range(3) for j in range(i) if j != 1])\n"
              "print(sum(x for x in range(5)), any(x > 3 for x in range(5)), "
              "[[y for y in range(x)] for x in range(3)])")
    assert run(source) == ["[0, 2, 4, 6] {0: 0, 1: 1, 2: 4} {0, 1}", "[(1, 0), (2, 0)]",
                           "10 True [[], [0], [0, 1]]"]


def test_a_comprehension_has_its_own_scope():
    assert run("x = 'outer'\ny = [x for x in range(2)]\nprint(x, y)") == ["outer [0, 1]"]
    assert run("def f(n):\n    return [n * k for k in range(n)]\nprint(f(3))") == ["[0, 3, 6]"]


def test_a_comprehension_over_tensors_and_a_lambda_in_it():
    source = ("x = torch.tensor([1., 2.], requires_grad=True)\n"
              "ys = [x[i] ** 2 for i in range(2)]\nsum(ys).backward()\nprint(x.grad)\n"
              "fs = [lambda v, k=k: v * k for k in range(3)]\nprint([f(2) for f in fs])")
    assert run(source) == ["tensor([2., 4.])", "[0, 2, 4]"]


def test_comprehension_iterations_count_as_steps():
    error = error_of("x = [i for i in range(10**6)]", max_steps=1000)
    assert isinstance(error, LimitError)


def test_builtins_sorted_reversed_dict_repr_any_all():
    source = ("print(sorted([3, 1, 2], reverse=True), sorted(['bb', 'a'], key=len),\n"
              "      list(reversed([1, 2, 3])), repr('a'), dict(a=1), dict(zip('ab', [1, 2])),\n"
              "      dict([('k', 1)], j=2), any([]), all([]), all([1, 0]), round(2.675, 2),\n"
              "      str(1.5), list(enumerate('ab', 1)))")
    assert run(source) == ["[3, 2, 1] ['a', 'bb'] [3, 2, 1] 'a' {'a': 1} {'a': 1, 'b': 2} "
                           "{'k': 1, 'j': 2} False True False 2.67 1.5 [(1, 'a'), (2, 'b')]"]


def test_reversed_tensor_and_any_all_of_tensors():
    source = ("x = torch.tensor([1., 0., 2.])\nprint(reversed(x), any(x), all(x), set([1, 1, 2]))")
    assert run(source) == ["tensor([2., 0., 1.]) tensor(True) tensor(False) {1, 2}"]


def test_set_methods():
    assert run("s = set()\nfor k in [3, 1, 3]:\n    s.add(k)\ns.discard(7)\ns.remove(3)\n"
               "print(s, 1 in s, len(s), sorted({x for x in 'aba'}))") == ["{1} True 1 ['a', 'b']"]
    assert run("try:\n    {1}.remove(2)\nexcept KeyError as e:\n    print(repr(e))") == \
        ["KeyError(2)"]


def test_sorted_takes_only_a_function_as_key():
    assert "'type' object is not callable" in str(error_of("sorted([1], key=ValueError)"))


# --- math and numpy -------------------------------------------------------------------


def test_import_math():
    source = ("import math\nfrom math import sqrt, pi\n"
              "print(math.sqrt(2), pi, math.exp(1.0), math.floor(2.7), math.isclose(0.1 + 0.2, 0.3),\n"
              "      math.factorial(5), math.comb(5, 2), math.log(8, 2), sqrt(torch.tensor(4.)))")
    assert run(source) == ["1.4142135623730951 3.141592653589793 2.718281828459045 2 True 120 "
                           "10 3.0 2.0"]


def test_math_integers_past_int64_become_floats_as_the_language_does():
    # Python would print the exact 33-digit integer; the language's ints stop at 63 bits
    assert run("import math\nprint(math.factorial(30), math.comb(10**6, 5000) == math.inf)") == \
        ["2.6525285981219107e+32 True"]


def test_math_domain_error_is_a_value_error():
    assert run("import math\ntry:\n    math.sqrt(-1)\nexcept ValueError as e:\n    print(e)") == \
        ["math domain error"]


def test_import_numpy_prints_as_numpy():
    source = ("import numpy as np\na = np.array([1., 2.])\n"
              "print(a, repr(a), np.sin(a), np.sin(1.0), np.float32(1.5), repr(np.float64(2)),\n"
              "      np.pi, a + 1, a.shape, np.array([[1, 2]]).tolist(), np.allclose(a, [1, 2]))")
    assert run(source) == ["[1. 2.] array([1., 2.]) [0.84147098 0.90929743] 0.8414709848078965 "
                           "1.5 np.float64(2.0) 3.141592653589793 [2. 3.] (2,) [[1, 2]] True"]


def test_numpy_functions_of_a_tensor_stay_tensors_and_arrays_become_tensors():
    source = ("import numpy as np\nx = torch.tensor([0., 1.])\na = np.array([1., 2.])\n"
              "print(np.sin(x), torch.tensor(a), torch.from_numpy(a), x * a)")
    assert run(source) == ["tensor([0.0000, 0.8415]) tensor([1., 2.]) tensor([1., 2.]) "
                           "tensor([0., 2.])"]


def test_an_array_times_a_tensor_is_pytorchs_type_error():
    error = error_of("import numpy as np\nnp.array([1.]) * torch.ones(1)")
    assert "unsupported operand type(s) for *: 'numpy.ndarray' and 'Tensor'" in str(error)


def test_tensor_numpy_and_tolist():
    # PyTorch's float32 tensors would show dtype=float32; gradcli's are float64
    source = ("x = torch.tensor([[1., 2.], [3., 4.]])\nn = x.numpy()\n"
              "print(n, repr(x.numpy()), x.tolist(), n[0, 1], x[0].tolist(), x.sum().tolist())")
    assert "\n".join(run(source)) == ("[[1. 2.]\n [3. 4.]] array([[1., 2.],\n       [3., 4.]]) "
                                     "[[1.0, 2.0], [3.0, 4.0]] 2.0 [1.0, 2.0] 10.0")


def test_numpy_array_of_a_range_and_a_list_of_tensors():
    assert run("import numpy as np\nprint(np.array(range(3)), "
               "np.array([torch.tensor(1.), torch.tensor(2.)]))") == ["[0 1 2] [1. 2.]"]


def test_indexing_arrays():
    source = ("import numpy as np\na = np.array([[1., 2., 3.], [4., 5., 6.]])\n"
              "print(a[1], a[:, 0], a[0, [2, 0]], a[a > 2], 5. in a, a[..., None].shape, [1.] + a[0])")
    assert run(source) == ["[4. 5. 6.] [1. 4.] [3. 1.] [3. 4. 5. 6.] True (2, 3, 1) [2. 3. 4.]"]


def test_numpy_force_reads_a_tensor_that_requires_grad():
    assert run("x = torch.ones(2, requires_grad=True)\nprint(x.numpy(force=True))") == ["[1. 1.]"]


def test_an_array_of_my_own_can_be_written():
    assert run("import numpy as np\na = np.zeros(3)\na[1] = 5\nprint(a)") == ["[0. 5. 0.]"]


# --- devices, cuda, the generator ----------------------------------------------------


def test_devices():
    source = ("x = torch.tensor([1., 2.], device='cpu')\n"
              "print(x.device, repr(torch.device('cpu')), x.cpu(), x.to('cpu'),\n"
              "      x.to(torch.device('cpu')), torch.cuda.is_available(), x.is_cuda,\n"
              "      x.device == torch.device('cpu'), x.device.type, torch.device('cuda:1'))")
    assert run(source) == ["cpu device(type='cpu') tensor([1., 2.]) tensor([1., 2.]) "
                           "tensor([1., 2.]) False False True cpu cuda:1"]


@pytest.mark.parametrize("statement", [
    "torch.ones(2).cuda()", "torch.zeros(2, device='cuda')", "torch.ones(2).to('cuda')",
    "torch.tensor(1., device=torch.device('cuda'))",
])
def test_cuda_is_pytorchs_assertion_error(statement):
    assert str(error_of(statement)) == "Torch not compiled with CUDA enabled"
    assert run(f"try:\n    {statement}\nexcept AssertionError as e:\n    print(e)") == \
        ["Torch not compiled with CUDA enabled"]


def test_an_unknown_device_string():
    assert "device type at start of device string: gpu" in str(error_of("torch.device('gpu')"))


def test_manual_seed_returns_a_generator():
    lines = run("g = torch.manual_seed(3)\nprint(g.initial_seed())\nprint(g)\n"
                "a = torch.rand(2)\ntorch.manual_seed(3)\nprint(torch.equal(a, torch.rand(2)))")
    assert lines[0] == "3" and lines[1].startswith("<torch._C.Generator object at 0x")
    assert lines[2] == "True"


def test_no_grad_as_a_bare_decorator():
    assert run("@torch.no_grad\ndef f(t):\n    return t * 2\n"
               "print(f(torch.ones(1, requires_grad=True)))") == ["tensor([2.])"]
