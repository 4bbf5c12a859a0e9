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


def _match_graph(nodes, node_id, pattern):
    """Assert that the graph JSON's node `node_id` has the pattern's name, variable and inputs, recursively."""
    node = nodes[node_id]
    assert node["name"] == pattern["name"]
    if "variable" in pattern:
        assert node.get("variable") == pattern["variable"]
    if "next" in pattern:
        assert len(node["next"]) == len(pattern["next"])
        for (sub, index), (got_id, got_index) in zip(pattern["next"], node["next"]):
            assert got_index == index
            if sub is None:
                assert got_id is None
            else:
                _match_graph(nodes, got_id, sub)


@pytest.fixture
def match_graph():
    """The seed graph patterns' matcher, shared by the seed cases and `gradcli graph`'s tests."""
    return _match_graph
