"""The graph model of `gradcli graph` and its formats, on graphs built with the library API.

The seed graphs (e04-e07, e12) are built directly, matched against the patterns
of shared/seed-cases/expected.json with the checker's own rules, and drawn in
every format. Big graphs (a 10^5-node chain, a 10^5-node DAG whose nodes are
shared) must give output that grows linearly.
"""
import json
import re
from types import SimpleNamespace

import numpy as np
import pytest

import gradcli
from gradcli.answers import graphmodel
from gradcli.autograd import Function
from gradcli.errors import ExitCode, ProgramError
from gradcli.render import graph as render
from gradcli._tensor import Tensor


def tensor(data, requires_grad=False):
    make = getattr(gradcli, "tensor", None)
    if callable(make):
        return make(data, requires_grad=requires_grad)
    return Tensor(data, requires_grad=requires_grad)


def op(name):
    from gradcli.ops import FUNCTIONS

    fn = FUNCTIONS.get(name)
    if fn is None:
        pytest.skip(f"op {name} is not in the op table yet")
    return fn


def unbind(a):
    method = getattr(a, "unbind", None)
    if method is None:
        op("unbind")
        method = lambda: op("unbind")(a)  # noqa: E731
    return method()


def model_of(out, **names):
    """The model of `out`, names given in first-assignment order; the output is the last one."""
    output_name = next(reversed(names)) if names else None
    return graphmodel.build(out, names, output_name=output_name)


# -- the checker's own matcher (shared/seed-cases/check.py), for the seed patterns --

def match_graph(nodes, node_id, pattern, where="root"):
    node = nodes.get(node_id)
    if node is None:
        return f"{where}: no node {node_id}"
    if node.get("name") != pattern["name"]:
        return f"{where}: name {node.get('name')!r}, expected {pattern['name']!r}"
    if "variable" in pattern and node.get("variable") != pattern["variable"]:
        return f"{where}: variable {node.get('variable')!r}"
    if "next" in pattern:
        edges = node.get("next", [])
        if len(edges) != len(pattern["next"]):
            return f"{where}: {len(edges)} next_functions"
        for i, ((sub, index), (got_id, got_index)) in enumerate(zip(pattern["next"], edges)):
            if got_index != index:
                return f"{where}.next[{i}]: output index {got_index}"
            if sub is None:
                if got_id is not None:
                    return f"{where}.next[{i}]: expected None"
                continue
            problem = match_graph(nodes, got_id, sub, f"{where}.next[{i}]")
            if problem:
                return problem
    return None


def assert_matches(model, pattern):
    doc = json.loads(json.dumps(render.to_json(model), allow_nan=False))
    assert doc["root"] == 0
    nodes = {n["id"]: n for n in doc["nodes"]}
    assert match_graph(nodes, doc["root"], pattern) is None, match_graph(nodes, doc["root"], pattern)
    return doc


ACC = "AccumulateGrad"


# -- seed graphs --------------------------------------------------------------------


def test_e04_edge_to_a_tensor_that_needs_no_grad_is_none():
    a = tensor(2.0, True)
    b = tensor(3.0)
    c = a * b
    doc = assert_matches(model_of(c, a=a, b=b, c=c),
                         {"name": "MulBackward0", "next": [[{"name": ACC, "variable": "a"}, 0], [None, 0]]})
    assert doc["nodes"] == [
        {"id": 0, "name": "MulBackward0", "tensor": "c", "next": [[1, 0], [None, 0]]},
        {"id": 1, "name": "AccumulateGrad", "variable": "a", "next": []},
    ]


def test_e05_chain_ids_in_depth_first_preorder():
    a, b = tensor(2.0, True), tensor(3.0, True)
    c = a * b
    d = tensor(4.0, True)
    e = c * d
    model = model_of(e, a=a, b=b, c=c, d=d, e=e)
    assert_matches(model, {"name": "MulBackward0", "next": [
        [{"name": "MulBackward0", "next": [[{"name": ACC, "variable": "a"}, 0],
                                           [{"name": ACC, "variable": "b"}, 0]]}, 0],
        [{"name": ACC, "variable": "d"}, 0]]})
    assert [(n.name, n.tensor, n.variable) for n in model.nodes] == [
        ("MulBackward0", "e", None), ("MulBackward0", "c", None),
        (ACC, None, "a"), (ACC, None, "b"), (ACC, None, "d")]
    assert [n.edges for n in model.nodes] == [[(1, 0), (4, 0)], [(2, 0), (3, 0)], [], [], []]


