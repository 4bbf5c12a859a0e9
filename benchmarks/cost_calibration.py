"""Time each op family against what it is charged: CPU seconds per work unit.

    python benchmarks/cost_calibration.py            # every family, worst ratios first
    python benchmarks/cost_calibration.py --quick    # fewer repetitions, smaller sizes
    python benchmarks/cost_calibration.py --check    # only the op table's uncharged-op check

The default budget (`gradcli.limits`: --max-steps 10^6 times WORK_PER_STEP units) must end
any program within about 5 s of CPU: so no work may take more than 5 s / budget per unit
it is charged. Each case runs under a budget too large to end it, its charge is read from
the budget, and its time is `time.process_time` (the machine is shared: CPU time, not wall
time), the minimum of several repetitions. A case whose time per unit is above the target
is undercharged: the table prints the worst first, and the exit code is 1 if any is over
TOLERANCE times the target.

`--check` walks the op table: every op without a cost function (charged its inputs'
elements) is run on its own test domain scaled up to about 2^17 elements, and listed if
its time per unit is over the target: a new op cannot slip in undercharged.
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gradcli  # noqa: E402
from gradcli.cli import GC_THRESHOLDS  # noqa: E402
from gradcli.limits import WORK_PER_STEP, Limits, budget, limited  # noqa: E402

TARGET_S = 5.0       # the default budget's CPU time on the reference machine (issue 26)
TOLERANCE = 1.5      # a case may be this far over the target before it fails the run
T = gradcli.tensor
F = type("F", (), {})   # the op table's functions by name (conv2d, batch_norm, linalg_solve...)


def _functions() -> None:
    from gradcli.ops.linalg import linalg_solve
    from gradcli.ops.registry import FUNCTIONS, TENSORS

    for name, fn in FUNCTIONS.items():
        setattr(F, name, staticmethod(fn))
    F.linalg_solve = staticmethod(getattr(TENSORS, "linalg_solve", None) or
                                  (lambda a, b: gradcli.ops.apply.apply(linalg_solve, (a, b))))


def target_ns() -> float:
    """Nanoseconds a work unit may take: the default budget in TARGET_S."""
    return TARGET_S * 1e9 / Limits().max_work


# The limits every case runs under: a program run with these same limits charges the
# budget already in force (`limits.limited` re-entered keeps the counters).
LIMITS = Limits(max_steps=10**12)


def measure(fn, reps: int) -> tuple:
    """(min CPU seconds, units charged) of `fn()` over `reps` runs."""
    best = float("inf")
    units = 0
    with limited(LIMITS) as b:
        for _ in range(reps):
            before = b.work
            start = time.process_time()
            fn()
            took = time.process_time() - start
            units = b.work - before
            best = min(best, took)
    return best, units


def program(source: str):
    """A program run (the interpreter's tokens and steps), as `gradcli run` runs it."""
    from gradcli.lang import compile_program

    compiled = compile_program(source, "calibration.py")

    def run():
        # a step is charged at least WORK_PER_STEP: --max-steps ends a loop of short bodies
        before = budget.work
        result = compiled.run(limits=LIMITS)
        budget.work = max(budget.work, before + result.interpreter.steps * WORK_PER_STEP)
    return run


def _nested(n):
    def run():
        x = T(1.5, requires_grad=True)
        y = gradcli.sin(x) * gradcli.exp(x)
        for _ in range(n):
            (y,) = gradcli.autograd.grad(y, x, create_graph=True)
    return run


def _jvp_chain(n):
    """Forward mode: each op's tangent computed on arrays beside it (ops/dual.py)."""
    from gradcli.autograd import forward_ad as fwAD

    def run():
        with fwAD.dual_level():
            y = fwAD.make_dual(T(0.5), T(1.0))
            for _ in range(n):
                y = gradcli.sin(y * 1.0001)
    return run


def _hessian_of_hessian(n):
    """torch.func.hessian of torch.func.hessian: tangents of a batched backward's graph."""
    from gradcli.autograd.func_forward import hessian

    def f(x):
        return (gradcli.sin(x) * gradcli.exp(x) * gradcli.cos(x)).sum()
    hessian(hessian(f))(T(np.linspace(0.1, 1.0, n)))


def _backward(make):
    def run():
        make().backward()
    return run


def cases(quick: bool) -> list:
    """(family, label, fn) for every op family the budget must bound."""
    s = 4 if quick else 1   # --quick: sizes divided by about this
    rng = np.random.default_rng(0)
    u = lambda *shape: T(rng.uniform(-1, 1, shape))  # noqa: E731
    n = 1000 // s
    a, b = u(n, n), u(n, n)
    a32, b32 = a.float(), b.float()
    ai, bi = T(rng.integers(-5, 5, (300 // s, 300 // s))), T(rng.integers(-5, 5, (300 // s, 300 // s)))
    batched_a, batched_b = u(200 // s, 40, 40), u(200 // s, 40, 40)
    bcast_a, bcast_b = u(1, 64, 64), u(500 // s, 64, 64)
    big = u(10**6 // s)
    big2 = u(1000 // s, 1000)
    big2_32, rows_32, bn_32 = big2.float(), u(8, 64).float(), u(256, 64).float()
    img_32, logits_32 = u(32 // s, 16, 16, 16).float(), u(32, 10).float()
    img = u(8, 16, 64 // s, 64)
    wide = u(1, 3000 // s, 8, 8)
    wide_w = u(64, 3000 // s, 3, 3)
    w = u(32, 16, 3, 3)
    small = T(1.5)
    grad_x = T(rng.uniform(-1, 1, (400 // s, 400)), requires_grad=True)
    cube = u(60, 60)
    out = [
        # the interpreter: tokens and steps
        ("interpreter", "loop of 40-term sums", program(
            "x = 0.5\nfor i in range(20000):\n    y = " + " + ".join(["x"] * 40))),
        ("interpreter", "loop of int products", program(
            "x = 3\nfor i in range(20000):\n    y = " + " * ".join(["x"] * 20))),
        ("interpreter", "empty loop", program("for i in range(200000):\n    pass")),
        ("interpreter", "scalar tensor ops, no grad", program(
            "x = tensor(1.0)\nfor i in range(20000):\n    x = x * 1.0 * 1.0 * 1.0 * 1.0 * 1.0")),
        ("interpreter", "scalar tensor ops, grad", program(
            "x = tensor(1.0, requires_grad=True)\ny = x\nfor i in range(20000):\n"
            "    y = y * 1.0 * 1.0 * 1.0\ny.backward()")),
        # elementwise (the default charge: elements)
        ("elementwise", "mul 10^6", lambda: big * big),
        ("elementwise", "add 10^6", lambda: big + 1.0),
        ("elementwise", "sin 10^6", lambda: gradcli.sin(big)),
        ("elementwise", "exp 10^6", lambda: gradcli.exp(big)),
        ("elementwise", "pow 10^6", lambda: big ** 2.5),
        ("elementwise", "tanh 10^6", lambda: gradcli.tanh(big)),
        ("elementwise", "sum 10^6", lambda: big.sum()),
        ("elementwise", "broadcast add", lambda: u(1000 // s, 1) + u(1, 1000)),
        ("elementwise", "mul 10^6 + backward", _backward(
            lambda: (grad_x * grad_x).sum())),
        # matmul in every form and dtype
        ("matmul", f"mm {n}^3 float64", lambda: a @ b),
        ("matmul", f"mm {n}^3 float32", lambda: a32 @ b32),
        ("matmul", "mm int64", lambda: ai @ bi),
        ("matmul", "bmm", lambda: gradcli.bmm(batched_a, batched_b)),
        ("matmul", "matmul broadcast batch", lambda: bcast_a @ bcast_b),
        ("matmul", "mv", lambda: gradcli.mv(a, a[0])),
        ("matmul", "einsum ij,jk", lambda: gradcli.einsum("ij,jk->ik", a, b)),
        ("matmul", "mm + backward", _backward(lambda: (grad_x @ grad_x.T).sum())),
        # conv and pooling
        ("conv", "conv2d 16->32 ch 3x3", lambda: F.conv2d(img, w)),
        ("conv", "conv2d 3000 channels", lambda: F.conv2d(wide, wide_w)),
        ("pool", "max_pool2d 2x2", lambda: F.max_pool2d(img, 2)),
        ("pool", "avg_pool2d 3x3", lambda: F.avg_pool2d(img, 3, 1)),
        ("pool", "adaptive_avg_pool2d", lambda: F.adaptive_avg_pool2d(img, (7, 5))),
        # normalization
        ("norm", "batch_norm 10^6 features", lambda: F.batch_norm(
            u(2, 10**6 // s), None, None, training=True)),
        ("norm", "layer_norm", lambda: F.layer_norm(big2, (1000,))),
        # float32: the kernels' steps (ops/torch_norms.py, torch_math.sleef_exp32)
        ("norm", "layer_norm float32", lambda: F.layer_norm(big2_32, (1000,))),
        ("norm", "layer_norm float32 8x64", lambda: F.layer_norm(rows_32, (64,))),
        ("norm", "batch_norm float32 256x64", lambda: F.batch_norm(bn_32, None, None, training=True)),
        ("norm", "batch_norm float32 images", lambda: F.batch_norm(img_32, None, None, training=True)),
        ("norm", "softmax float32", lambda: gradcli.softmax(big2_32, 1)),
        ("norm", "softmax float32 32x10", lambda: gradcli.softmax(logits_32, -1)),
        ("norm", "softmax", lambda: gradcli.softmax(big2, 1)),
        # sorts and scans
        ("sort", "sort 10^6", lambda: gradcli.sort(big)),
        ("sort", "sort descending", lambda: gradcli.sort(big, descending=True)),
        ("sort", "topk 10", lambda: gradcli.topk(big, 10)),
        ("sort", "kthvalue", lambda: gradcli.kthvalue(big, 5)),
        ("sort", "argsort", lambda: gradcli.argsort(big)),
        ("scan", "cumsum", lambda: gradcli.cumsum(big, 0)),
        ("scan", "cumprod", lambda: gradcli.cumprod(big, 0)),
        # linalg
        ("linalg", "det", lambda: gradcli.det(cube)),
        ("linalg", "inverse", lambda: gradcli.inverse(cube)),
        ("linalg", "solve", lambda: F.linalg_solve(cube, cube)),
        # graph nodes: made, run, and made by create_graph
        ("graph", "nested create_graph x12", _nested(12)),
        ("graph", "jvp of a scalar chain 10^4", _jvp_chain(10**4 // s)),
        ("graph", "hessian of hessian, 12 vars", lambda: _hessian_of_hessian(12 // s)),
        ("graph", "scalar chain 10^4 + backward", _backward(lambda: _chain(small, 10**4 // s))),
    ]
    return out


def _chain(x, n):
    x = x.detach().requires_grad_()
    y = x
    for _ in range(n):
        y = gradcli.sin(y * 1.0001)
    return y


def run_cases(quick: bool, only=None, progress: bool = True) -> list:
    rows = []
    reps = 3 if quick else 5
    for family, label, fn in cases(quick):
        if only and family not in only:
            continue
        try:
            seconds, units = measure(fn, reps)
        except Exception as error:   # a case this gradcli cannot run: shown, not hidden
            rows.append((family, label, float("nan"), 0, f"failed: {error}"))
            continue
        rows.append((family, label, seconds, units, ""))
        if progress:
            print(f"  {family:12} {label:34} {seconds * 1e3:9.1f} ms {units:11d} units", flush=True)
    return rows


def _scaled(value, dim: int, factor: int):
    """An op-domain input made `factor` times longer along `dim` (a number stays)."""
    if not isinstance(value, np.ndarray) or value.ndim == 0:
        return value
    return np.repeat(value, factor, axis=dim % value.ndim)


def uncharged_ops(reps: int = 3) -> list:
    """Ops without a cost function whose default charge (their inputs' elements) is below
    their time: (name, ns per unit, how scaled). Each op runs on its test domain, every
    array input scaled along its first and then its last dim to about 2^17 elements."""
    from gradcli._tensor import Tensor
    from gradcli.ops import OPS
    from gradcli.ops.apply import apply

    found = []
    limit = target_ns()
    for op in OPS.values():
        if op.cost is not None or op.domain is None:
            continue
        rng = np.random.default_rng(sum(map(ord, op.name)))
        worst = None
        for inputs, params in op.domain(rng):
            # (0-d operands are not scaled: such a case times the op's overhead, OP_WORK's
            # measure, which the interpreter cases cover)
            biggest = max((v.size for v in inputs if isinstance(v, np.ndarray) and v.ndim),
                          default=0)
            if biggest == 0:
                continue
            factor = max(1, 2**17 // biggest)
            for dim in (0, -1):
                args = tuple(Tensor(_scaled(v, dim, factor)) if isinstance(v, np.ndarray) else v
                             for v in inputs)
                try:
                    seconds, units = measure(lambda: apply(op, args, dict(params)), reps)
                except Exception:   # the scaled shapes do not fit the op's params: not a case
                    continue
                ns = seconds * 1e9 / max(units, 1)
                if worst is None or ns > worst[1]:
                    worst = (op.name, ns, f"dim {dim} x{factor}")
        if worst is not None and worst[1] > limit:
            found.append(worst)
    return sorted(found, key=lambda row: -row[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, smaller sizes")
    parser.add_argument("--check", action="store_true", help="only the op table's check")
    parser.add_argument("families", nargs="*", help="only these families")
    args = parser.parse_args()
    gc.set_threshold(*GC_THRESHOLDS)   # as the CLI runs programs
    _functions()
    limit = target_ns()
    print(f"target: {limit:.1f} ns per unit ({TARGET_S} s for the default budget of "
          f"{Limits().max_work:.3g} units); fail over {TOLERANCE}x")
    failed = False
    if not args.check:
        rows = run_cases(args.quick, set(args.families))
        rows.sort(key=lambda r: -(r[2] * 1e9 / max(r[3], 1)) if r[3] else float("-inf"))
        print(f"{'family':12} {'case':34} {'CPU ms':>9} {'units':>11} {'ns/unit':>9} {'x target':>9}")
        for family, label, seconds, units, note in rows:
            ns = seconds * 1e9 / max(units, 1)
            ratio = ns / limit
            failed |= ratio > TOLERANCE or bool(note)
            print(f"{family:12} {label:34} {seconds * 1e3:9.1f} {units:11d} {ns:9.1f} {ratio:8.2f}x"
                  f"{'  OVER' if ratio > TOLERANCE else ''} {note}")
    if args.check or not args.families:
        # some ops' domains scaled to 2^17 elements make outputs of 10^10 (outer products,
        # Kronecker-like shapes): under an address-space limit they fail with MemoryError and
        # are skipped, instead of swapping the machine (23 GB resident without it)
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = 4 << 30
        if soft == resource.RLIM_INFINITY or soft > cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        found = uncharged_ops()
        print(f"\nops without a cost function charged below their time: {len(found)}")
        for name, ns, how in found:
            ratio = ns / limit
            failed |= ratio > TOLERANCE
            print(f"  {name:28} {ns:9.1f} ns/unit {ratio:6.2f}x target ({how})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
