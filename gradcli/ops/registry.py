"""The op table: what an op is, and the backward every op goes through.

One `Op` entry defines an op: its name, its PyTorch node name, its forward on
numpy arrays, one backward rule per differentiable input, the formula of each
rule as text, its SymPy counterpart and the domain its tests sample from.

A backward rule is a function `rule(F, g, <names>)` whose parameter names say
what it reads: an input by name (`self`, `other`), `result` (the output), a
parameter (`dim`, `keepdim`) or an input's shape (`self_shape`). `F` is a
namespace of the ops: numpy arrays when no graph of the backward is wanted
(first order stays cheap), gradcli's own functions on Tensors under
`create_graph=True`, so any order of derivative works with one definition.
"""
from __future__ import annotations

from enum import IntEnum
from types import SimpleNamespace

import numpy as np

from ..dtypes import NUMBER_PARAMS, PROMOTION
from .._tensor import MODIFICATIONS as _MODIFICATIONS
from .._tensor import Tensor
from ..graph.nodes import NOTHING_SAVED as _NOTHING, OpNode
from .costs import ELEMENTWISE_WEIGHTS
from .apply import apply
from .dual import BILINEAR, LINEAR, POINTWISE, SYMMETRIC, TRANSPOSE  # noqa: F401  (the tangent= kinds, for the op files)
from . import dual as _dual

OPS: dict[str, "Op"] = {}
_wrap = Tensor._make        # bound once: a rule reading `result` under create_graph calls it

# The namespaces rules compute in: filled from the op table (op name -> forward on
# arrays / public function on Tensors) plus the helpers below.
# TENSORS is also how one op's code calls another: `TENSORS.reshape(x, shape)`, looked up
# when called, so the op may live in any module of gradcli.ops.
ARRAYS = SimpleNamespace()
TENSORS = SimpleNamespace()
FUNCTIONS: dict = {}      # public name -> function (gradcli.<name>, the language's builtins)
NN_FUNCTIONS: dict = {}   # the names also reachable as F.<name> / torch.nn.functional.<name>
METHODS: dict = {}        # Tensor method name -> function
PROPERTIES: dict = {}     # Tensor attribute computed by an op (x.T) -> its getter


class Reads(IntEnum):
    """What a parameter of a backward rule reads: the kinds of an `Op.plans` entry."""

    INPUT = 0    # an input, by its name (`self`, `other`); the key is its position
    RESULT = 1   # the op's output (`result`)
    PARAM = 2    # a parameter (`dim`, `keepdim`); the key is its name
    SHAPE = 3    # an input's shape (`self_shape`); the key is the input's position


INPUT, RESULT, PARAM, SHAPE = Reads
_dual.RULES.update(ARRAYS=ARRAYS, TENSORS=TENSORS, INPUT=INPUT, RESULT=RESULT, PARAM=PARAM, apply=apply)


