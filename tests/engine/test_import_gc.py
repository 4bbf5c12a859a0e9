"""`import gradcli` pauses the cyclic collector while its imports make their long-lived
objects and moves them to the oldest generation (start-up: gradcli/__init__.py); it must
leave the collector as it found it: enabled or not, and nothing of the caller's frozen or
unfrozen. Each case in a new process (the package is imported once per process)."""
from __future__ import annotations

import subprocess
import sys


def run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def test_the_collector_stays_enabled_and_nothing_is_left_frozen():
    out = run("import gc\nimport gradcli\nprint(gc.isenabled(), gc.get_freeze_count(), gc.get_count()[0] < 700)")
    assert out == "True 0 True"


def test_a_disabled_collector_stays_disabled():
    out = run("import gc\ngc.disable()\nimport gradcli\nprint(gc.isenabled(), gc.get_freeze_count())")
    assert out == "False 0"


def test_the_callers_frozen_objects_stay_frozen():
    # (a few of them are freed by the import: the count may drop by those; unfrozen, it is 0)
    out = run("import gc\nx = [[] for _ in range(10)]\ngc.freeze()\nn = gc.get_freeze_count()\n"
              "import gradcli\nprint(gc.isenabled(), n - 100 < gc.get_freeze_count() <= n, n > 1000)")
    assert out == "True True True"


def test_objects_made_before_and_after_the_import_are_still_collected():
    """Moved to the oldest generation, not frozen: a cycle made before the import, and a module
    in a cycle with itself made after it, are freed by a full collection once unreachable."""
    code = ("import gc, weakref\nclass C: pass\nc = C(); c.self = c; r = weakref.ref(c)\n"
            "import gradcli.nn\nm = gradcli.nn.Linear(2, 2); m.me = m; s = weakref.ref(m)\n"
            "del c, m\ngc.collect()\nprint(r() is None, s() is None)")
    assert run(code) == "True True"
