"""The backward graph of an output as a small model, for `gradcli graph`.

This module owns the one walk of `grad_fn.next_functions`: iterative (a chain or
a DAG of 10^5 nodes needs no recursion), linear, each node visited once. Nodes
are numbered in depth-first preorder from the root (0), edges keep
`next_functions` order, and every output format (`gradcli.render.graph`) is a
pure function of the model. Nothing here imports typer or rich.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from ..errors import ProgramError
from .._tensor import Tensor
from ..limits import gc_paused


@dataclass(eq=False)
class GraphNode:
    """One backward node: its name, ordered edges, and what the run knows about it.

    `edges` are `(id or None, output_nr)` in `next_functions` order; `tensor` the
    first name (in the run's order) of a tensor this node produced; `variable` the
    name of the leaf behind an AccumulateGrad; `source` "line:col" where the op ran;
    `saved` (name, shape or None, value) triples when asked; `value` the tensor
    the node produced, when known and asked; `reached_from` the (node id, edge
    index) through which the walk first reached this node (None for the root);
    `shape` the shape of the tensor it produced (output 0), when known; `module` the index
    in `GraphModel.modules` of the module whose forward made it.
    """

    __slots__ = ("id", "name", "edges", "tensor", "variable", "source", "saved", "value",
                 "reached_from", "in_degree", "shape", "module", "tangent")

    id: int
    name: str
    edges: list
    tensor: str | None
    variable: str | None
    source: str | None
    saved: list | None
    value: object
    reached_from: tuple | None
    in_degree: int
    shape: list | None
    module: int | None
    tangent: object   # with values: the forward-mode tangent its value had (a dual tensor), else None


@dataclass(eq=False)
class GraphModel:
    """A backward graph: `nodes[i].id == i`, the root is node 0."""

    nodes: list = field(default_factory=list)
    output_name: str | None = None
    with_saved: bool = False
    with_values: bool = False
    root: int = 0
    source_lines: list | None = None  # the program's lines, for the source line of each node
    ids: dict = field(default_factory=dict, repr=False)  # id(grad_fn node) -> node id
    # the run's modules that hold a node: (path label, class name, parent index or None)
    modules: list = field(default_factory=list)

    def source_line(self, node) -> str | None:
        """The program line a node was made on, stripped (for tooltips)."""
        lines = self.source_lines
        if lines is None or node.source is None:
            return None
        line = int(node.source.split(":")[0])
        return lines[line - 1].strip() if 0 < line <= len(lines) else None

    def is_shared(self, node_id: int) -> bool:
        """Whether more than one edge leads to this node (it is drawn once, referred to after)."""
        return self.nodes[node_id].in_degree > 1


def no_graph_error(name: str | None) -> ProgramError:
    what = f"{name!r}" if name else "the output"
    return ProgramError(
        f"{what} does not require grad: it has no graph",
        hint="a literal assignment such as `x = 2.0` creates an input that requires grad; "
             "tensor(...) needs requires_grad=True",
    )


def root_node(output: Tensor, name: str | None = None):
    """The node a graph of `output` starts from: its grad_fn, or a leaf's AccumulateGrad."""
    if output.grad_fn is not None:
        return output.grad_fn
    if output.requires_grad:
        from gradcli.graph.nodes import accumulate_grad

        return accumulate_grad(output)
    raise no_graph_error(name)


def _span_text(span) -> str | None:
    if span is None:
        return None
    try:
        return f"{span[0]}:{span[1]}"
    except (TypeError, IndexError):
        return None


def _saved_of(node) -> list:
    out = []
    for name, value in node.saved_tensors_info():
        shape = list(value._data.shape) if isinstance(value, Tensor) else None
        out.append((str(name), shape, value))
    return out


@contextmanager
def recorded_shapes():
    """Record, while a program runs, the shape of every tensor a node takes as input.

    A node keeps no output shape, but each edge of its parent leads to it from an
    input whose shape was known when the parent was made: yields a dict
    (id(grad_fn), output_nr) -> shape for `build(..., shapes=)`. A later write wins,
    so an id reused after a node died is overwritten by its live owner's parent.
    """
    from ..graph.nodes import observe_nodes

    shapes: dict = {}

    def record(node, inputs):
        stack = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        while stack:
            item = stack.pop()
            if isinstance(item, Tensor):
                fn = item.grad_fn
                if fn is not None:
                    shapes[(id(fn), item._output_nr)] = item._data.shape
            elif isinstance(item, (list, tuple)):  # a custom Function's (args, kwargs), cat's list
                stack.extend(item)
            elif isinstance(item, dict):
                stack.extend(item.values())

    with observe_nodes(record):
        yield shapes


def build(output: Tensor, names: dict | None = None, output_name: str | None = None,
          saved: bool = False, values: bool = False, shapes: dict | None = None) -> GraphModel:
    """Walk the graph of `output` once into a GraphModel.

    `names` maps the run's names to their values (first-assignment order): a node
    that produced a named tensor is labelled with the first such name, and an
    AccumulateGrad with the first name of its variable. `shapes` (from
    `recorded_shapes`) gives the nodes their output shapes; leaves and tensors the
    run still holds have theirs without it.
    """
    with gc_paused():
        return _build(output, names, output_name, saved, values, shapes or {})


def _build(output, names, output_name, saved, values, shapes) -> GraphModel:
    root = root_node(output, output_name)

    # name lookups: id(grad_fn) -> first name, id(tensor) -> first name
    by_fn: dict[int, str] = {}
    by_fn_out: dict[tuple, Tensor] = {}
    by_tensor: dict[int, str] = {}
    for name, value in (names or {}).items():
        if not isinstance(value, Tensor):
            continue
        by_tensor.setdefault(id(value), name)
        if value.grad_fn is not None:
            by_fn.setdefault(id(value.grad_fn), name)
            by_fn_out.setdefault((id(value.grad_fn), value._output_nr), value)
    if output_name and output_name.isidentifier():  # a bare final expression is not a name
        by_tensor.setdefault(id(output), output_name)
        if output.grad_fn is not None:
            by_fn.setdefault(id(output.grad_fn), output_name)
    if output.grad_fn is not None:
        by_fn_out.setdefault((id(output.grad_fn), output._output_nr), output)
    paths = _module_paths(names, by_tensor)

    # one iterative depth-first walk; `objs` keeps every node alive so id() stays unique
    index: dict[int, int] = {}
    objs: list = []
    reached: list = []
    stack = [(root, None, 0)]
    while stack:
        node, parent, edge = stack.pop()
        key = id(node)
        if key in index:
            continue
        index[key] = len(objs)
        objs.append(node)
        reached.append(None if parent is None else (parent, edge))
        me = index[key]
        nexts = node.next_nodes
        for k in range(len(nexts) - 1, -1, -1):
            child = nexts[k]
            if child is not None and id(child) not in index:
                stack.append((child, me, k))

    model = GraphModel(output_name=output_name, with_saved=saved, with_values=values, ids=index)
    in_degree = [0] * len(objs)
    for i, node in enumerate(objs):
        edges = []
        for child, nr in zip(node.next_nodes, node.next_nrs):
            if child is None:
                edges.append((None, int(nr)))
            else:
                j = index[id(child)]
                in_degree[j] += 1
                edges.append((j, int(nr)))
        variable = tensor_name = value = None
        leaf = getattr(node, "variable", None)
        if isinstance(leaf, Tensor):
            variable = by_tensor.get(id(leaf))
            shape = leaf._data.shape
            if values:
                value = leaf
        else:
            tensor_name = by_fn.get(id(node))
            held = by_fn_out.get((id(node), 0))
            shape = held._data.shape if held is not None else shapes.get((id(node), 0))
            if values:
                value = _value_of(node, tensor_name, names, by_fn_out)
        model.nodes.append(GraphNode(
            id=i, name=node.name(), edges=edges, tensor=tensor_name, variable=variable,
            source=_span_text(getattr(node, "source", None)),
            saved=_saved_of(node) if saved else None, value=value,
            reached_from=reached[i], in_degree=0, module=None,
            shape=None if shape is None else list(shape),
            tangent=_tangent_of(value, node) if values else None,
        ))
    for node, d in zip(model.nodes, in_degree):
        node.in_degree = d
    if paths:
        _assign_modules(model, objs, paths)
    return model


def _module_paths(names, by_tensor) -> dict:
    """id(module) -> (path, module, variable); names the modules' parameters in by_tensor."""
    if not names or not any(getattr(v, "_parameters", None) is not None for v in names.values()):
        return {}
    from ..nn.modules.module import module_paths, module_tensors

    for name, t in reversed(list(module_tensors(names).items())):
        by_tensor[id(t)] = name  # a path wins over a variable that also holds the parameter
    return {id(m): (path, m, variable) for path, m, variable in module_paths(names)}


def _assign_modules(model, objs, paths) -> None:
    """Each node's module (the innermost whose forward made it; a parameter's leaf is its
    owner's), and the clusters those modules form, each under its parent module."""
    from ..nn.modules.module import NODE_MODULE

    owner = {id(t): id(m) for _, m, _ in paths.values()
             for t in list(m._parameters.values()) + list(m._buffers.values()) if t is not None}
    index: dict = {}

    def cluster(key):
        if key not in index:
            path, module, variable = paths[key]
            parent_path = path.rpartition(".")[0] if "." in path else ("" if path else None)
            parent = next((k for k, (p, _, v) in paths.items() if p == parent_path
                           and (parent_path or v == variable)), None) if parent_path is not None \
                else None
            parent_index = cluster(parent) if parent is not None and parent != key else None
            index[key] = len(model.modules)
            model.modules.append((path or variable, module._get_name(), parent_index))
        return index[key]

    for node, obj in zip(model.nodes, objs):
        leaf = getattr(obj, "variable", None)
        module = owner.get(id(leaf)) if leaf is not None else None
        if module is None and leaf is None:
            found = NODE_MODULE.get(obj)
            module = id(found) if found is not None else None
        if module in paths:
            node.module = cluster(module)


def _tangent_of(value, node):
    """The tangent a dual tensor's value had (its level's, kept when the level exited)."""
    from ..ops import dual

    found = dual.exited_tangent(value) if value is not None else None
    if found is None and getattr(node, "variable", None) is None:
        found = dual.exited_tangent(node)
    return found


def _value_of(node, tensor_name, names, by_fn_out):
    """The tensor `node` produced, when the run still holds it (or the node saved it)."""
    if tensor_name is not None and names is not None:
        named = names.get(tensor_name)
        if isinstance(named, Tensor) and named.grad_fn is node:
            return named
    found = by_fn_out.get((id(node), 0))
    if found is not None:
        return found
    result = getattr(node, "result", None)
    if result is not None and getattr(node, "n_outputs", 1) == 1:
        return Tensor._make(result)
    return None


def graph_of(run, of: str | None = None, saved: bool = False, values: bool = False,
             shapes: dict | None = None) -> GraphModel:
    """The graph of a run's output (or of `--of NAME`)."""
    from ..lang.runs import orphan_leaves, tensor_output

    name, out = tensor_output(run, of)
    names = getattr(run, "values", None)
    if getattr(run, "modules", None):
        names = {**names, **run.modules}  # their parameters are named by path (fc1.weight)
    if names is not None:
        # a leaf whose name was reassigned: `x (2:1)`, as backward and grad name it
        names = {**names, **orphan_leaves(run, out)}
    model = build(out, names, output_name=name, saved=saved, values=values, shapes=shapes)
    program = getattr(getattr(run, "interpreter", None), "program", None)
    text = getattr(program, "source", None)
    model.source_lines = text.splitlines() if isinstance(text, str) else None
    return model