def _e06_pattern():
    return {"name": "MulBackward0", "next": [
        [{"name": "MulBackward0", "next": [[{"name": "UnbindBackward0"}, 0], [{"name": "UnbindBackward0"}, 1]]}, 0],
        [{"name": "UnbindBackward0", "next": [[{"name": ACC, "variable": "a"}, 0]]}, 2]]}


def test_e06_unbind_output_indices():
    a = tensor([2.0, 3.0, 4.0], True)
    b, c, d = unbind(a)
    e = b * c * d
    model = model_of(e, a=a, b=b, c=c, d=d, e=e)
    assert_matches(model, _e06_pattern())
    unbind_node = model.nodes[2]
    assert unbind_node.name == "UnbindBackward0" and unbind_node.tensor == "b"  # the first name
    assert unbind_node.in_degree == 3


class Split(Function):
    """A three-output custom op, to give a node reached with indices 0, 1 and 2."""

    @staticmethod
    def forward(ctx, x):
        return x * 1.0, x * 2.0, x * 3.0

    @staticmethod
    def backward(ctx, g0, g1, g2):
        return g0 + 2 * g1 + 3 * g2


def test_a_node_reached_through_three_outputs_is_one_node():
    x = tensor(2.0, True)
    p, q, r = Split.apply(x)
    e = p * q * r
    model = model_of(e, x=x, p=p, q=q, r=r, e=e)
    assert [n.name for n in model.nodes] == ["MulBackward0", "MulBackward0", "SplitBackward", ACC]
    assert model.nodes[1].edges == [(2, 0), (2, 1)]
    assert model.nodes[0].edges == [(1, 0), (2, 2)]
    assert model.nodes[2].tensor == "p" and model.nodes[3].variable == "x"
    lines = render.to_tree(model, unicode=True)
    assert sum("SplitBackward #2 tensor p" in line for line in lines) == 1
    assert sum("-> SplitBackward #2 (see above)" in line for line in lines) == 2
    assert lines == [
        "MulBackward0 tensor e scalar (output)",
        "├── [0] MulBackward0",
        "│   ├── [0] SplitBackward #2 tensor p scalar",
        "│   │   └── [0] AccumulateGrad variable x scalar",
        "│   └── [1] -> SplitBackward #2 (see above)",
        "└── [2] -> SplitBackward #2 (see above)",
    ]


def test_e07_number_on_the_left_comes_second():
    x = Tensor(np.arange(4.0))
    x.requires_grad_(True)
    y = 2 * op("dot")(x, x)
    model = model_of(y, x=x, y=y)
    assert_matches(model, {"name": "MulBackward0", "next": [[{"name": "DotBackward0"}, 0], [None, 0]]})
    dot = model.nodes[1]
    assert dot.edges == [(2, 0), (2, 0)] and model.nodes[2].variable == "x"
    tree = render.to_tree(model, unicode=False)
    assert tree == [
        "MulBackward0 tensor y scalar (output)",
        "|-- [0] DotBackward0",
        "|   |-- [0] AccumulateGrad #2 variable x [4]",
        "|   \\-- [0] -> AccumulateGrad #2 (see above)",
        "\\-- [0] None",
    ]


def test_e12_custom_function_node_and_its_saved_tensors(seed_e12):
    x, y, z = (seed_e12[name] for name in ("x", "y", "z"))
    assert (x.tolist(), y.tolist()) == ([1.0, 2.0], [3.0, 4.0])
    model = graphmodel.build(z, {"x": x, "y": y, "z": z}, "z", saved=True, values=True)
    doc = assert_matches(model, {"name": "FuncBackward", "next": [[{"name": ACC, "variable": "x"}, 0],
                                                                 [{"name": ACC, "variable": "y"}, 0]]})
    root = doc["nodes"][0]
    assert [s["name"] for s in root["saved"]] == ["saved[0]", "saved[1]"]
    assert root["saved"][0]["shape"] == [2]
    assert root["saved"][0]["value"] == pytest.approx(np.exp([1.0, 2.0]).tolist())
    assert root["value"] == pytest.approx(z._data.tolist())
    assert doc["nodes"][1]["value"] == [1.0, 2.0]
    assert doc["nodes"][1]["saved"] == []


def test_saved_and_value_keys_only_when_asked():
    a = tensor(2.0, True)
    c = a * tensor(3.0)
    doc = render.to_json(model_of(c, a=a, c=c))
    assert all("saved" not in n and "value" not in n for n in doc["nodes"])
    doc = render.to_json(graphmodel.build(c, {"a": a, "c": c}, "c", saved=True))
    assert doc["nodes"][0]["saved"] == [{"name": "_saved_other", "shape": [], "value": 3.0}]
    assert "value" not in doc["nodes"][0]


