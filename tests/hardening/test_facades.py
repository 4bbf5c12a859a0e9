"""Issue 26, item 4 (part): facades and names refuse before they build. Real processes
under a CPU and memory rlimit: each refusal comes with well under 1 GB resident, where
the value built first took 2-3 GB."""
from __future__ import annotations

import pytest

from hardening_helpers import program_error

BIG_PREFIX = "m = nn.Sequential(*[nn.Linear(1, 1) for i in range(100)])\np = m.{}(prefix='x' * 9000000)"


@pytest.mark.parametrize("source, message", [
    ("import math\nn = math.prod(['abc', 10 ** 9])", "exceeds the limit of 10000000 items"),
    ("import math\nn = math.prod([10 ** 9, 'abc'])", "exceeds the limit of 10000000 items"),
    ("import numpy as np\nv = np.linspace(np.ones(10 ** 5), 1, 10 ** 4)",
     "exceeds the limit of 100000000 elements"),
    (BIG_PREFIX.format("named_parameters"), "steps"),
    (BIG_PREFIX.format("state_dict"), "steps"),
    (BIG_PREFIX.format("named_modules"), "steps"),
])
def test_refused_before_it_is_built(source, message):
    ran = program_error("run", "-e", source, message=message)
    assert ran.peak_mb < 1024, ran.peak_mb
