"""The suite's tests were written for float64 arithmetic: each runs with the default
dtype float64 (as the expression commands do) unless it sets another; the library's
own default, float32, is tested in tests/engine/test_dtypes.py."""
import pytest

from gradcli import dtypes


@pytest.fixture(autouse=True)
def _float64_default():
    with dtypes.default_dtype(dtypes.float64):
        yield
