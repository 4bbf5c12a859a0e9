"""PyTorch's last bits: float32 and float16 results computed as PyTorch 2.13 computes them on
CPU, checked against its outputs recorded in tests/engine/torch_digits/ (torch is never
imported here; `torch_digits/record.py` re-records the sums).

* sums, means, nansums and cumsums of seeded inputs (1 to 10^6 elements, every kind of
  dim, transposed, sliced and stepped views) are bit-identical to PyTorch's;
* torch_digits/digits_*.py run under `gradcli run` print what PyTorch printed: the "Learning
  PyTorch with Examples" polynomial fit, loss `.item()`s, linspace/arange/logspace.
"""
from __future__ import annotations

import fractions
import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import gradcli as g
from gradcli import dtypes
from gradcli.cli.app import app
from gradcli.ops import sum_kernels, torch_loops, torch_order, torch_ranges

HERE = Path(__file__).parent / "torch_digits"
sys.path.insert(0, str(HERE))
from cases import CASES, make_input  # noqa: E402

RECORDED = json.loads((HERE / "sums.json").read_text())["cases"]


def _ours(case, x):
    dims, keepdim = case["dims"], case["keepdim"]
    if case["kind"] == "cumsum":
        return torch_order.cumsum(x, dims)
    axes = None if dims is None else tuple(sorted(d % x.ndim for d in (dims if isinstance(dims, list) else [dims])))
    fn = {"sum": torch_order.sum, "mean": torch_order.mean, "nansum": torch_order.nansum}[case["kind"]]
    return fn(x, axes, keepdim)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reduction_is_bit_identical_to_pytorchs(case):
    x = make_input(case)
    ours = np.asarray(_ours(case, x))
    want = RECORDED[case["name"]]
    assert list(ours.shape) == want["shape"]
    assert ours.dtype == np.dtype(case["dtype"])
    assert [float(v) for v in ours.reshape(-1)[:4]] == want["first"]
    assert hashlib.sha256(np.ascontiguousarray(ours).tobytes()).hexdigest() == want["sha256"]


def test_a_changed_order_is_caught():
    """The check can fail: numpy's own float32 sum of 2000 elements is not PyTorch's."""
    case = next(c for c in CASES if c["name"] == "sum-float32-2000-contiguous-None-False")
    x = make_input(case)
    assert np.float32(np.sum(x)) != np.float32(RECORDED[case["name"]]["first"][0])


def test_the_ops_sum_in_pytorchs_order():
    """g.sum, g.mean, F.mse_loss take the emulated order (the float32 default dtype)."""
    with dtypes.default_dtype(dtypes.float32):
        case = next(c for c in CASES if c["name"] == "sum-float32-2000-contiguous-None-False")
        t = g.tensor(make_input(case))
        assert t.sum().item() == RECORDED[case["name"]]["first"][0]
        case = next(c for c in CASES if c["name"] == "mean-float32-33x65-contiguous-1-False")
        assert g.mean(g.tensor(make_input(case)), 1)._data[:4].tolist() == RECORDED[case["name"]]["first"]


def test_sequential_sums_add_in_order():
    """_seq's fast ways (a reduction over an outer axis, a loop of slices) add in order."""
    rng = np.random.default_rng(3)
    cases = [((5, 40, 1), 1), ((3, 16, 32), 1), ((2, 20, 4096), 1), ((100, 3), 0), ((7,), 0),
             ((1, 62, 16, 32), 2), ((40, 300), 0), ((4, 33, 2), 1)]
    for shape, axis in cases:
        a = (rng.standard_normal(shape) * 1e3).astype(np.float32)
        expected = np.cumsum(a, axis=axis).take(-1, axis=axis)
        assert np.array_equal(torch_order._seq(a, axis), expected)
    # einsum along a strided inner loop (one accumulator), and the views _row and _inner sum
    a = (rng.standard_normal((300, 2)) * 1e3).astype(np.float32)
    assert np.array_equal(torch_order._seq(a[:, 0], 0), np.cumsum(a[:, 0])[-1])
    assert np.array_equal(torch_order._seq(a.T[:, 3:297], 1), np.cumsum(a.T[:, 3:297], axis=1)[:, -1])


