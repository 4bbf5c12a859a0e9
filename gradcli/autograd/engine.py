"""The backward engine: gradients flow from outputs to inputs, iteratively.

Dependency counts over the reachable graph give the order (no recursion, so a
chain of a million nodes runs); each node's incoming gradients are summed in a
dict and popped when the node runs; saved tensors are freed as each node
finishes unless `retain_graph`. `grad` is the primitive: `backward`
accumulates into `.grad` what `grad` would return.
"""
from __future__ import annotations

import numpy as np

from ..errors import AutogradError, GradcliError, ProgramTypeError, ShapeError
from .._tensor import BATCH_CHECK, Tensor, _grad_enabled, bump_version, shape_str
from . import anomaly, kept as _kept
from ..graph import node_hooks as _node_hooks, saved_hooks as _saved_hooks
from ..graph import nodes as _graph
from ..graph.callback import call_program
from ..limits import CREATE_GRAPH_STEP_WORK, FREE_ELEMENTS, NODE_WORK, budget as _budget
from ..graph.nodes import MANY_INPUTS, NOTHING_SAVED, ONE_INPUT, AccumulateGrad, OpNode, accumulate_grad

ndarray = np.ndarray


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _root_grads(outputs: list, grad_outputs: list, create_graph: bool) -> list:
    """The gradient each output starts with, checked as PyTorch checks it."""
    if len(grad_outputs) not in (0, len(outputs)):
        raise AutogradError(
            f"grad requires one gradient per output: got {len(grad_outputs)} for {len(outputs)} outputs"
        )
    roots = []
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise AutogradError(f"element {i} of tensors is not a Tensor")
        g = grad_outputs[i] if grad_outputs else None
        if g is None:
            if out._data.size != 1:
                raise AutogradError("grad can be implicitly created only for scalar outputs")
            g = Tensor._make(np.ones_like(out._data))
        elif not isinstance(g, Tensor):
            g = Tensor._make(np.asarray(g, dtype=out._data.dtype))
        if g._data.shape != out._data.shape:
            if g._data.size == out._data.size == 1 and g._data.ndim <= 1:
                g = Tensor._make(g._data.reshape(out._data.shape))
            else:
                raise ShapeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"torch.Size({shape_str(g._data.shape)}) and output[{i}] has a shape of "
                    f"torch.Size({shape_str(out._data.shape)})."
                )
        if not out.requires_grad:
            raise AutogradError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        node = out.grad_fn if out.grad_fn is not None else accumulate_grad(out)
        roots.append((node, out._output_nr, g if create_graph else g._data))
    return roots


def _discover(roots) -> tuple:
    """Count, for every node reachable from the roots, the edges that lead into it; and list
    the sinks, the nodes with no edge out (leaves' AccumulateGrads, mostly)."""
    deps = {}
    sinks = []
    stack = []
    for node, _, _ in roots:
        if node not in deps:
            deps[node] = 0
            stack.append(node)
    while stack:
        node = stack.pop()
        # the edges' nodes read from their slots, unrolled: a loop over a tuple made per node
        # (`next_nodes`) made the Hessian's 100 vector-Jacobian products 2-4% slower. The
        # count step's copies here and in _needed are kept on purpose (a call per edge costs
        # what the unrolling saves); `duplicates` lists them.
        nxt = node.next0
        second = node.next1
        if second is MANY_INPUTS:
            sink = True
            for nxt in nxt:
                if nxt is not None:
                    sink = False
                    count = deps.get(nxt)
                    if count is None:
                        deps[nxt] = 1
                        stack.append(nxt)
                    else:
                        deps[nxt] = count + 1
            if sink:
                sinks.append(node)
            continue
        if nxt is not None:
            count = deps.get(nxt)
            if count is None:
                deps[nxt] = 1
                stack.append(nxt)
            else:
                deps[nxt] = count + 1
        elif second is None or second is ONE_INPUT:
            sinks.append(node)   # (a test only on the rare path: most nodes' first edge is a node)
        if second is not None and second is not ONE_INPUT:
            count = deps.get(second)
            if count is None:
                deps[second] = 1
                stack.append(second)
            else:
                deps[second] = count + 1
    return deps, sinks


