"""Differential test of dtypes (issue 12): random small programs mixing dtypes, Python
numbers, 0-d and n-d tensors, run through PyTorch and through gradcli's library.

Needs PyTorch (not part of CI):

    PYTHONPATH=. /work/torchvenv/bin/python benchmarks/compare_dtypes.py [N] [SEED]

Each program builds its operands from the same data on both sides, applies one
op (a binary operator, a comparison, a unary function, a reduction, a conversion
or an in-place op), and compares: whether it raised, the result's dtype and
shape, the values (exactly for + - * / comparisons, integer ops and conversions;
within 2 ulp of the result dtype for transcendental functions), and, for
floating inputs that require grad, the gradients' dtypes and values. Prints the
counts and every disagreement (the first few in full).
"""
from __future__ import annotations

import math
import random
import sys

import numpy as np

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
BINARY = ["+", "-", "*", "/", "//", "%", "<", "<=", ">", ">=", "==", "!="]
BINARY_FN = ["maximum", "minimum", "atan2", "fmod", "remainder", "floor_divide"]
UNARY_EXACT = ["abs", "neg", "floor", "ceil", "relu"]
UNARY_ULP = ["sin", "exp", "sqrt", "tanh", "sigmoid", "log1p"]
REDUCE = ["sum", "mean", "prod", "amax", "argmax", "cumsum"]
CONVERT = ["float", "double", "half", "long", "int", "short", "bool", "byte"]
INPLACE = ["add_", "sub_", "mul_", "div_", "floor_divide_", "remainder_"]


def operand(rng: random.Random):
    """('number', value) or ('tensor', dtype, shape, data)."""
    kind = rng.random()
    if kind < 0.25:
        t = rng.choice(["int", "float", "bool"])
        value = {"int": rng.randint(-4, 4), "float": round(rng.uniform(-3, 3), 3),
                 "bool": rng.random() < 0.5}[t]
        return ("number", value)
    dtype = rng.choice(DTYPES)
    shape = rng.choice([(), (3,), (2, 3)])
    n = math.prod(shape)
    if dtype == "bool":
        data = [rng.random() < 0.5 for _ in range(n)]
    elif dtype.startswith("float"):
        data = [round(rng.uniform(-3, 3), 3) for _ in range(n)]
    else:
        lo = 0 if dtype == "uint8" else -5
        data = [rng.randint(lo, 5) for _ in range(n)]
    return ("tensor", dtype, shape, data)


def program(rng: random.Random):
    kind = rng.choice(["binary", "binary", "binary", "binary_fn", "unary", "reduce", "convert", "inplace"])
    if kind in ("binary", "binary_fn", "inplace"):
        a, b = operand(rng), operand(rng)
        if a[0] == "number" and b[0] == "number":
            a = operand(rng) if rng.random() < 0.5 else ("tensor", "float32", (3,), [0.5, -1.0, 2.25])
        if kind == "inplace" and a[0] == "number":
            a, b = b, a
        if kind == "inplace" and a[0] == "number":
            a = ("tensor", "int64", (3,), [1, 2, 3])
        op = rng.choice({"binary": BINARY, "binary_fn": BINARY_FN, "inplace": INPLACE}[kind])
        return kind, op, [a, b]
    a = operand(rng)
    if a[0] == "number":
        a = ("tensor", rng.choice(DTYPES), (3,), None)
        a = (a[0], a[1], a[2], operand_data(rng, a[1], 3))
    op = rng.choice({"unary": UNARY_EXACT + UNARY_ULP, "reduce": REDUCE, "convert": CONVERT}[kind])
    return kind, op, [a]


def operand_data(rng, dtype, n):
    if dtype == "bool":
        return [rng.random() < 0.5 for _ in range(n)]
    if dtype.startswith("float"):
        return [round(rng.uniform(-3, 3), 3) for _ in range(n)]
    return [rng.randint(0 if dtype == "uint8" else -5, 5) for _ in range(n)]


def build(lib, spec, grad: bool):
    if spec[0] == "number":
        return spec[1]
    _, dtype, shape, data = spec
    values = np.array(data, dtype=object).reshape(shape).tolist() if shape else data[0]
    requires = grad and dtype.startswith("float")
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires)


def execute(lib, kind, op, specs, grad: bool):
    """(result, inputs) or raises."""
    args = [build(lib, s, grad) for s in specs]
    if kind == "binary":
        a, b = args
        result = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
                  "//": lambda: a // b, "%": lambda: a % b,
                  "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b,
                  "==": lambda: a == b, "!=": lambda: a != b}[op]()
    elif kind == "binary_fn":
        a, b = args
        if not isinstance(a, lib.Tensor):
            a = lib.tensor(a)
        if not isinstance(b, lib.Tensor):
            b = lib.tensor(b)
        result = getattr(lib, op)(a, b)
    elif kind == "inplace":
        a, b = args
        a = a.detach().clone() if isinstance(a, lib.Tensor) else a
        result = getattr(a, op)(b)
    elif kind == "unary":
        result = getattr(lib, op)(args[0])
    elif kind == "reduce":
        result = getattr(args[0], op)(0) if op == "cumsum" else getattr(args[0], op)()
    else:
        result = getattr(args[0], op)()
    return result, args