class Op:
    """One entry of the op table."""

    __slots__ = ("name", "node", "inputs", "forward", "rules", "formulas", "sympy", "domain",
                 "broadcasts", "n_outputs", "defaults", "plans", "saves_anything", "_save_cache",
                 "fn", "doc", "differentiable", "needs_shapes", "params", "reads_shapes", "cost", "promote",
                 "number_params", "float_dtype", "float_hit", "tangent", "tangent_plans", "weight")

    def __init__(self, name, node, forward, inputs=("self",), rules=(), formulas=(), sympy=None,
                 domain=None, broadcasts=False, n_outputs=1, doc="", cost=None, tangent=None):
        self.name = name
        self.cost = cost  # (arrays, **params) -> elements or flops of work (ops/costs.py)
        self.node = node
        self.forward = forward
        self.inputs = tuple(inputs)
        self.rules = tuple(rules) if rules else (None,) * len(self.inputs)
        if len(self.rules) != len(self.inputs):
            raise ValueError(f"op {name}: one rule per input")
        self.formulas = tuple(formulas) if formulas else ("",) * len(self.inputs)
        self.sympy = sympy
        self.domain = domain
        self.broadcasts = broadcasts
        self.n_outputs = n_outputs
        self.doc = doc
        self.differentiable = any(r is not None for r in self.rules)
        self.params, self.defaults = _parameters(forward, len(self.inputs))
        self.plans = tuple(self._plan(rule) for rule in self.rules)
        # the forward-mode rule (ops/dual.py): POINTWISE or LINEAR (derived), one rule per
        # input `rule(F, t, <names>)`, or by default TRANSPOSE (derived from the backward rules)
        if callable(tangent):
            tangent = (tangent,)
        if tangent is None and self.differentiable:
            tangent = TRANSPOSE
        self.tangent = tangent
        self.tangent_plans = None
        if isinstance(tangent, tuple):
            if len(tangent) != len(self.inputs):
                raise ValueError(f"op {name}: one tangent rule per input")
            self.tangent_plans = tuple(self._plan(rule, "t") for rule in tangent)
        self.saves_anything = any(
            kind is INPUT or kind is RESULT for plan in self.plans if plan for kind, _ in plan
        )
        self.reads_shapes = any(kind is SHAPE for plan in self.plans if plan for kind, _ in plan)
        self.needs_shapes = broadcasts or self.reads_shapes
        self._save_cache = {}
        self.fn = None
        self.promote = name if name in PROMOTION else None  # its type promotion (gradcli/dtypes.py)
        self.number_params = NUMBER_PARAMS.get(name)   # parameters that are operands (rsub's other)
        # the last promotion of a floating array with a Python number or an array of its own
        # dtype, computed in that dtype (not half, computed in float): it depends on that dtype
        # alone (not on the default dtype), so `apply` keeps it here and skips the cache's key
        # for the next call of the same dtype; with the forward to call for it last
        # (`torch_math.forward_for`: a widened sin's ufunc itself for float64)
        self.float_dtype = None
        self.float_hit = None
        # the CPU time of its elementwise work against `x * y`'s (costs.py, calibrated)
        self.weight = ELEMENTWISE_WEIGHTS.get(name, 1)

    def _plan(self, rule, first: str = "g"):
        """What each rule reads, as (kind, key) pairs: see `Reads`."""
        if rule is None:
            return None
        code = rule.__code__
        names = code.co_varnames[:code.co_argcount]
        if names[:2] != ("F", first):
            raise ValueError(f"op {self.name}: a rule's first parameters are (F, {first})")
        plan = []
        for name in names[2:]:
            if name in self.inputs:
                plan.append((INPUT, self.inputs.index(name)))
            elif name == "result":
                plan.append((RESULT, None))
            elif name.endswith("_shape") and name[:-6] in self.inputs:
                plan.append((SHAPE, self.inputs.index(name[:-6])))
            else:
                plan.append((PARAM, name))
        return tuple(plan)

    def save_plan(self, mask: int):
        """Which inputs (and whether the result) to save when `mask` inputs need grad."""
        plan = self._save_cache.get(mask)
        if plan is None:
            inputs = [False] * len(self.inputs)
            result = False
            for i, rule_plan in enumerate(self.plans):
                if mask >> i & 1 and rule_plan:
                    for kind, key in rule_plan:
                        if kind is INPUT:
                            inputs[key] = True
                        elif kind is RESULT:
                            result = True
            # third: the versions of the saved inputs when none was modified in place
            # (a saved number has no version: None, like an unsaved input); fourth: whether
            # an input is left out, so that `saved` is not the inputs tuple itself
            plan = self._save_cache[mask] = (tuple(inputs) if any(inputs) else None, result,
                                             tuple(0 if keep else None for keep in inputs),
                                             not all(inputs))
        return plan

    def backward(self, node: OpNode, grad, create_graph: bool, nexts: tuple | None = None) -> list:
        """Gradients for each input of `node` (a node of this op) from its output gradient(s).

        `OpNode.apply`. With create_graph, the rules run on Tensors (`F` = TENSORS) so
        that the result has a graph of its own; otherwise on arrays (`F` = ARRAYS),
        with no Tensor made. `nexts` is `node.next_nodes` when the caller has it.
        """
        if node.released or node.made_at != _MODIFICATIONS[0] and (
                node.versions is not _NOTHING or node._result_counter is not None):
            node.check_saved()
        F = TENSORS if create_graph else ARRAYS
        if self.n_outputs != 1:
            if node.n_outputs == 1:   # one output this time (a split into one piece): the engine passed it alone
                grad = [grad]
            grad = [
                g if g is not None else (Tensor._make(np.zeros(shape)) if create_graph else np.zeros(shape))
                for g, shape in zip(grad, node.out_shapes)
            ]
        # inputs of mixed dtypes: a 0-d floating input meets a gradient with dimensions in the
        # result's dtype, as PyTorch promotes (numpy would let a float64 0-d input make a
        # float32 gradient float64); between 0-d values both promote alike
        cast = None
        if not create_graph and node.in_dtypes is not None and self.n_outputs == 1 and np.ndim(grad):
            cast = grad.dtype
        grads = []
        i = -1
        for next_node in node.next_nodes if nexts is None else nexts:
            i += 1
            if next_node is None:
                grads.append(None)
                continue
            plan = self.plans[i]
            if plan:
                args = []
                for kind, key in plan:
                    if kind is INPUT:
                        t = node.saved[key]
                        if not create_graph and isinstance(t, Tensor):
                            t = t._data
                            if cast is not None and t.ndim == 0 and t.dtype.kind == "f" and t.dtype != cast:
                                t = t.astype(cast)
                        args.append(t)
                    elif kind is RESULT:
                        if not create_graph:
                            args.append(node.result)
                        elif not _dual.ACTIVE[0]:
                            args.append(_wrap(node.result, node, True, 0, node._result_counter))
                        else:   # forward over reverse: the saved result with its tangents
                            args.append(_dual.result_tangents(
                                node, _wrap(node.result, node, True, 0, node._result_counter)))
                    elif kind is PARAM:
                        params = node.params
                        args.append(params[key] if params and key in params else self.defaults.get(key))
                    else:
                        args.append(node.shapes[key])
                gi = self.rules[i](F, grad, *args)
            else:
                gi = self.rules[i](F, grad)
            if self.broadcasts and node.shapes is not None:
                shape = node.shapes[i]
                if np.shape(gi._data if create_graph else gi) != shape:
                    gi = F.sum_to_size(gi, shape)
            if node.in_dtypes is not None and node.in_dtypes[i] is not None:
                # a gradient has its input's dtype, cast at the edge as PyTorch's engine casts it
                source = gi._data.dtype if create_graph else np.asarray(gi).dtype
                if source != node.in_dtypes[i]:
                    gi = F._to_copy(gi, node.in_dtypes[i], source)
            grads.append(gi)
        return grads

    def __repr__(self) -> str:
        return f"Op({self.name!r}, node={self.node!r})"


