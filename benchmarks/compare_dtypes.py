"""Differential test of dtypes (issue 12): random small programs mixing dtypes, Python
numbers, 0-d and n-d tensors, run through PyTorch and through gradcli's library.

Needs PyTorch (not part of CI):

    PYTHONPATH=. <python with torch 2.13> benchmarks/compare_dtypes.py [N] [SEED]
    PYTHONPATH=. <python with torch 2.13> benchmarks/compare_dtypes.py --exact [N] [SEED]

`--exact` (issue 29) runs programs whose float32/float16 results gradcli computes as
PyTorch does: sum, mean, nansum, cumsum of 1 to 10^6 elements along any dims (keepdim,
permuted and sliced inputs), linspace/arange/logspace in every float dtype, the mean
losses, x ** 3 and x ** -2, log, add/sub with alpha= (broadcast too) and float64 into
half; each result is compared to the last bit and counted as exact, within 1 ulp, or
worse.

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


# -- the exact mode ------------------------------------------------------------------------

EXACT_REDUCE = ["sum", "mean", "nansum", "cumsum"]
EXACT_RANGES = ["linspace", "arange", "logspace"]
EXACT_OPS = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "cube", "inverse_square", "log",
             "add_alpha", "sub_alpha", "half_of_double", "layer_norm", "batch_norm", "softmax", "norm",
             "gelu", "sigmoid", "silu"]
# float32 kernels emulated step by step (ops/torch_norms.py, torch_math.py); batch_norm, norm
# and gelu only on a contiguous input, where PyTorch runs the kernel emulated
FLOAT32_ONLY = {"layer_norm", "batch_norm", "softmax", "norm", "gelu", "sigmoid", "silu"}
CONTIGUOUS_ONLY = {"batch_norm", "norm", "gelu"}


def exact_program(rng: random.Random):
    """(category, op, params): a reduction of a seeded array, a range, or an elementwise op."""
    category = rng.choice(["reduce", "reduce", "reduce", "range", "op"])
    dtype = rng.choice(["float32", "float32", "float16"])
    if category == "range":
        op = rng.choice(EXACT_RANGES)
        start = round(rng.uniform(-10, 10), rng.choice([0, 1, 3, 7]))
        if op == "arange":
            step = rng.choice([0.1, 0.25, 0.01, 1.3, 0.37, -0.3, 2.0])
            end = start + step * rng.randint(1, 2000) + rng.uniform(0, abs(step)) * (1 if step > 0 else -1)
            return category, op, {"start": start, "end": end, "step": step, "dtype": rng.choice(
                ["float32", "float64", "float16"] if abs(end) < 2000 else ["float32", "float64"])}
        end = start + rng.uniform(-20, 20)
        steps = int(10 ** rng.uniform(0.3, 5))
        if op == "logspace":
            start, end = start / 5, end / 5
        return category, op, {"start": start, "end": end, "steps": steps,
                              "dtype": rng.choice(["float32", "float64", "float16"])}
    size = int(10 ** rng.uniform(0, 6))
    ndim = rng.choice([1, 2, 3])
    shape = [size]
    for _ in range(ndim - 1):   # split the size into ndim factors
        f = rng.choice([1, 2, 3, 5, 7, 16, 33, 100])
        shape = [max(1, shape[0] // f)] + shape[1:] + [f]
    params = {"shape": shape, "dtype": dtype, "seed": rng.randrange(2 ** 31),
              "permute": rng.random() < 0.3, "slice": rng.random() < 0.2}
    if category == "reduce":
        op = rng.choice(EXACT_REDUCE)
        dims = rng.sample(range(ndim), rng.randint(1, ndim))
        if op == "cumsum":
            dims = dims[:1]
        params.update(dims=dims, keepdim=rng.random() < 0.3, all=rng.random() < 0.2 and op != "cumsum")
        return category, op, params
    op = rng.choice(EXACT_OPS)
    if op in FLOAT32_ONLY:
        params["dtype"] = "float32"
        params["all"] = rng.random() < 0.3
    if op in CONTIGUOUS_ONLY:
        params["permute"] = params["slice"] = False
    if op == "batch_norm" and (ndim < 2 or shape[0] < 2):
        params["shape"] = [2] + shape
    return category, op, params


def exact_input(lib, params):
    data = np.random.default_rng(params["seed"]).standard_normal(params["shape"]) * 3
    if params.get("nan"):
        data.reshape(-1)[::7] = np.nan
    t = lib.tensor(data.astype(params["dtype"]))
    if params["permute"] and t.dim() > 1:
        t = t.permute(*reversed(range(t.dim())))
    if params["slice"] and t.shape[-1] > 2:
        t = t[..., 1:]
    return t


def exact_run(lib, category, op, params):
    if category == "range":
        dtype = getattr(lib, params["dtype"])
        if op == "arange":
            return lib.arange(params["start"], params["end"], params["step"], dtype=dtype)
        if op == "linspace":
            return lib.linspace(params["start"], params["end"], params["steps"], dtype=dtype)
        return lib.logspace(params["start"], params["end"], params["steps"], dtype=dtype)
    x = exact_input(lib, dict(params, nan=op == "nansum"))
    if category == "reduce":
        if op == "cumsum":
            return x.cumsum(params["dims"][0])
        if params["all"]:
            return getattr(x, op)()
        return getattr(x, op)(tuple(params["dims"]), keepdim=params["keepdim"])
    if op == "cube":
        return x ** 3
    if op == "inverse_square":
        return x ** -2
    if op == "log":
        return lib.log(x.abs() + 0.5)
    if op == "half_of_double":   # a double becomes a half through a float
        data = np.random.default_rng(params["seed"]).standard_normal(params["shape"]) * 3
        return lib.tensor(data).to(lib.float16)
    functional = getattr(getattr(lib, "nn", None), "functional", None)
    nn_fn = lambda name: getattr(functional, name, None) or getattr(lib, name)  # noqa: E731
    if op == "layer_norm":
        return nn_fn("layer_norm")(x, tuple(x.shape[-1:]))
    if op == "batch_norm":
        return nn_fn("batch_norm")(x, None, None, training=True)
    if op == "softmax":
        return lib.softmax(x, -1)
    if op == "norm":
        return x.norm() if params["all"] else x.norm(dim=-1)
    if op in ("gelu", "silu"):
        return nn_fn(op)(x)
    if op == "sigmoid":
        return lib.sigmoid(x)
    y = exact_input(lib, dict(params, seed=params["seed"] + 1))
    if op in ("add_alpha", "sub_alpha"):   # one fused multiply-add (half: by its two loops)
        fn = lib.add if op == "add_alpha" else lib.sub
        return fn(x, y, alpha=0.37) if x.dim() < 2 else fn(x, y[..., :1], alpha=-1.3)
    loss = getattr(functional, op, None) or getattr(lib, op)
    return loss(x, y) if op != "huber_loss" else loss(x, y, delta=0.5)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance between a and b in steps of their dtype (nan equal to nan)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return -1
    if not a.size:
        return 0
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.itemsize]

    def ordered(v):
        i = np.ascontiguousarray(v).view(ints).astype(object if a.itemsize == 8 else np.int64)
        sign = 1 << (8 * a.itemsize - 1)
        return np.where(i < 0, -(i + sign), i) if a.itemsize != 8 else np.array(
            [-(int(k) + sign) if k < 0 else int(k) for k in i.reshape(-1)], dtype=object)
    both_nan = np.isnan(a) & np.isnan(b)
    d = np.abs(ordered(a).reshape(-1) - ordered(b).reshape(-1))
    d = np.where(both_nan.reshape(-1), 0, d)
    return int(d.max())


def exact_main(n: int, seed: int) -> int:
    import torch

    import gradcli
    from gradcli import dtypes

    torch.set_default_dtype(torch.float32)
    dtypes.set_default_dtype(dtypes.float32)
    rng = random.Random(seed)
    counts: dict = {}
    worse = []
    for i in range(n):
        category, op, params = exact_program(rng)
        results = []
        for lib in (torch, gradcli):
            try:
                r = exact_run(lib, category, op, params)
                results.append(np.asarray(r.detach().numpy() if lib is torch else r._data))
            except Exception as exc:  # noqa: BLE001 - an error is an outcome to compare
                results.append(f"{type(exc).__name__}: {exc}")
        if isinstance(results[0], str) or isinstance(results[1], str):
            d = 0 if isinstance(results[0], str) and isinstance(results[1], str) else -1
        else:
            d = ulp_distance(results[0], results[1])
        key = (category, op)
        exact, one, bad = counts.get(key, (0, 0, 0))
        counts[key] = (exact + (d == 0), one + (d == 1), bad + (d < 0 or d > 1))
        if d < 0 or d > 1:
            worse.append((i, category, op, params, d, results))
    total = [sum(c[k] for c in counts.values()) for k in range(3)]
    print(f"{n} programs: {total[0]} exact, {total[1]} within 1 ulp, {total[2]} worse")
    for (category, op), (exact, one, bad) in sorted(counts.items()):
        print(f"  {category:6s} {op:15s} {exact + one + bad:5d} programs: {exact:5d} exact, {one:4d} within "
              f"1 ulp, {bad:4d} worse")
    for i, category, op, params, d, results in worse[:20]:
        print(f"#{i} {category} {op} {params}: {d} ulp" if d >= 0 else f"#{i} {op} {params}: {results}")
    return 0 if not total[2] else 1


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--exact":
        return exact_main(int(sys.argv[2]) if len(sys.argv) > 2 else 500, int(sys.argv[3]) if len(sys.argv) > 3 else 0)
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