def _needed(deps: dict, targets) -> set:
    """The nodes from which some target can be reached (the rest need not run)."""
    remaining = dict(deps)
    order = [n for n, c in remaining.items() if c == 0]
    for node in order:   # a topological order (Kahn's: the loop reaches what it appends), then back
        second = node.next1   # unrolled as in _discover (its copies kept on purpose, see there)
        if second is MANY_INPUTS:
            for nxt in node.next0:
                if nxt is not None:
                    count = remaining[nxt] - 1
                    remaining[nxt] = count
                    if count == 0:
                        order.append(nxt)
            continue
        nxt = node.next0
        if nxt is not None:
            count = remaining[nxt] - 1
            remaining[nxt] = count
            if count == 0:
                order.append(nxt)
        if second is not None and second is not ONE_INPUT:
            count = remaining[second] - 1
            remaining[second] = count
            if count == 0:
                order.append(second)
    needed = set(targets)
    for node in reversed(order):
        if node in needed:
            continue
        second = node.next1
        if second is MANY_INPUTS:
            for nxt in node.next0:
                if nxt is not None and nxt in needed:
                    needed.add(node)
                    break
        elif node.next0 in needed or second in needed:   # (None and ONE_INPUT never are)
            needed.add(node)
    return needed


def _add(a, b):
    return b if a is None else (a if b is None else a + b)


def _wrap(g, create_graph):
    return g if create_graph else Tensor._make(g)


def _unwrap(g, create_graph):
    if g is None:
        return None
    if create_graph:
        return g
    return g._data if isinstance(g, Tensor) else np.asarray(g, dtype=np.float64)


def _hook_result(hook, out, g):
    """What a hook returned, checked as PyTorch checks it: None or a Tensor of g's size."""
    if not isinstance(out, Tensor):
        raise ProgramTypeError(f"expected Tensor or None (got {type(out).__name__})")
    if out._data.shape != np.shape(g._data if isinstance(g, Tensor) else g):
        name = getattr(hook, "name", None) or getattr(hook, "__name__", "hook")
        raise ShapeError(f"hook '{name}' has changed the size of value")
    return out


def _run_tensor_hooks(node, output_nr: int, g, create_graph: bool):
    """Hooks registered on the tensor this node produced; retain_grad hooks run last."""
    hooks = node._tensor_hooks
    _budget.charge(len(hooks))   # two Python scans of every output's hooks, ~50 ns an item each
    for retains in (False, True):
        for nr, hook, is_retain in list(hooks):
            if nr != output_nr or is_retain != retains:
                continue
            out = call_program("hook", getattr(node, "source", None), hook, _wrap(g, create_graph))
            if out is not None:
                g = _unwrap(_hook_result(hook, out, g), create_graph)
    return g


def _run_leaf_hooks(variable: Tensor, g, create_graph: bool):
    for hook in list(variable._hooks):
        out = call_program("hook", None, hook, _wrap(g, create_graph))
        if out is not None:
            g = _unwrap(_hook_result(hook, out, g), create_graph)
    return g


def _accumulate(variable: Tensor, g, create_graph: bool, owned: set) -> None:
    """Add a gradient into a tensor's `.grad` (in place unless building a graph)."""
    if create_graph:
        if variable.grad is None:
            variable.grad = g._grad_copy()  # PyTorch's CopyBackwards (ops/arith.py)
        else:
            variable.grad = variable.grad + g
        return
    if variable.grad is None:
        # .grad must own its array: a view (an expanded gradient) or an array that
        # also went elsewhere would be changed by the next in-place accumulation.
        if g.__class__ is not ndarray:
            g = np.asarray(g, dtype=variable._data.dtype)
        elif g.dtype != variable._data.dtype:
            g = g.astype(variable._data.dtype)  # a gradient has its tensor's dtype
        elif id(g) in owned or g.base is not None or not g.flags.writeable:
            g = g.copy()
        owned.add(id(g))
        variable.grad = Tensor._make(g)
    else:
        # in place, as PyTorch accumulates without create_graph (a grad_fn stays)
        old = variable.grad._data
        if old.shape == np.shape(g) and old.flags.writeable:
            old += g
        else:
            variable.grad._data = old + g
        bump_version(variable.grad)


