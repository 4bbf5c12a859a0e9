"""Issue 26, item 4: the numpy and math facades refuse before they build and are charged by
their work. Real processes under a CPU and memory rlimit: each refusal comes with well
under 1 GB resident, where the value built first took 2-3 GB, and each loop over a facade
call ends at the step limit within the CPU bound, where it ran for minutes."""
from __future__ import annotations

import pytest

from hardening_helpers import limited_run, program_error

BIG_PREFIX = "m = nn.Sequential(*[nn.Linear(1, 1) for i in range(100)])\np = m.{}(prefix='x' * 9000000)"
PREFIX_LIMIT = "past the limit of 10000000"


@pytest.mark.parametrize("source, message", [
    ("import math\nn = math.prod(['abc', 10 ** 9])", "exceeds the limit of 10000000 items"),
    ("import math\nn = math.prod([10 ** 9, 'abc'])", "exceeds the limit of 10000000 items"),
    ("import numpy as np\nv = np.linspace(np.ones(10 ** 5), 1, 10 ** 4)",
     "exceeds the limit of 100000000 elements"),
    ("import numpy as np\nv = np.ones(10 ** 8).tolist()",
     "tolist() of 100000000 elements would make more than 10000000 Python numbers"),
    ("import numpy as np\nt = torch.ones(10 ** 4)\nv = np.array([t] * 10 ** 5)",
     "exceeds the limit of 100000000 elements"),
    ("import numpy as np\nv = np.isclose(np.ones(10 ** 4), 1.0, rtol=np.ones((10 ** 5, 1)))",
     "exceeds the limit of 100000000 elements"),
    ("import numpy as np\nv = np.allclose(np.ones((1, 10 ** 5)), np.ones((10 ** 4, 1)))",
     "exceeds the limit of 100000000 elements"),
    (BIG_PREFIX.format("named_parameters"), PREFIX_LIMIT),
    (BIG_PREFIX.format("state_dict"), PREFIX_LIMIT),
    (BIG_PREFIX.format("named_modules"), PREFIX_LIMIT),
    (BIG_PREFIX.format("named_buffers"), PREFIX_LIMIT),
])
def test_refused_before_it_is_built(source, message):
    ran = program_error("run", "-e", source, message=message)
    assert ran.peak_mb < 1024, ran.peak_mb


LOOPS = {
    "array_of_a_small_list": "L = [[1.0] * 10] * 10\nwhile True:\n    a = np.array(L)",
    "array_of_a_large_list": "L = [[1.0] * 1000] * 1000\nwhile True:\n    a = np.asarray(L)",
    "array_sum": "a = np.ones(10 ** 7)\nwhile True:\n    s = a.sum()",
    "np_sum": "a = np.ones(10 ** 7)\nwhile True:\n    s = np.sum(a)",
    "np_std": "a = np.ones(10 ** 7)\nwhile True:\n    s = np.std(a)",
    "isclose": "a = np.ones(10 ** 7)\nwhile True:\n    s = np.isclose(a, a)",
    "allclose": "a = np.ones(10 ** 7)\nwhile True:\n    s = np.allclose(a, 1.0)",
    "np_mod": "a = np.ones(10 ** 7)\nwhile True:\n    b = np.mod(a, 3.0)",
    "array_power": "a = np.ones(10 ** 7)\nwhile True:\n    b = a ** 1.5",
    "array_matmul": "a = np.ones((2000, 2000))\nwhile True:\n    b = a @ a",
    "array_tolist": "a = np.ones(10 ** 7)\nwhile True:\n    b = a.tolist()",
    "tensor_tolist": "a = torch.ones(10 ** 7)\nwhile True:\n    b = a.tolist()",
    "transposed_reshape": "a = np.ones((3000, 3000))\nwhile True:\n    b = a.T.reshape(-1)",
    "comb": "while True:\n    n = math.comb(10000, 5000)",
    "perm": "while True:\n    n = math.perm(10000, 170)",
    "fsum": "L = [1e-300, 1e300] * 10 ** 6\nwhile True:\n    s = math.fsum(L)",
    "prod": "L = [3] * 10 ** 6\nwhile True:\n    s = math.prod(L)",
    "dist": "L = [3.0] * 10 ** 6\nwhile True:\n    s = math.dist(L, L)",
    "hypot": "L = [3.0] * 10 ** 6\nwhile True:\n    s = math.hypot(*L)",
    "lcm": "L = [3] * 10 ** 6\nwhile True:\n    s = math.lcm(*L)",
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_facade_calls_are_charged(name):
    """Each of these ran 20-40 s of CPU (or until killed) before its work was charged."""
    program_error("run", "-e", "import math\nimport numpy as np\n" + LOOPS[name], message="steps")


def test_facade_answers():
    """The charged facades still answer as numpy and math do (values from Python 3.11 and
    numpy; comb/perm past float64's range are inf, as the language's own ints become)."""
    source = ("import math\nimport numpy as np\na = np.ones((10, 3))\n"
              "print(a.sum(), a.sum(axis=0), a.max(), a.reshape(3, 10).shape, a.T.flatten().shape)\n"
              "print(np.array([[1, 2], [3, 4.5]]).tolist(), np.array([torch.ones(2), [0, 1]]).tolist())\n"
              "print(np.isclose(a, 1.0).sum(), np.allclose(a, [1, 1, 1.0]), a.tolist()[0])\n"
              "print(math.comb(10, 3), math.comb(1025, 512), math.comb(1030, 515), math.perm(5))\n"
              "print(math.fsum([0.1] * 10), math.dist([0, 0], [3, 4]), math.hypot(3, 4))\n"
              "print(math.gcd(12, 18), math.lcm(4, 6), math.prod([2, 3]))\n")
    ran = limited_run("run", "-e", source)
    assert ran.code == 0, ran.stderr[-2000:]
    assert ran.stdout.splitlines() == [
        "30.0 [10. 10. 10.] 1.0 (3, 10) (30,)",
        "[[1.0, 2.0], [3.0, 4.5]] [[1.0, 1.0], [0.0, 1.0]]",
        "30 True [1.0, 1.0, 1.0]",
        f"120 {float(__import__('math').comb(1025, 512))!r} inf 120",
        "1.0 5.0 5.0",
        "6 12 6",
    ]