def test_source_is_line_col_when_known():
    from gradcli.graph import nodes
    from gradcli.errors import Span

    a = tensor(2.0, True)
    nodes.set_current_source(Span(3, 5))
    try:
        c = a * 2
    finally:
        nodes.set_current_source(None)
    model = model_of(c, a=a, c=c)
    assert model.nodes[0].source == "3:5" and model.nodes[1].source is None
    assert render.to_json(model)["nodes"][0] == {"id": 0, "name": "MulBackward0", "tensor": "c",
                                                 "source": "3:5", "next": [[1, 0], [None, 0]]}
    assert render.to_tree(model, unicode=False)[0] == "MulBackward0 tensor c scalar at 3:5 (output)"


def test_a_leaf_that_requires_grad_is_a_root_accumulate_grad():
    x = tensor(2.0, True)
    model = model_of(x, x=x)
    assert render.to_json(model) == {"root": 0, "nodes": [
        {"id": 0, "name": "AccumulateGrad", "variable": "x", "next": []}]}


def test_an_output_with_no_graph_is_a_program_error():
    z = tensor(2.0)
    with pytest.raises(ProgramError, match="'z' does not require grad: it has no graph") as info:
        model_of(z, z=z)
    assert info.value.exit_code == ExitCode.PROGRAM


def test_graph_of_a_run_and_of_names_another_tensor():
    a = tensor(2.0, True)
    b = a * 3.0
    c = b.sin()
    run = SimpleNamespace(values={"a": a, "b": b, "c": c, "k": 4.0}, output_name="c", output=c,
                          select_output=lambda name: (name, {"a": a, "b": b, "c": c}[name]))
    assert [n.name for n in graphmodel.graph_of(run).nodes] == ["SinBackward0", "MulBackward0", ACC]
    model = graphmodel.graph_of(run, "b")
    assert [(n.name, n.tensor) for n in model.nodes] == [("MulBackward0", "b"), (ACC, None)]


def test_first_name_wins_for_aliases():
    a = tensor(2.0, True)
    b = a * 3.0
    alias = b
    model = graphmodel.build(b, {"a": a, "first": alias, "b": b, "other": a}, "b")
    assert model.nodes[0].tensor == "first" and model.nodes[1].variable == "a"


# -- formats --------------------------------------------------------------------------


def _dag_of_two(n):
    """h_k = h_{k-1} * h_{k-2}: every node is reached twice (n op nodes, one leaf)."""
    x = tensor(1.0, True)
    prev, cur = x, x * 1.0
    for _ in range(n - 1):
        prev, cur = cur, cur * prev
    return x, cur


def _chain(n):
    x = tensor(1.0, True)
    z = x
    for _ in range(n):
        z = z + 1.0
    return x, z


def test_dot_is_well_formed():
    x, z = _dag_of_two(5)
    model = model_of(z, x=x, z=z)
    lines = render.to_dot(model)
    assert lines[0] == "digraph grad_fn {" and lines[-1] == "}"
    declared = set()
    for line in lines[1:-1]:
        m = re.fullmatch(r'  (\w+) \[id="(\w+)", .*\];', line)
        e = re.fullmatch(r'  (\w+) -> (\w+) \[id="e\d+_\d+", .*\];', line)
        if e:
            assert e.group(1) in declared
            assert e.group(2) in declared
        elif m:
            assert m.group(1) == m.group(2)
            declared.add(m.group(1))
        else:
            assert line.startswith("  graph ["), line
    assert {f"n{i}" for i in range(len(model.nodes))} <= declared
    edges = sum(" -> " in line for line in lines)
    assert edges == sum(len(n.edges) for n in model.nodes)


def test_dot_and_mermaid_escape_labels():
    a = tensor(2.0, True)
    c = a * 2
    model = graphmodel.build(c, {'we"ird': a, "c": c}, "c")
    dot = "\n".join(render.to_dot(model))
    assert '<b>we&quot;ird</b>' in dot and 'we"ird' not in dot
    mermaid = "\n".join(render.to_mermaid(model))
    assert 'we#quot;ird' in mermaid and 'we"ird' not in mermaid