def _general_row(x):
    """The general 2-d loop on one contiguous row."""
    return np.float32(torch_order._loop2d(np.ascontiguousarray(x).reshape(1, 1, -1), 1, 0, False)[0, 0])


def _same(ours, want):
    """Bit-identical float32 values (any nan matching any nan); `want` after PyTorch's
    `0 + sum` (ours must never be -0: every chain starts from 0)."""
    ours = np.asarray(ours, np.float32)
    want = np.asarray(want, np.float32) + np.float32(0)
    nan = np.isnan(ours)
    return np.array_equal(nan, np.isnan(want)) and ours[~nan].tobytes() == want[~nan].tobytes()


def _values(rng, shape):
    """float32 values over 9 decades: the order of the additions shows in the last bits."""
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)).astype(np.float32)


def test_the_whole_row_sum_is_the_general_loops():
    """torch_order.sum of a whole contiguous float32 row (_row1 under SHORT_ROW floats, then
    sum_kernels.row_sum, two threads' ranges from GRAIN) adds as the general 2-d loop does, for
    every size up to 1,100, across the cascade's levels and the thread split, with an inf or a
    nan among the values (a masked-out inf takes the other kernel)."""
    rng = np.random.default_rng(6)
    sizes = list(range(1, 1100)) + [2047, 4097, 5119, 5120, 8191, 8192, 8200, 20000, 32767, 32768,
                                     32769, 40001, 70000]
    for n in sizes:
        for odd in (None, np.inf, -np.inf, np.nan):
            if odd is not None and (n < 500 and n % 7 or n > 9000):
                continue
            x = _values(rng, n)
            if odd is not None:
                x[rng.integers(0, n)] = odd
            # one 2-d loop per thread's range (two from 32,769 elements), added into 0 in order
            chunk = -(-n // min(2, -(-n // torch_order.GRAIN)))
            general = np.float32(0)
            for b in range(0, n, chunk):
                general = np.float32(general + _general_row(x[b:b + chunk]))
            ours = torch_order.sum(x)
            assert type(ours) is np.float32, n
            assert _same(ours, general), (n, odd)


def test_the_row_kernel_is_the_general_loop():
    """sum_kernels.row_sum (one row: the runs by one einsum, the cascade's last levels by a chain
    of chains or by zero-padded groups, the lanes and the tail by one einsum) adds as the
    general loop does: every size from 32 to 1,100 (every tail and left-vector count), the
    sizes where the cascade takes a second and a third level, an inf or a nan among them."""
    rng = np.random.default_rng(11)
    levels = [8191, 8192, 8703, 8704, 8705, 9999, 10000, 16383, 16384, 16385, 16900, 20000,
              131111, 140000, 500000, 1048576 + 33]
    for n in list(range(32, 1100)) + levels:
        for odd in (None, np.inf, np.nan):
            if odd is not None and n % 13 and n not in levels:
                continue
            x = _values(rng, n)
            if odd is not None:
                x[rng.integers(0, n)] = odd
            assert _same(sum_kernels.row_sum(x), _general_row(x)), (n, odd)


def test_rows_summed_together_are_each_rows_general_loop():
    """sum_kernels.rows_sum (a sum over a contiguous last dim: every row's runs at once, one
    chain of chains for the lanes and the tails) adds each row as the general loop does, rows
    a view apart too; rows_long (a few long rows: a whole sum's thread ranges) alike."""
    rng = np.random.default_rng(8)
    for n in list(range(1, 300, 7)) + list(range(1, 40)) + [511, 512, 543, 544, 1000, 4097, 8191]:
        for rows in (1, 3, 17, 40, 70):
            x = _values(rng, (rows, n))
            general = [_general_row(r) for r in x]
            assert _same(sum_kernels.rows_sum(x), general), (n, rows)
            assert _same(torch_order.sum(x, (1,)), general), (n, rows)
            wide = _values(rng, (rows, n + 5))[:, 2:n + 2]   # rows n + 5 floats apart
            assert _same(sum_kernels.rows_sum(wide), [_general_row(r) for r in wide]), (n, rows)
    for n in [32, 41, 1000, 8192, 8200, 16385, 50000, 50001, 131111]:
        for rows in (1, 2, 3):
            x = _values(rng, (rows, n))
            assert _same(sum_kernels.rows_long(x), [_general_row(r) for r in x]), (n, rows)


def test_column_sums_are_the_general_loops():
    """A sum over dim 0 with contiguous columns (vectorized_outer_sum: the 32-column blocks'
    cascade, the rest by row_sum's 4 interleaved cascades read as a chain of chains) adds each
    column as the general 2-d loop does, columns of a view (rows a stride apart) too."""
    rng = np.random.default_rng(9)
    for rows in (1, 2, 3, 4, 5, 7, 16, 17, 31, 64, 65, 100, 255, 257, 300, 700, 4100, 5000):
        for cols in (8, 9, 31, 32, 33, 40, 65, 96, 300):
            if rows > 700 and cols not in (33, 300):
                continue
            x = _values(rng, (rows, cols))
            # a batch of two takes the general cascade (one row of the batch: the fast one)
            general = torch_order._loop2d(np.stack([x.T, x.T]), cols, 1, False)[0]
            assert _same(torch_order.sum(x, (0,)), general), (rows, cols)
            view = _values(rng, (rows, cols + 3))[:, 1:cols + 1]
            general = torch_order._loop2d(np.stack([view.T, view.T]), cols + 3, 1, False)[0]
            assert _same(sum_kernels.cols_sum(view), general), (rows, cols)


def test_strided_row_sums_are_the_general_loops():
    """row_sum along a strided reduced dim (scalar loads, 4 interleaved cascades), every row of a
    loop call at once by sum_kernels.row_sums, adds each row as the general cascade does."""
    rng = np.random.default_rng(10)
    for rows in (2, 5, 40):
        for size in (1, 3, 4, 7, 64, 333, 1000):
            x = _values(rng, (rows, size * 3))
            y = x[:, ::3][None]   # (1, rows, size): reduced along the last axis, 3 floats apart
            general = torch_order._loop2d(np.concatenate([y, y]), 3, size * 3, False)[0]   # a batch of two
            assert torch_order._loop2d(y, 3, size * 3, False)[0].tobytes() == general.tobytes(), (rows, size)


def test_half_loads_add_the_two_halves_of_a_vector():
    """A float16 row's vector load converts 16 halves to two 8-float vectors and adds them (lane
    j is x[j] + x[j + 8], ATen's InnerSumCastLoadPolicy). The float32 sum then rounds to half,
    which hides the pairing but at a tie: these two sums (compare_dtypes.py --exact's seeds)
    land on one, and PyTorch 2.13 printed -244.125 and 0.045562744140625 (neighbouring pairs
    give -244.25 and 0.0455932...)."""
    x = (np.random.default_rng(1406064973).standard_normal((3819, 3)) * 3).astype(np.float16)
    assert float(torch_order.sum(x.reshape(-1)[:8867].copy())) == -244.125
    assert float(torch_order.sum(x)) == 0.045562744140625


def test_a_sum_of_negative_zeros_is_positive_zero():
    """PyTorch's out starts at 0 and every chain from 0, so a sum of -0s is +0: in every kernel
    and layout (a kernel that copied a lone value through would keep its sign)."""
    zero = np.float32(0).tobytes()
    for n in (1, 7, 8, 31, 32, 33, 40, 1000, 5120, 10000, 40000):
        x = np.full(n, -0.0, np.float32)
        assert torch_order.sum(x).tobytes() == zero, n
        if n >= 32:
            assert sum_kernels.row_sum(x).tobytes() == zero, n
    for shape in ((1, 40), (3, 7), (3, 40), (20, 300), (70, 33), (2, 9000)):
        x = np.full(shape, -0.0, np.float32)
        for axis in (0, 1):
            assert torch_order.sum(x, (axis,)).tobytes() == zero * x.shape[1 - axis], (shape, axis)
        if shape[1] < 8192:
            assert sum_kernels.rows_sum(x).tobytes() == zero * shape[0], shape
        if shape[1] >= 8:
            assert sum_kernels.cols_sum(x).tobytes() == zero * shape[1], shape
        assert sum_kernels.row_sums(x).tobytes() == zero * shape[1], shape


def test_the_kernels_plans_are_kept_within_a_bound(monkeypatch):
    """The plans' buffers are about their tensors' size: the cache keeps at most PLAN_BYTES of
    them (the oldest go first), and a plan over a quarter of that is made for its call only;
    sums are the same either way."""
    monkeypatch.setattr(sum_kernels, "PLAN_BYTES", 1 << 16)
    plans = sum_kernels._Plans(sum_kernels._rows_plan.build)
    monkeypatch.setattr(sum_kernels, "_rows_plan", plans)
    rng = np.random.default_rng(13)
    for rows in range(2, 40):
        x = _values(rng, (rows, 100))
        assert _same(sum_kernels.rows_sum(x), [_general_row(r) for r in x]), rows
        assert plans.bytes <= 1 << 16
    assert 0 < len(plans.plans) < 38   # the first ones went
    big = _values(rng, (300, 100))   # its plan: over a quarter of the bound
    assert _same(sum_kernels.rows_sum(big), [_general_row(r) for r in big])
    assert (300, 100) not in plans.plans


def test_the_einsum_facts_the_kernels_rest_on():
    """sum_kernels' three facts about numpy's einsum, each against a Python loop, so that a
    numpy that iterates otherwise fails here by name: in order along a summed outer axis; a
    chain of chains over groups laid out backwards; a 2-d sum to a scalar down axis 0 first
    (and its 3-d form per row)."""
    rng = np.random.default_rng(12)

    def chain(values):
        acc = np.float32(0)
        for v in values:
            acc = np.float32(acc + v)
        return acc

    a = _values(rng, (37, 40))
    assert _same(sum_kernels._einsum("pc->c", a), [chain(a[:, c]) for c in range(40)])
    groups = np.zeros((3, 16, 32), np.float32)
    groups[...] = _values(rng, groups.shape)
    cc = groups[::-1].transpose(0, 2, 1)   # (group, lane, item), the groups backwards in memory
    out = np.zeros(32, np.float32)
    sum_kernels._einsum("Gcg->c", cc, order="C", out=out)
    assert _same(out, [chain([chain(cc[g, c]) for g in range(3)]) for c in range(32)])
    lanes = _values(rng, (5, 8))
    want = chain([chain(lanes[:, j]) for j in range(8)])
    assert _same(sum_kernels._einsum("qj->", lanes, order="C"), want)
    b = _values(rng, (3, 5, 9))
    want = [chain([chain(b[h, :, a]) for a in range(9)]) for h in range(3)]
    assert _same(sum_kernels._einsum("hia->h", b, order="C"), want)


# -- ranges --------------------------------------------------------------------------------

def test_fma_rounds_once():
    # 1 + 2^-24 + 2^-48 rounds differently from (1 + 2^-24) + 2^-48 in float32
    a, b, c = np.float32(1 + 2 ** -12), np.float32(1 + 2 ** -12), np.float32(-1)
    exact = (1 + 2 ** -12) ** 2 - 1
    assert torch_ranges.fma(a, b, c, np.float32) == np.float32(exact)
    x = np.array([0.1, 1e300, -3.5]), np.array([3.0, 1e-300, 2.0]), np.array([-0.3, 1.0, 7.0])
    for a, b, c, got in zip(*x, torch_ranges.fma(*x, np.float64)):
        assert got == float(fractions.Fraction(a) * fractions.Fraction(b) + fractions.Fraction(c))


def test_linspace_middle_is_pytorchs():
    with dtypes.default_dtype(dtypes.float32):
        assert g.linspace(-1, 1, 15)._data[7] == np.float32(-4.470348358154297e-08)
        assert g.linspace(0, 1, 0)._data.shape == (0,)
        assert g.linspace(3, 5, 1)._data.tolist() == [3.0]


# torch.arange(-8.0, 0.351, 0.1, dtype=torch.float16) on PyTorch 2.13 (its bits, as uint16):
# element 80 is written by the scalar loop, start + step * 80 fused in float (1 ulp of half's
# subnormals, where unfused float arithmetic gives 0)
ARANGE_HALF = [51200, 51174, 51149, 51123, 51098, 51072, 51046, 51021, 50995, 50970, 50944, 50918, 50893,
               50867, 50842, 50816, 50790, 50764, 50739, 50713, 50688, 50662, 50636, 50611, 50585, 50560,
               50534, 50508, 50483, 50457, 50432, 50406, 50381, 50355, 50330, 50304, 50279, 50253, 50227,
               50202, 50176, 50125, 50074, 50023, 49972, 49920, 49869, 49818, 49766, 49715, 49664, 49612,
               49561, 49510, 49459, 49408, 49356, 49305, 49254, 49203, 49151, 49049, 48946, 48844, 48742,
               48640, 48538, 48435, 48333, 48230, 48128, 47923, 47718, 47514, 47309, 47104, 46694, 46285,
               45670, 44646, 2, 11878, 12902, 13517]


def test_half_arange_is_pytorchs():
    ours = g.arange(-8.0, 0.351, 0.1, dtype=g.float16)._data
    assert ours.view(np.uint16).tolist() == ARANGE_HALF


# -- elementwise loops ---------------------------------------------------------------------------

# PyTorch 2.13's add(x, number, alpha=) on a 1-d run of 16 + L floats (8 + L doubles): its
# tail's elements, F where the result is the fused multiply-add, S where alpha * number was
# rounded first (measured element by element on 400 rows; the vector body is all F)
TAILS32 = {1: "F", 3: "FFF", 4: "FFFF", 5: "FSSSS", 8: "FSSSSFFF", 9: "FSSSSSSSS", 13: "FSSSSSSSSSSSS",
           15: "FSSSSSSSSSSSSFF"}
TAILS64 = {2: "FF", 3: "FSS", 4: "FSSF", 6: "FSSSSF", 7: "FSSSSSS"}


@pytest.mark.parametrize("dtype, step, tails", [(np.float32, 16, TAILS32), (np.float64, 8, TAILS64)])
def test_the_scalar_loops_tail_rounds_a_numbers_product_apart(dtype, step, tails):
    lanes, width = (8, 4) if dtype == np.float32 else (4, 2)
    for length, pattern in tails.items():
        n = step + length
        x = np.zeros(n, dtype)
        where = torch_loops.hoisted((n,), (x, dtype(1)), lanes, width)
        assert "".join("S" if h else "F" for h in where[step:]) == pattern and not where[:step].any()
        assert torch_loops.hoisted((n,), (dtype(1), x), lanes, width) is None   # the number first
        assert torch_loops.hoisted((n,), (x, x), lanes, width) is None


def test_the_vector_loop_runs_along_memory_per_row_and_thread():
    x = np.zeros((3, 40), np.float16)
    assert torch_loops.vector_body((3, 40), (x, x[:1]), 16).sum(1).tolist() == [32, 32, 32]
    assert torch_loops.vector_body((40, 3), (x.T, x.T), 16).sum() == 96   # 120 in memory order
    assert not torch_loops.vector_body((3, 20), (x[:, ::2], x[:, ::2]), 16).any()   # strided
    big = np.zeros(70001, np.float16)   # two threads' halves: 35001 and 35000
    assert torch_loops.vector_body((70001,), (big, big), 16).sum() == 34976 + 34976


# -- whole programs through the CLI -------------------------------------------------------------

# the two variants of digits_poly_fit.py are written by _poly_fit below, not kept as copies
SAMPLES = sorted(p.stem for p in HERE.glob("digits_*.txt")
                 if p.stem not in ("digits_poly_fit_every_step", "digits_poly_fit_taylor"))
TAYLOR_SIN = "x - x * x * x / 6 + x * x * x * x * x / 120"


def _poly_fit(tmp_path, y="torch.sin(x)") -> list[str]:
    """What `gradcli run` prints for digits_poly_fit.py printing every loss, with `y = <y>`."""
    source = (HERE / "digits_poly_fit.py").read_text()
    program = tmp_path / "every_step.py"
    program.write_text(source.replace("    if t % 100 == 99:\n        print(t, loss)", "    print(t, loss)")
                       .replace("y = torch.sin(x)\n", f"y = {y}\n"))
    result = subprocess.run([sys.executable, "-m", "gradcli", "run", str(program)], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_prints_pytorchs_digits(name):
    result = CliRunner().invoke(app, ["run", str(HERE / f"{name}.py")])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == (HERE / f"{name}.txt").read_text().splitlines()


def test_broadcast_gradients_are_summed_in_pytorchs_order():
    """The gradient of a broadcast 0-d weight (the tutorial's a, b, c, d) is summed back
    by shapes.sum_to_shape, in PyTorch's order too."""
    from gradcli.ops.shapes import sum_to_shape
    rng = np.random.default_rng(5)
    arrays = [(rng.standard_normal(2000) * 3).astype(np.float32) for _ in range(20)]
    assert all(sum_to_shape(a, ()) == torch_order.sum(a) for a in arrays)
    assert any(sum_to_shape(a, ()) != a.sum() for a in arrays)   # numpy's order differs


def test_every_loss_of_the_tutorial_within_2_ulp(tmp_path):
    """The tutorial as written (y = sin(x)) prints PyTorch's digits at t = 99, 199, 299; in
    between, PyTorch's sin (MKL's vector math, not correctly rounded in 48 of these 2000
    points) moves some losses by 1-2 ulp: each is checked, and most are exact."""
    ours = [line.split() for line in _poly_fit(tmp_path)[:300]]
    theirs = [line.split() for line in (HERE / "digits_poly_fit_every_step.txt").read_text().splitlines()[:300]]
    assert [t for t, _ in ours] == [t for t, _ in theirs] == [str(i) for i in range(300)]
    a = np.array([float(v) for _, v in ours], np.float32).view(np.int32)
    b = np.array([float(v) for _, v in theirs], np.float32).view(np.int32)
    assert np.abs(a.astype(np.int64) - b).max() <= 2
    assert np.sum(a == b) >= 250
    assert math.isclose(float(ours[-1][1]), float(theirs[-1][1]), rel_tol=0)


def test_every_loss_of_the_tutorial_with_a_taylor_sin_is_pytorchs(tmp_path):
    """The tutorial with sin replaced by its Taylor polynomial: every operation is one whose last
    bit gradcli computes as PyTorch does (sums in its order, x ** 3 as x * x * x, linspace by its
    formula), so every loss is PyTorch's (digits_poly_fit_taylor.txt, recorded from this program)."""
    assert _poly_fit(tmp_path, TAYLOR_SIN) == (HERE / "digits_poly_fit_taylor.txt").read_text().splitlines()
