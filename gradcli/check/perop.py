"""The per-op SymPy reference: reverse accumulation through the tape, each local derivative by SymPy.

The whole-program reference (`Tape.symbolic`, then `symbolic.jacobian_exprs`)
builds one expression of the output in the inputs' symbols and differentiates
it; that expression swells with the program's depth and fan-in, so a program
of mid size (a two-layer network) goes over budget. This reference does what
reverse mode does, with SymPy in place of the backward rules. In reverse
topological order, with the numeric cotangent c of a node's output in hand:
the node's differentiable tensor inputs get fresh symbols (everything else
stays a number), the op's SymPy counterpart builds the node's output elements
e_k, and each input gains c_k * d e_k / d s, evaluated at the recorded point,
for the symbols s free in e_k, only where c_k != 0. Each e_k is one op deep,
so the work grows linearly with the program. A batch of cotangents (one per
checked output row, or PyTorch's fast-mode projection v) goes through at once:
each node's partials are derived once and reused by every row.

It is a reference independent of the engine: it reads the recorded values and
the op table's `sympy=` counterparts (a custom Function: the translation of its
forward, as the whole-program reference does) and SymPy's `diff`, never a
backward rule or `autograd.grad`. It gives first derivatives only; second
derivatives stay with the whole-program reference.

A partial SymPy cannot give (an unevaluated derivative) makes the cotangents it
reaches unknown, not wrong: they are left out of the comparison.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, no_grad
from ..graph.nodes import OpNode
from . import symbolic
from .replay import Unavailable, _translate, as_objects, edge_value

# A full check wants every row of the Jacobian, one cotangent per output element;
# past this many output elements a sample of SAMPLE_ROWS rows is compared.
MAX_ROWS = 256
SAMPLE_ROWS = 64


class Chain:
    """Vector-Jacobian products of a tape's first output, from SymPy's local derivatives."""

    def __init__(self, tape, xs: list):
        self.tape = tape
        self.xs = xs
        self.wrt = set(tape.wrt_keys)
        self._base = None

    def base(self) -> dict:
        """Every node's value at the check point (the point the partials are evaluated at)."""
        if self._base is None:
            with no_grad():
                _, self._base = self.tape.evaluate([Tensor._make(x._data.copy()) for x in self.xs],
                                                   keep=True)
        return self._base

    def symbolic_elements(self) -> int:
        """How many elements the nodes that depend on a checked input produce."""
        base = self.base()
        return sum(sum(o._data.size for o in out) if isinstance(out, tuple) else out._data.size
                   for node, out in base.items() if self.tape.depends[node])

    def vjp(self, sp, seeds: np.ndarray, budget) -> tuple:
        """(grads, known) per checked input, each (rows x input elements), for `seeds` (rows x output
        elements): row r is seeds[r] @ J, and `known` is False where SymPy could not tell."""
        tape = self.tape
        base = self.base()
        given = dict(zip(tape.wrt_keys, self.xs))
        rows = seeds.shape[0]
        cotangents = {}   # edge -> [values, unknown], each (rows x elements of the edge's value)
        out_key = tape.out_keys[0]
        if out_key is not None:
            cotangents[out_key] = [np.array(seeds, dtype=np.float64), np.zeros(seeds.shape, dtype=bool)]

        def number(edge):
            return edge_value(edge, given, base, lambda leaf: leaf)._data

        for node in reversed(tape.order):
            budget.check()
            if not tape.depends[node]:
                continue
            count = len(base[node]) if isinstance(base[node], tuple) else 1
            pending = [(nr, cotangents.pop((node, nr))) for nr in range(count)
                       if (node, nr) not in self.wrt and (node, nr) in cotangents]
            if not pending:
                continue
            local = _Local(sp, tape, node, number, self._symbolic(node), base, budget)
            for nr, (c, unknown) in pending:
                for edge, cols, out_rows, partial, gaps in local.partials(nr, c, unknown):
                    if edge not in cotangents:
                        cotangents[edge] = _zeros(rows, number(edge).size)
                    _accumulate(cotangents[edge], cols, c[:, out_rows], unknown[:, out_rows], partial, gaps)
        grads, known = [], []
        for key, x in zip(tape.wrt_keys, self.xs):
            values, missing = cotangents.get(key) or _zeros(rows, x._data.size)
            grads.append(values)
            known.append(~missing)
        return grads, known

    def _symbolic(self, node):
        """Which of a node's edges carry a checked input (those get symbols)."""
        depends = self.tape.depends
        return [edge[0] is not None and (edge in self.wrt or bool(depends.get(edge[0])))
                for edge in node.next_functions]


def _zeros(rows, size) -> list:
    return [np.zeros((rows, size)), np.zeros((rows, size), dtype=bool)]


def _accumulate(cotangent, cols, c, unknown, partial, gaps) -> None:
    """Input column cols[t] gains c[:, t] * partial[t] (repeated columns add up).

    It is unknown where an unknown cotangent meets a partial that is not zero, or a
    partial SymPy could not give meets a cotangent that may not be zero.
    """
    values, missing = cotangent
    np.add.at(values.T, cols, (c * partial).T)
    dark = (unknown & (partial != 0)) | (gaps & ((c != 0) | unknown))
    np.logical_or.at(missing.T, cols, dark.T)


