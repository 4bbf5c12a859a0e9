"""Fixtures of the engine's tests."""
from pathlib import Path

import pytest

from gradcli.graph.nodes import set_current_source
from gradcli.lang import compile_program

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture
def seed_e12():
    """The seed e12 sample (a custom Function) run by gradcli's language, as `gradcli run` runs
    it: its names (Func, x, y, z), from a fresh run each time."""
    path = SAMPLES / "e12_custom_function.py"
    run = compile_program(path.read_text(), str(path)).run(script=True)
    yield {name: run.interpreter.module_scope.vars[name] for name in ("Func", "x", "y", "z")}
    set_current_source(None)   # Func's methods, called from a test, set the span of their ops
