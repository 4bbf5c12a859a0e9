"""The warnings facade (lang/stdlib.py, gradcli/warn.py) under untrusted programs: its
filters are bounded and their scans charged, a message pattern is no regular expression
(no catastrophic backtracking), it hands a program no Python object to reach into, and
its refusals are clean errors. Real processes under the CPU and memory rlimits."""
from __future__ import annotations

import pytest

from hardening_helpers import invoke, limited_run, program_error

W = "import warnings\n"


@pytest.mark.parametrize("source, message", [
    (W + "for i in range(2000):\n    warnings.filterwarnings('ignore', message=str(i))",
     "at most 1000 warning filters"),
    (W + "warnings.filterwarnings('ignore', message='x' * 5000)", "at most 1000 characters"),
    (W + "warnings.filterwarnings('loud')", "invalid action: 'loud'"),
    (W + "warnings.filterwarnings('ignore', category=str)", "category must be a Warning subclass"),
    (W + "warnings.warn('x', 3)", "category must be a Warning subclass, not 'int'"),
    (W + "class Mine:\n    pass\nwarnings.warn('x', Mine)", "category must be a Warning subclass"),
    (W + "warnings.filterwarnings('ignore', message=3)", "message must be a string"),
    (W + "warnings.simplefilter('ignore', lineno=-1)", "lineno must be an int >= 0"),
    (W + "with warnings.catch_warnings(record=True) as w:\n    pass",
     "catch_warnings(record=True) is not supported in gradcli"),
    (W + "c = warnings.catch_warnings()\ns = c.saved", "'catch_warnings' object has no attribute 'saved'"),
    (W + "f = warnings.filters", "has no attribute 'filters'"),
    (W + "f = warnings.sys", "has no attribute 'sys'"),
    (W + "f = warnings.showwarning", "has no attribute 'showwarning'"),
])
def test_refused_cleanly(source, message):
    program_error("run", "-e", source, message=message)


def test_a_dunder_of_the_facade_is_refused():
    program_error("run", "-e", W + "d = warnings.__dict__", message="names that start and end with '__'")


def test_warning_scans_are_charged():
    """A long text checked against many message filters, in a loop: charged by its scans, it
    ends at the step limit within the CPU bound."""
    source = (W + "for i in range(1000):\n    warnings.filterwarnings('ignore', message='.*q' + str(i))\n"
              "t = 'x' * 100000\nwhile True:\n    warnings.warn(t)")
    program_error("run", "-e", source, message="steps")


def test_a_backtracking_pattern_is_literal_text():
    """`(a+)+$` is exponential for a regular expression engine on 'aaa...!': here it is a
    prefix of literal characters, answered at once."""
    source = (W + "warnings.filterwarnings('ignore', message='(a+)+$')\n"
              "warnings.warn('a' * 5000 + '!')\nprint('done')")
    ran = limited_run("run", "-e", source)
    assert ran.code == 0 and ran.stdout == "done\n", ran.stderr[-500:]
    assert "warning: UserWarning: aaaa" in ran.stderr


def test_a_warning_text_cannot_drive_the_terminal():
    result = invoke("run", "-e", W + "warnings.warn('\\x1b[2J cleared')")
    assert result.exit_code == 0
    assert "\x1b" not in result.stderr and "\\x1b[2J cleared" in result.stderr
