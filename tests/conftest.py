"""The suite's tests were written for float64 arithmetic: each runs with the default
dtype float64 (as the expression commands do) unless it sets another; the library's
own default, float32, is tested in tests/engine/test_dtypes.py.

Tests that drive the CLI in-process (CliRunner) run under the CLI's numpy policy:
`gradcli.cli.main` sets inf and nan to flow silently, as PyTorch's do, and so do these."""
import numpy
import pytest

from gradcli import dtypes

numpy.seterr(all="ignore")


@pytest.fixture(autouse=True)
def _float64_default():
    with dtypes.default_dtype(dtypes.float64):
        yield