class _Local:
    """One node rebuilt by SymPy on fresh symbols, and the numeric partials of its elements."""

    def __init__(self, sp, tape, node, number, symbolic_edges, base, budget):
        self.sp, self.budget = sp, budget
        self.edges = list(node.next_functions)
        self.point = {}
        self.where = {}   # symbol -> (edge position, flat index in that input)
        arrays = []
        for pos, (edge, wanted) in enumerate(zip(self.edges, symbolic_edges)):
            if wanted:
                arrays.append(self._symbols(sp, pos, number(edge)))
            elif edge[0] is not None:
                arrays.append(as_objects(np.array(number(edge), dtype=np.float64)))
            else:
                arrays.append(None)   # a constant: the op node reads its recorded value
        if isinstance(node, OpNode):
            op = node.op
            if op.sympy is None:
                raise Unavailable(f"{op.name} has no SymPy counterpart")
            args = []
            for arr, edge, recorded in zip(arrays, self.edges, tape.notes[node]):
                if edge[0] is None:
                    arg = tape._constant(recorded)
                    arr = as_objects(arg) if isinstance(arg, np.ndarray) else arg
                args.append(arr)
            budget.size(args, base[node])
            out = _translate(op, sp, args, node.params)
        else:
            # a custom Function: its forward is a program, translated as the whole-program path does
            out = tape._symbolic_function(sp, node, lambda edge: arrays[self.edges.index(edge)], budget)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        expected = base[node] if isinstance(base[node], tuple) else (base[node],)
        self.outs = []
        for o, t in zip(outs, expected):
            o = as_objects(o) if isinstance(o, np.ndarray) else as_objects(np.asarray(o, dtype=object))
            if o.shape != t._data.shape:
                raise Unavailable(f"the SymPy counterpart of {node.name()} has shape {list(o.shape)}, "
                                  f"not {list(t._data.shape)}")
            self.outs.append(o.reshape(-1))

    def _symbols(self, sp, pos, value):
        value = np.asarray(value, dtype=np.float64)
        arr = np.empty(value.size, dtype=object)
        for j, v in enumerate(value.reshape(-1)):
            s = sp.Symbol(symbolic.symbol_name(f"in{pos}", np.unravel_index(j, value.shape)
                                               if value.ndim else ()), real=True)
            arr[j] = s
            self.point[s] = float(v)
            self.where[s] = (pos, j)
        return arr.reshape(value.shape)

    def partials(self, nr, c, unknown):
        """Per input edge: (edge, input columns, output rows, partials, unknown) of output `nr`,
        for the output elements some cotangent row reaches."""
        needed = np.flatnonzero((c != 0).any(axis=0) | unknown.any(axis=0))
        terms, exprs = [], []
        for k in needed:
            self.budget.check()
            for s, d in _gradient(self.outs[nr][k], self.where):
                at = self.where[s]
                terms.append((k, at[0], at[1]))
                exprs.append(d)
        values, known = symbolic.evaluate(self.sp, exprs, self.point, self.budget)
        terms = np.array(terms, dtype=np.int64).reshape(-1, 3)
        out = []
        for pos, edge in enumerate(self.edges):
            mine = terms[:, 1] == pos
            if not mine.any():
                continue
            gaps = ~known[mine]
            out.append((edge, terms[mine, 2], terms[mine, 0], np.where(gaps, 0.0, values[mine]), gaps))
        return out


def _gradient(e, symbols) -> list:
    """(s, d e / d s) for the symbols of `symbols` free in `e`.

    A sum is differentiated term by term, each term only by the symbols it holds:
    an element of a matmul is a sum of n products, and SymPy's `diff` of the whole
    sum by each of its 2n symbols would differentiate every product each time.
    """
    if not hasattr(e, "free_symbols"):
        return []
    coeff, rest = e.as_coeff_Mul()   # a mean: (1/n) * (a sum)
    if not rest.is_Add:
        return [(s, _diff(e, s)) for s in e.free_symbols if s in symbols]
    parts = {}
    for term in rest.args:
        for s in term.free_symbols:
            if s in symbols:
                parts.setdefault(s, []).append(_diff(term, s))
    return [(s, coeff * (ds[0] if len(ds) == 1 else rest.func(*ds))) for s, ds in parts.items()]


def _diff(e, s):
    """SymPy's d e / d s: the method `diff` dispatches to, without `diff`'s last question.

    `e.diff(s)` ends by asking SymPy's assumption system whether the result is zero,
    which costs a millisecond on `1 - tanh(x)**2`: most of the work here. Where a
    class has no such method, `diff` itself.
    """
    if e == s:
        return 1
    method = getattr(e, "_eval_derivative", None)
    d = method(s) if method is not None else None
    return e.diff(s) if d is None else d