class _Task:
    """One running backward: its id and whether it runs a node (PyTorch's graph task, as
    `_current_graph_task_id` and `_will_engine_execute_node` read it)."""

    __slots__ = ("id", "deps", "needed")
    serial = [0]

    def __init__(self, deps: dict, needed):
        _Task.serial[0] += 1
        self.id, self.deps, self.needed = _Task.serial[0], deps, needed

    def will_execute(self, node) -> bool:
        return node is not None and node in self.deps and (self.needed is None or node in self.needed)


_TASKS: list = []   # the backwards running now, innermost last (a hook may run one)


def current_task():
    """The innermost running backward's _Task, or None outside backward."""
    return _TASKS[-1] if _TASKS else None


def execute(outputs, grad_outputs, retain_graph, create_graph, targets=None, accumulate=True,
            trace=None):
    """Run backward from `outputs`.

    `targets` maps (node, output_nr) to a slot; the gradient reaching each target
    is returned in that slot (and only what leads to targets runs). With
    `accumulate`, gradients reaching leaves go into their `.grad` (only the
    targets' when targets are given). `trace`, a list, receives (node, gradient
    in, gradients out) for every node run, for `backward --steps`.
    """
    outputs = _as_list(outputs)
    roots = _root_grads(outputs, _as_list(grad_outputs), create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    deps, sinks = _discover(roots)
    # the walks over the whole reachable graph (discover, then `_needed`): nested
    # create_graph makes each call's graph larger than the nodes it runs
    _budget.charge(len(deps) * (2 if targets else 1))
    keeper = _kept.active[0]  # a program run by a command: what is freed is kept (kept.py)
    if keeper is not None:
        keeper.begin(outputs, accumulate)
    target_nodes = {n for n, _ in targets} if targets else ()
    needed = None
    if targets and not target_nodes.issuperset(sinks):
        # only what leads to a target runs. When every sink is a target, every node leads to
        # one (each path of a finite DAG ends at a sink): all run, and the walk is skipped
        needed = _needed(deps, target_nodes)
    captured = [None] * (len(set(targets.values())) if targets else 0)
    buffers: dict = {}
    for node, nr, g in roots:
        _deposit(buffers, node, nr, g)
    ready = [n for n, c in deps.items() if c == 0]
    owned: set = set()
    for _, _, g in roots:
        owned.add(id(g))
    prev_mode = _grad_enabled[0]
    _grad_enabled[0] = bool(create_graph)
    budget = _budget
    # a backward step costs what making a node does; with create_graph, more: the nodes its
    # rule makes (charged by `apply` as they are made) form a graph that outlives the call
    step_work = NODE_WORK + CREATE_GRAPH_STEP_WORK if create_graph else NODE_WORK
    # an op node that is no target runs straight through its op (`_run_node` inlined)
    plain = trace is None
    _TASKS.append(_Task(deps, needed))
    try:
        while ready:
            node = ready.pop()
            second = node.next1   # node.next_nodes, inlined (see Node)
            nexts = ((node.next0,) if second is ONE_INPUT else node.next0 if second is MANY_INPUTS
                     else (node.next0, second))
            g = buffers.pop(node, None)
            grads = None
            if g is not None and (needed is None or node in needed):
                try:
                    budget.work += step_work
                    if budget.work > budget.max_work:
                        raise budget.exhausted()
                    if node.__class__ is OpNode:
                        op = node.op
                        if g.__class__ is ndarray and (op.cost is not None or g.size >= FREE_ELEMENTS):
                            _charge_backward(node, g)   # rules on arrays run numpy uncharged
                        if plain and not node._tensor_hooks and node not in target_nodes \
                                and not _saved_hooks._packed.data and not _graph.extras.data:
                            grads = op.backward(node, g, create_graph, nexts)
                        else:
                            grads = _run_node(node, g, create_graph, targets, captured, accumulate, owned)
                    else:
                        if g.__class__ is ndarray and g.size >= FREE_ELEMENTS:
                            _charge_backward(node, g)
                        grads = _run_node(node, g, create_graph, targets, captured, accumulate, owned)
                except GradcliError as error:
                    if error.node is None:
                        error.node = node   # whose backward failed: a caller may point at its source
                    raise
                if trace is not None:
                    trace.append((node, g, grads))
                if anomaly.enabled[0]:
                    anomaly.check(node, grads)
            if not retain_graph:
                if node.__class__ is OpNode:   # OpNode.release, inlined
                    if node.saved is not NOTHING_SAVED or node.result is not None:
                        if keeper is not None:   # (a node that holds nothing: nothing to keep)
                            keeper.stash(node)
                        node.saved = None
                        node.result = None
                        node.released = True
                else:
                    if keeper is not None:
                        keeper.stash(node)
                    node.release()
                if _saved_hooks._packed.data:  # (.data: a weak dict's len() is a call)
                    _saved_hooks.forget(node)
            if grads is None:
                for nxt in nexts:
                    if nxt is not None:
                        count = deps[nxt] - 1
                        deps[nxt] = count
                        if count == 0:
                            ready.append(nxt)
                continue
            for nxt, nr, gi in zip(nexts, node.next_nrs, grads):
                if nxt is None:
                    continue
                if gi is not None and (needed is None or nxt in needed):
                    if nxt.n_outputs == 1:   # `_deposit`, inlined for one output
                        old = buffers.get(nxt)
                        buffers[nxt] = gi if old is None else old + gi
                    else:
                        _deposit(buffers, nxt, nr, gi)
                count = deps[nxt] - 1
                deps[nxt] = count
                if count == 0:
                    ready.append(nxt)
    finally:
        _grad_enabled[0] = prev_mode
        _TASKS.pop()
    if keeper is not None and accumulate:
        keeper.finish(deps)
    return captured


def _charge_backward(node, g) -> None:
    """Charge a first-order backward step before it runs: its rules run on arrays, not
    through `apply`, so nothing else charges them. Twice the op's forward cost where the
    node saved its operands (a matrix product's two products), else three passes over the
    gradient at the op's elementwise weight. (Under create_graph the rules run on Tensors
    and each op they run charges itself.)"""
    count = 3 * g.size
    if node.__class__ is OpNode:
        op = node.op
        count *= op.weight
        saved = node.saved
        if op.cost is not None and saved.__class__ is tuple:
            arrays = [t._data if isinstance(t, Tensor) else t for t in saved]
            whole = not any(a is None for a in arrays)
            if not whole:
                arrays = _unsaved_operands(node, arrays)
            try:
                # a gradient that is a broadcast view (sum's) takes numpy's loop, not BLAS, in
                # a product of saved operands; where one was not saved, its input needs no
                # gradient: one product (a convolution's weight gradient alone)
                factor = 1 if not whole else 2 if g.flags.c_contiguous else 8
                count = max(count, factor * op.cost(*arrays, **(node.params or {})))
            except Exception:   # an operand not saved (None): the gradient's passes stand
                pass
    _budget.charge_elements(count)


def _unsaved_operands(node, arrays: list) -> list:
    """The operands a node did not save, where the backward still pays for them: a leaf that
    requires grad is read from its AccumulateGrad (`conv2d(x, w)` with only `w` requiring grad
    saves x alone, yet its backward is a convolution over w's shape)."""
    nexts = node.next_nodes
    if len(nexts) != len(arrays):
        return arrays
    return [getattr(getattr(nxt, "variable", None), "_data", None) if a is None else a
            for a, nxt in zip(arrays, nexts)]


def _deposit(buffers: dict, node, nr: int, g) -> None:
    if node.n_outputs == 1:
        old = buffers.get(node)
        buffers[node] = g if old is None else old + g
    else:
        slots = buffers.get(node)
        if slots is None:
            slots = buffers[node] = [None] * node.n_outputs
        slots[nr] = _add(slots[nr], g)


def _run_node(node, g, create_graph, targets, captured, accumulate, owned) -> None:
    """Hooks, capture, then the node's own work (its input gradients, or accumulation)."""
    if node.__class__ is AccumulateGrad:
        variable = node.variable
        if variable._hooks:
            g = _run_leaf_hooks(variable, g, create_graph)
        # the node itself runs only when it accumulates (autograd.grad captures before it)
        hooked = _graph.extras.get(node) if accumulate and _graph.extras else None
        if hooked is not None and hooked.pre:
            g = _node_hooks.run_prehooks(hooked.pre, node, g, create_graph)
        if targets is not None:
            slot = targets.get((node, 0))
            if slot is None:
                return None
            captured[slot] = _add(captured[slot], g)
        if accumulate:
            _accumulate(variable, g, create_graph, owned)
            if _graph.post_accumulate._data:  # (a TensorMap: its dict, not a len() call)
                _node_hooks.run_post_accumulate(variable)
        if hooked is not None and hooked.post:
            _node_hooks.run_posthooks(hooked.post, node, (), g, create_graph)
        return None
    if node.n_outputs == 1:
        if node._tensor_hooks:
            g = _run_tensor_hooks(node, 0, g, create_graph)
        if targets is not None:
            slot = targets.get((node, 0))
            if slot is not None:
                captured[slot] = _add(captured[slot], g)
                if accumulate:
                    _accumulate(targets.tensors[(node, 0)], g, create_graph, owned)
    else:
        for nr in range(node.n_outputs):
            if g[nr] is None:
                continue
            if node._tensor_hooks:
                g[nr] = _run_tensor_hooks(node, nr, g[nr], create_graph)
            if targets is not None:
                slot = targets.get((node, nr))
                if slot is not None:
                    captured[slot] = _add(captured[slot], g[nr])
    if not node.next_nodes:
        return None
    if _saved_hooks._packed.data:
        _saved_hooks.unpack_node(node)
    hooked = _graph.extras.get(node) if _graph.extras.data else None
    if hooked is None:
        return node.apply(g, create_graph)
    return _node_hooks.apply_hooked(node, hooked, g, create_graph)


class _Targets(dict):
    """(node, output_nr) -> slot, with the tensor behind each key for backward(inputs=)."""

    def __init__(self):
        super().__init__()
        self.tensors = {}


def _targets_for(inputs: list) -> _Targets:
    targets = _Targets()
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise AutogradError(f"grad(): inputs[{i}] is not a Tensor")
        if not t.requires_grad:
            raise AutogradError("One of the differentiated Tensors does not require grad")
        key = (t.grad_fn, t._output_nr) if t.grad_fn is not None else (accumulate_grad(t), 0)
        targets.setdefault(key, len(set(targets.values())))
        targets.tensors[key] = t
    return targets


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of `outputs` with respect to `inputs`, as `torch.autograd.grad`."""
    if BATCH_CHECK[0] is not None:   # inside vmap(grad(f)): on the batched tensors' physical ones
        from ..ops import batching

        if batching.tracked():
            return batching.program_grad(grad, outputs, inputs, grad_outputs, retain_graph=retain_graph,
                                         create_graph=create_graph, allow_unused=allow_unused,
                                         materialize_grads=materialize_grads)
    inputs = _as_list(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if any(isinstance(t, Tensor) and not t.requires_grad for t in inputs):
        # PyTorch checks the outputs first ("element 0 of tensors does not require grad")
        _root_grads(_as_list(outputs), _as_list(grad_outputs), create_graph)
    targets = _targets_for(inputs)
    holders = [targets.get(
        (t.grad_fn, t._output_nr) if t.grad_fn is not None else (accumulate_grad(t), 0)
    ) for t in inputs]
    captured = execute(outputs, grad_outputs, retain_graph, create_graph, targets, accumulate=False)
    results = []
    for i, (t, slot) in enumerate(zip(inputs, holders)):
        g = captured[slot]
        if g is None:
            if materialize_grads:
                results.append(Tensor._make(np.zeros_like(t._data)))
                continue
            if not allow_unused:
                raise AutogradError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
            results.append(None)
            continue
        results.append(g if create_graph else Tensor._make(g))
    return tuple(results)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None, trace=None) -> None:
    """Accumulate into `.grad` of the leaves the gradients of `tensors`, as `torch.autograd.backward`."""
    if grad_tensors is None:
        grad_tensors = grad_variables
    if BATCH_CHECK[0] is not None:   # inside vmap: PyTorch's refusal
        BATCH_CHECK[0](None, "backward")
    targets = None
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise AutogradError("'inputs' argument to backward() cannot be empty.")
        targets = _targets_for(inputs)
    execute(tensors, grad_tensors, retain_graph, create_graph, targets, accumulate=True, trace=trace)