def test_mermaid_is_well_formed():
    a = tensor(2.0, True)
    b = tensor(3.0)
    c = a * b
    lines = render.to_mermaid(model_of(c, a=a, b=b, c=c))
    assert lines == [
        "flowchart TD",
        '  n0["MulBackward0<br/>output c<br/>scalar"]:::output',
        '  n1["AccumulateGrad<br/>variable a<br/>scalar"]:::leaf',
        "  n0 --> n1",
        '  n0 -.-> none0_1(["None"]):::none',
        "  classDef output fill:#ffd479,stroke:#c07000,stroke-width:3px",
        "  classDef leaf fill:#bfe0ff",
        "  classDef none fill:#ffffff,stroke:#b0b0b0,color:#b0b0b0",
    ]


def test_list_has_one_line_per_node():
    a = tensor(2.0, True)
    b = tensor(3.0)
    c = a * b
    lines = render.to_list(model_of(c, a=a, b=b, c=c))
    assert len(lines) == 3
    assert lines[1].split() == ["#0", "MulBackward0", "tensor", "c", "(#1,", "0),", "(None,", "0)"]
    assert lines[2].split() == ["#1", "AccumulateGrad", "variable", "a", "-"]


def test_tree_with_values_and_saved():
    a = tensor(2.0, True)
    c = a * tensor(3.0)
    model = graphmodel.build(c, {"a": a, "c": c}, "c", saved=True, values=True)
    lines = render.to_tree(model, unicode=False)
    assert lines[0] == "MulBackward0 tensor c scalar = tensor(6.) (output)"
    assert lines[1] == "|   _saved_other: tensor(3.)"
    assert "AccumulateGrad variable a scalar = tensor(2.)" in lines[2]


def test_colour_only_when_asked():
    x, z = _chain(3)
    model = model_of(z, x=x, z=z)
    assert not any("\x1b[" in line for line in render.to_tree(model, unicode=True))
    coloured = render.to_tree(model, unicode=True, color=True)
    assert any("\x1b[" in line for line in coloured)
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in coloured]
    assert plain == render.to_tree(model, unicode=True)


# -- big graphs: linear output ------------------------------------------------------------

N = 100_000


@pytest.fixture(scope="module")
def chain():
    x, z = _chain(N)
    return model_of(z, x=x, z=z)


@pytest.fixture(scope="module")
def dag():
    x, z = _dag_of_two(N)
    return model_of(z, x=x, z=z)


def test_long_chain_model(chain):
    assert len(chain.nodes) == N + 1
    assert chain.nodes[-1].variable == "x" and chain.nodes[0].tensor == "z"
    assert all(n.edges == [(n.id + 1, 0), (None, 0)] for n in chain.nodes[:-1])


def test_long_chain_tree_is_linear_and_depth_capped(chain):
    lines = render.to_tree(chain, unicode=False)
    assert len(lines) <= 2 * len(chain.nodes) + len(chain.nodes) // render.MAX_DEPTH + 1
    assert max(len(line) for line in lines) <= 4 * (render.MAX_DEPTH + 2) + 80
    assert sum(len(line) for line in lines) <= 250 * len(chain.nodes)
    assert any("... (continued at depth 40" in line for line in lines)
    assert sum("AccumulateGrad variable x" in line for line in lines) == 1


def test_long_chain_other_formats_are_linear(chain):
    nodes = len(chain.nodes)
    assert len(render.to_list(chain)) == nodes + 1
    assert len(render.to_dot(chain)) <= 4 * nodes
    assert len(render.to_mermaid(chain)) <= 4 * nodes
    doc = json.loads(json.dumps(render.to_json(chain)))
    assert len(doc["nodes"]) == nodes


def test_dag_of_shared_nodes_is_drawn_once(dag):
    nodes = len(dag.nodes)
    assert nodes == N + 1
    lines = render.to_tree(dag, unicode=True)
    assert len(lines) <= 2 * nodes + nodes // render.MAX_DEPTH + 1
    assert sum(len(line) for line in lines) <= 250 * nodes
    assert sum("(see above)" in line for line in lines) == nodes - 2
    assert len(render.to_list(dag)) == nodes + 1
    assert len(render.to_dot(dag)) <= 4 * nodes


def test_references_point_above():
    x, z = _dag_of_two(200)
    model = model_of(z, x=x, z=z)
    seen = set()
    for line in render.to_tree(model, unicode=False):
        ref = re.search(r"-> \w+ #(\d+) \(see above\)", line)
        if ref:
            assert int(ref.group(1)) in seen
        else:
            drawn = re.search(r"\w+Backward\d* #(\d+)|AccumulateGrad #(\d+)", line)
            if drawn:
                seen.add(int(drawn.group(1) or drawn.group(2)))