def describe(lib, result):
    if isinstance(result, lib.Tensor):
        return str(result.dtype).replace("torch.", ""), tuple(result.shape), result.detach().tolist()
    return type(result).__name__, (), result


def ulps(a, b, dtype: str, scale=0.0) -> float:
    """The largest difference between `a` and `b` in units of the last place of the larger
    of the two values, or of `scale` where that is larger (see `compare_one`)."""
    if dtype.startswith("float"):
        x = np.asarray(a, dtype=dtype)
        y = np.asarray(b, dtype=dtype)
        both_nan = np.isnan(x) & np.isnan(y)
        same = (x == y) | both_nan
        spacing = np.spacing(np.maximum(np.maximum(np.abs(x), np.abs(y)), scale).astype(dtype))
        diff = np.where(same, 0, np.abs(x.astype(np.float64) - y.astype(np.float64)) / spacing.astype(np.float64))
        return float(np.max(diff)) if diff.size else 0.0
    return 0.0 if np.array_equal(np.asarray(a), np.asarray(b)) else math.inf


def compare_one(torch, gradcli, kind, op, specs, grad: bool):
    outcomes = []
    for lib in (torch, gradcli):
        try:
            result, args = execute(lib, kind, op, specs, grad)
            d = describe(lib, result)
            grads = None
            if grad and isinstance(result, lib.Tensor) and result.requires_grad:
                result.sum().backward() if result.dtype.is_floating_point else None
                grads = [describe(lib, a.grad) if isinstance(a, lib.Tensor) and a.grad is not None else None
                         for a in args]
            outcomes.append(("ok", d, grads))
        except Exception as exc:  # noqa: BLE001 - an error is an outcome to compare
            outcomes.append(("error", type(exc).__name__, str(exc).split("\n")[0][:120]))
    (pt, gc) = outcomes
    if pt[0] != gc[0]:
        return f"error mismatch: torch {pt[1:] if pt[0] == 'error' else 'ok'} / gradcli " \
               f"{gc[1:] if gc[0] == 'error' else 'ok'}"
    if pt[0] == "error":
        return None
    (pdt, pshape, pval), (gdt, gshape, gval) = pt[1], gc[1]
    if pdt != gdt:
        return f"dtype: torch {pdt}, gradcli {gdt}"
    if pshape != gshape:
        return f"shape: torch {pshape}, gradcli {gshape}"
    # Exact: + - * / // %, comparisons, integer ops, conversions. Within 2 ulp: transcendental
    # functions. Reductions add in an order that is each library's own (PyTorch's vectorized
    # cascade, numpy's pairwise sum; gradcli accumulates float32 in float64): their results
    # are compared within n ulp of the sum of the inputs' magnitudes, the bound of any order.
    # A gradient of a transcendental function inherits the forward's 2 ulp (tanh's 1 - y**2
    # near saturation is tiny beside y): within 2 ulp of max(|value|, 1).
    tolerance = 2.0 if op in UNARY_ULP or op == "atan2" else 0.0
    scale = 0.0
    if op in ("mean", "prod", "sum", "cumsum"):
        data = np.abs(np.asarray(specs[0][3], dtype=np.float64))
        tolerance, scale = float(max(data.size, 2)), float(data.sum()) / (data.size if op == "mean" else 1)
        if op == "prod":
            scale = float(np.prod(np.maximum(data, 1.0)))
    if ulps(pval, gval, pdt, scale) > tolerance:
        return f"values ({pdt}): torch {pval}, gradcli {gval}"
    if pt[2] is not None or gc[2] is not None:
        for pg, gg in zip(pt[2] or [], gc[2] or []):
            if (pg is None) != (gg is None):
                return f"grad presence: torch {pg}, gradcli {gg}"
            if pg is not None:
                if pg[0] != gg[0]:
                    return f"grad dtype: torch {pg[0]}, gradcli {gg[0]}"
                grad_scale = 1.0 if op in UNARY_ULP or op == "atan2" else scale
                # (atan2's gradient is computed in the result's dtype, then cast to the input's:
                # its 2 ulp are the result dtype's)
                unit = pdt if op == "atan2" and pdt.startswith("float") else pg[0]
                if ulps(pg[2], gg[2], unit, grad_scale) > max(tolerance, 2.0 if op in ("/", "mean") else 0.0):
                    return f"grad values ({pg[0]}): torch {pg[2]}, gradcli {gg[2]}"
    return None


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    import torch

    import gradcli
    from gradcli import dtypes

    torch.set_default_dtype(torch.float32)
    dtypes.set_default_dtype(dtypes.float32)
    rng = random.Random(seed)
    bad = []
    by_kind: dict = {}
    for i in range(n):
        kind, op, specs = program(rng)
        grad = rng.random() < 0.4
        problem = compare_one(torch, gradcli, kind, op, specs, grad)
        total, failed = by_kind.get(kind, (0, 0))
        by_kind[kind] = (total + 1, failed + (problem is not None))
        if problem is not None:
            bad.append((i, kind, op, specs, grad, problem))
    print(f"{n} programs, {n - len(bad)} agree, {len(bad)} disagree")
    for kind, (total, failed) in sorted(by_kind.items()):
        print(f"  {kind:10s} {total:5d} programs, {failed:4d} disagreements")
    for i, kind, op, specs, grad, problem in bad[:40]:
        print(f"#{i} {kind} {op} {specs} grad={grad}: {problem}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