def _parameters(forward, n_inputs: int) -> tuple:
    """(names, defaults) of a forward's parameters after its inputs, read from its code
    object (`inspect.signature` costs the import of inspect and ~10 us per op at start-up)."""
    if isinstance(forward, np.ufunc):
        return (), {}   # a ufunc's signature lists out=, where=...: its only parameters are its inputs
    code = getattr(forward, "__code__", None)
    if code is None or code.co_flags & 0x0C:   # a builtin, or *args / **kwargs: ask inspect
        import inspect

        extra = [p for p in list(inspect.signature(forward).parameters.values())[n_inputs:]
                 if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        return (tuple(p.name for p in extra),
                {p.name: p.default for p in extra if p.default is not inspect.Parameter.empty})
    positional = code.co_varnames[:code.co_argcount]
    keyword_only = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    defaults = dict(zip(positional[len(positional) - len(forward.__defaults__ or ()):],
                        forward.__defaults__ or ()))
    defaults.update(forward.__kwdefaults__ or {})
    names = positional[n_inputs:] + keyword_only
    return names, {k: v for k, v in defaults.items() if k in names}


def defop(name, node, forward, *, public=True, method=True, nn=False, **kwargs) -> Op:
    """Add an op to the table; unless `public=False`, export its function under its name."""
    if name in OPS:
        raise ValueError(f"op {name} defined twice")
    op = OPS[name] = Op(name, node, forward, **kwargs)
    op.fn = make_function(op)
    setattr(ARRAYS, name, forward)
    setattr(TENSORS, name, op.fn)
    if public:
        export(name, op.fn, method=method, nn=nn)
    return op


def make_function(op: Op):
    """The public function of an op: its inputs positionally, then its parameters."""
    n = len(op.inputs)
    params = op.params
    required = [p for p in params if p not in op.defaults]

    if not params and n == 1:
        def fn(input):
            return apply(op, (input,))
    elif not params and n == 2:
        def fn(input, other):
            return apply(op, (input, other))
    else:
        def fn(*args, **kwargs):
            if len(args) < n:
                raise TypeError(f"{op.name}() missing required argument '{op.inputs[len(args)]}'")
            if len(args) > n + len(params):
                raise TypeError(f"{op.name}() takes at most {n + len(params)} arguments ({len(args)} given)")
            given = dict(zip(params, args[n:]))
            for key, value in kwargs.items():
                if key not in params:
                    raise TypeError(f"{op.name}() got an unexpected keyword argument '{key}'")
                if key in given:
                    raise TypeError(f"{op.name}() got multiple values for argument '{key}'")
                given[key] = value
            for key in required:
                if key not in given:
                    raise TypeError(f"{op.name}() missing required argument '{key}'")
            return apply(op, args[:n], {**op.defaults, **given} if op.defaults else given)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = op.doc or f"{op.name} (backward node {op.node})"
    fn.op_params = params   # its keywords, read where `keepdims=` is added (keywords.py)
    return fn


def export(name: str, fn, method: bool = True, nn: bool = False, array=None):
    """Publish `fn` as gradcli.<name>, and as a Tensor method, an F. function, an array rule helper.

    A method is recorded in METHODS; tensor_methods.py attaches them all to Tensor, once."""
    FUNCTIONS[name] = fn
    setattr(TENSORS, name, fn)
    if array is not None:
        setattr(ARRAYS, name, array)
    if method:
        METHODS[name] = fn
    if nn:
        NN_FUNCTIONS[name] = fn
    return fn


