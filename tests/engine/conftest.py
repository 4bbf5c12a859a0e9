"""Fixtures of the engine's tests."""
from pathlib import Path

import pytest

import gradcli

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture
def seed_e12():
    """The seed e12 sample (a custom Function) run as Python on the library API, gradcli standing
    for torch as it does for programs: its names (Func, x, y, z), from a fresh run each time.
    The sample is a trusted file of this repository, and PyTorch code: Python runs it unchanged."""
    path = SAMPLES / "e12_custom_function.py"
    names = {"torch": gradcli}
    exec(compile(path.read_text(), str(path), "exec"), names)  # noqa: S102 (a repository file)
    return names
