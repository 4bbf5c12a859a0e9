"""The common float32 sums in PyTorch's order in as few numpy calls as can be.

torch_order.py holds the order itself (the general loops, one numpy call per chain) and the
dispatch; this module holds the fast ways for the layouts most sums have, each checked against
the general loops in tests/engine/test_torch_digits.py:

* `row_sum`: one contiguous row (a whole-tensor sum), vectorized_inner_sum;
* `rows_sum`: a contiguous last dim, every row at once; `rows_long`: a few long rows (the
  threads' ranges of a whole sum);
* `cols_sum`: dim 0 of a 2-d tensor with contiguous columns, vectorized_outer_sum;
  `row_sums`: a strided reduced dim (row_sum's scalar loads), one output per column.

A sum of under ~10^4 floats costs what its numpy calls cost (about a microsecond each, the
data's share is small), so each layout has a plan, made once per shape and kept in a cache
bounded by the bytes of its buffers (`_Plans`), that holds its buffers and views, and the
calls are as few as the order allows. Three facts about numpy carry the fast ways (a test
holds each to a Python loop, and every kernel to the general loops):

* einsum's one-operand loop adds in order along a summed axis that is not a contiguous inner
  loop (`out[j] += in[i, j]`, row after row); this is the workhorse, a chain per lane.
* A chain of chains: over a 3-d view (G, lanes, items) whose items are strided, einsum
  (order 'C') adds each group's items from 0 and then adds that into the lane's output, group
  after group, provided numpy cannot merge the group and item axes (their strides are not
  one run): the groups here are laid out backwards (a negative stride).
* Over a 2-d array summed to a scalar, einsum's loop runs down axis 0 for each index of axis
  1: `qj->` on lanes (4, 8) is the sum of lane 0's 4 items, then lane 1's, ...; and over
  (H, items, chains), `hia->h` is that for each of the H rows.
"""
from __future__ import annotations

import numpy as np

try:   # einsum's C entry, without the Python wrapper's parsing of `optimize`
    from numpy._core.multiarray import c_einsum as _einsum
except ImportError:   # numpy < 2
    from numpy.core.multiarray import c_einsum as _einsum

LANES = 8           # floats in a vector register: sum is dispatched as AVX2 even on AVX512
THREADS = 2         # at::get_num_threads() on the recording machine
GRAIN = 32768       # at::internal::GRAIN_SIZE: below it a reduction runs on one thread
ILP = 4             # row_sum's interleaved partial sums
LEVELS = 4          # multi_row_sum's cascade depth
QUAD = ILP * LANES  # the floats of one row of multi_row_sum in vectorized_inner_sum
_F32 = np.float32


def ceil_log2(n: int) -> int:
    return 1 if n <= 2 else (n - 1).bit_length()


def step(k: int) -> int:
    """multi_row_sum's run length for k rows."""
    return 1 << max(4, ceil_log2(k) // LEVELS)


# -- plans, made once per shape --------------------------------------------------------------

PLAN_BYTES = 32 << 20   # the buffers the cached plans hold, at most


class _Plans:
    """A cache of plans by shape, bounded by the bytes of the buffers they hold rather than by
    their number (a plan for a large tensor holds buffers about its size): the oldest go first,
    and a plan over a quarter of the bound is made for its call only."""

    def __init__(self, build):
        self.build, self.plans, self.bytes = build, {}, 0   # key -> (plan, bytes), oldest first

    def __call__(self, *key):
        hit = self.plans.get(key)
        if hit is not None:
            return hit[0]
        plan = self.build(*key)
        size = _buffer_bytes(plan, set())
        if size <= PLAN_BYTES // 4:
            while self.plans and self.bytes + size > PLAN_BYTES:
                self.bytes -= self.plans.pop(next(iter(self.plans)))[1]
            self.plans[key] = (plan, size)
            self.bytes += size
        return plan


def _buffer_bytes(obj, seen):
    """The bytes of the numpy buffers `obj` (a plan, a _Cascade, a tuple of them) holds."""
    if isinstance(obj, np.ndarray):
        while obj.base is not None:
            obj = obj.base
        if id(obj) in seen:
            return 0
        seen.add(id(obj))
        return obj.nbytes
    if isinstance(obj, (tuple, list)):
        return sum(_buffer_bytes(item, seen) for item in obj)
    slots = getattr(type(obj), "__slots__", ())
    return sum(_buffer_bytes(getattr(obj, name, None), seen) for name in slots)


# -- the cascade of many lanes at once --------------------------------------------------------
#
# multi_row_sum over k rows: runs of s rows added in order (level 0), s of those (level 1), s
# of those (level 2), and all of those (level 3); at the end the unfinished run of each level
# is added in, the lowest first: ((acc0 + acc1) + acc2) + acc3. Pushing each unfinished run
# up as the last item of the level above gives the same additions (a + b == b + a exactly, and
# a chain from 0 never ends in -0), so the cascade is: runs of s, zero-padded groups of s
# above them, and one chain at the top.


class _Cascade:
    """A plan for multi_row_sum of k rows of `lanes`: the level buffers, zero-padded, and
    every einsum's operands but the rows' own views, made once."""
    __slots__ = ("full", "cut", "runs_shape", "sub", "sub1", "runs_out", "tail_out", "groups", "top")

    def __init__(self, k, lanes, extra=0, keep_top=False):
        """`extra`: rows after the top's items, for the caller to fill (the left vectors);
        `keep_top`: a top buffer even for one run (the caller chains it itself)."""
        s = step(k)
        full, r0 = divmod(k, s)
        self.full, self.cut, self.runs_shape = full, full * s, (full, s) + lanes
        labels = "jc"[2 - len(lanes):]
        self.sub = f"gp{labels}->g{labels}"      # a run's sum, or a group's
        self.sub1 = f"p{labels}->{labels}"       # the unfinished run; the top chain
        count = full + (r0 > 0)
        levels = []   # the items of levels 0 and 1 when they are grouped (zero-padded groups)
        while count > s and len(levels) < LEVELS - 2:
            groups = -(-count // s)
            levels.append(np.zeros((groups * s,) + lanes, _F32))
            count = groups
        # the top: a chain of its items (level 3 is never grouped); one item is the result
        self.top = np.zeros((count + extra,) + lanes, _F32) \
            if count + extra > 1 or levels or keep_top else None
        first = levels[0] if levels else self.top
        self.runs_out = first[:full] if first is not None else None
        self.tail_out = first[full] if first is not None and r0 else None
        self.groups = [(buf.reshape((buf.shape[0] // s, s) + lanes),
                        (levels + [self.top])[i + 1][:buf.shape[0] // s]) for i, buf in enumerate(levels)]

    def fill(self, q):
        """q: (k, *lanes) rows (a view) -> the top's items, the levels below done."""
        if self.full:
            _einsum(self.sub, q[:self.cut].reshape(self.runs_shape), out=self.runs_out)
        if self.tail_out is not None:
            _einsum(self.sub1, q[self.cut:], out=self.tail_out)
        for src, dst in self.groups:
            _einsum(self.sub, src, out=dst)

    def fill_rows(self, q, rows):
        """fill for q's lanes (rows, 32): each row's runs take an einsum of their own (one
        with the rows inside costs more)."""
        for h in range(rows):
            qh = q[:, h]
            if self.full:
                _einsum("gpc->gc", qh[:self.cut].reshape(self.runs_shape[:2] + (QUAD,)),
                        out=self.runs_out[:, h])
            if self.tail_out is not None:
                _einsum("pc->c", qh[self.cut:], out=self.tail_out[h])
        for src, dst in self.groups:
            _einsum(self.sub, src, out=dst)

    def run(self, q, out):
        """The cascade of q: (k, *lanes) rows (a view) into out (lanes)."""
        if self.top is None:   # one run or a part of one: its chain is the result
            return _einsum(self.sub1, q, out=out)
        self.fill(q)
        return _einsum(self.sub1, self.top, out=out)


class _ColsPlan:
    """cols_sum's work for one shape, made once: `loads` (an index into x2, the view's shape,
    the einsum, where it writes) read the rows into the cascades' first level; `copies` put
    rows in a buffer as they are; `chains` (buffer to buffer) finish the cascades into `stage`,
    `last` (the narrow columns' chain of chains, in order 'C', which costs the others ~1 us)
    too; the call returns a copy of `stage`. Every view but the loads' is made here, once."""
    __slots__ = ("loads", "copies", "chains", "last", "stage", "narrow_parts")


def _cascade_steps(plan, k, lanes, rows, index, dst, reverse=False, extra=0):
    """The steps of multi_row_sum over k rows of `lanes` (`rows` of x2 each, at index[0]'s
    rows, columns index[1]) into dst; `reverse`: the 4 partial sums of a quad stored last to
    first (cols_sum's narrow columns); `extra`: rows the caller puts after the top's items.
    Returns the top buffer (None when one chain of the rows is the result)."""
    cascade = _Cascade(k, lanes, extra=extra, keep_top=extra > 0 or reverse)
    rev = (slice(None, None, -1),) if reverse else ()   # on a quad's partial sums
    cut = cascade.cut * rows
    if cascade.top is None:   # one run or a part of one: its chain is the result
        plan.loads.append(((slice(0, k * rows), index), (k,) + lanes, cascade.sub1, dst))
        return None
    if cascade.full:
        plan.loads.append(((slice(0, cut), index), cascade.runs_shape, cascade.sub,
                           cascade.runs_out[(slice(None),) + rev]))
    if cascade.tail_out is not None:
        plan.loads.append(((slice(cut, k * rows), index), (k - cascade.cut,) + lanes, cascade.sub1,
                           cascade.tail_out[rev]))
    for src, out in cascade.groups:
        plan.chains.append((cascade.sub, src, out))
    if not reverse:
        plan.chains.append((cascade.sub1, cascade.top, dst))
    return cascade.top


@_Plans
def _cols_plan(k, cols, narrow):
    """cols_sum's plan: the 32-column blocks' cascade over k rows; for the last `narrow`
    columns, the 4 interleaved cascades over the k // 4 quads of rows (each quad read as one
    row of 4 * narrow floats). Under 32 such columns the quads' partial sums are stored last
    to first and the leftover rows become the first cascade's last items, so that one chain of
    chains (`Gcg->c`) reads the 4 partial sums as groups in order (backwards in memory: numpy
    cannot merge them with the items); from 32 (a strided reduced dim's columns) the quads are
    copied in order into a buffer (a reversed copy costs 10% more there) and the partial sums
    chained by one more einsum."""
    plan = _ColsPlan()
    plan.loads, plan.copies, plan.chains, plan.last, plan.narrow_parts = [], [], [], None, None
    plan.stage = stage = np.zeros(cols, _F32)
    wide = cols - narrow
    if wide:
        _cascade_steps(plan, k, (wide,), 1, slice(0, wide), stage[:wide])
    if not narrow:
        return plan
    quads, leftover = divmod(k, ILP)
    if not quads:   # row_sum of under 4 rows: the first, the rest added in order
        plan.loads.append(((slice(None), slice(wide, cols)), None, "pc->c", stage[wide:]))
    elif narrow < QUAD:
        top = _cascade_steps(plan, quads, (ILP, narrow), ILP, slice(wide, cols), None, reverse=True,
                             extra=leftover)
        if leftover:   # to the first partial sum (stored last)
            plan.copies.append(((slice(quads * ILP, k), slice(wide, cols)), top[-leftover:, -1]))
        # (items, 4 partial sums reversed, narrow) -> (partial sum, column, item)
        plan.last = (top[:, ::-1].transpose(1, 2, 0), stage[wide:])
    else:
        narrow_plan = _Cascade(quads, (ILP * narrow,))
        copy = np.zeros((quads, ILP, narrow), _F32)
        parts = np.zeros((ILP, narrow), _F32)
        plan.narrow_parts = (narrow_plan, copy, parts, quads)
    return plan


def cols_sum(x2, narrow=None):
    """vectorized_outer_sum over dim 0 of x2 (rows, cols), columns contiguous (cols >= 8):
    blocks of 32 columns cascaded down the rows, every block at once; the columns after the
    last block (8 at a time or one at a time, in the same order) by row_sum: the rows dealt
    to 4 interleaved cascades, the leftover rows added to the first, then the other 3.
    `narrow`: how many of the last columns take row_sum's order (all of them: row_sums)."""
    k, cols = x2.shape
    if narrow is None:
        narrow = cols % QUAD
    plan = _cols_plan(k, cols, narrow)
    for index, shape, subscripts, dst in plan.loads:
        _einsum(subscripts, x2[index] if shape is None else x2[index].reshape(shape), out=dst)
    for index, dst in plan.copies:
        dst[...] = x2[index]
    for subscripts, src, dst in plan.chains:
        _einsum(subscripts, src, out=dst)
    if plan.last is not None:
        _einsum("Gcg->c", plan.last[0], order="C", out=plan.last[1])
    if plan.narrow_parts is not None:
        narrow_plan, copy, parts, quads = plan.narrow_parts
        rest = x2[:, cols - narrow:]
        copy[...] = rest[:quads * ILP].reshape(quads, ILP, narrow)
        narrow_plan.run(copy.reshape(quads, ILP * narrow), parts.reshape(-1))
        for i in range(quads * ILP, k):   # the leftover rows, to the first partial sum
            np.add(parts[0], rest[i], out=parts[0])
        _einsum("qc->c", parts, out=plan.stage[cols - narrow:])   # (in order: 32 or more per row)
    return plan.stage.copy()


def row_sums(x2):
    """row_sum (scalar loads) down every column of x2 (size, cols), any strides: a reduced
    dim that is not contiguous, one output per column (cols_sum copies them into rows of 4 *
    cols floats first)."""
    return cols_sum(x2, x2.shape[1])


# -- one contiguous row ---------------------------------------------------------------------
#
# vectorized_inner_sum on a row of n floats: k rows of 4 vectors (quads), `left` more vectors
# and m tail floats. Each of the 32 columns of the quads is cascaded (P: 4 vectors); the
# left vectors are added to P's first vector; lane j is ((P0_j + P1_j) + P2_j) + P3_j; the
# row's sum is 0 + the tail floats + lane 0 .. lane 7, in order.


class _RowPlan:
    __slots__ = ("k", "full", "r0", "left", "two", "runs", "tail_dst", "cc", "cascade", "p",
                 "lanes", "left_row", "gather", "idx", "rest", "cut")


@_Plans
def _row_plan(n):
    """A plan for a row of n floats (n >= 32). P, the cascade's 4 vectors, is the start of
    a buffer the row's last floats (the left vectors unless the cascade took them, then the
    tail) are copied after; one gather (`idx`: (items, chains)) lays out the last stages'
    chains for one einsum, or with nothing after P, `qj->` reads P's 4 vectors as the lanes'
    items directly."""
    plan = _RowPlan()
    vecs, m = divmod(n, LANES)
    k, left = divmod(vecs, ILP)
    s = step(k)
    full, r0 = divmod(k, s)
    plan.k, plan.full, plan.r0, plan.left = k, full, r0, left
    at = k * QUAD
    plan.cut = (slice(0, full * s * QUAD), slice(full * s * QUAD, at), at, at + LANES * left)
    plan.two = full + (r0 > 0) <= 2 * s
    plan.cascade = plan.runs = plan.tail_dst = plan.cc = None
    after = LANES * left if plan.two else 0   # the left vectors, unless the cascade took them
    plan.gather = np.zeros(QUAD + after + m + 1, _F32)
    plan.p = plan.gather[:QUAD]
    if plan.two:
        # at most one full group of runs (A) before the unfinished one (B) and the unfinished
        # run (T): the cascade is ((T + B) + A), a chain of chains of the groups T, B, A,
        # which sit in memory as A, B, T: read backwards, numpy cannot merge them
        groups = np.zeros((3, s, QUAD), _F32)
        plan.runs = groups[:2].reshape(-1, QUAD)[:full]
        plan.tail_dst = groups[2, :r0]
        plan.cc = groups[::-1].transpose(0, 2, 1)     # (group, lane, item)
    else:   # the left vectors are the top chain's last items (lanes 0..7)
        plan.cascade = _Cascade(k, (QUAD,), extra=left)
    plan.rest = (slice(at if plan.two else at + LANES * left, n), plan.gather[QUAD:QUAD + after + m])
    plan.lanes = plan.idx = None
    if not after and not m:
        plan.lanes = plan.p.reshape(ILP, LANES)
        return plan
    # 0 + the tail floats + lane 0 .. lane 7; lane j: P0_j, the left vectors' j, P1_j .. P3_j
    zero = QUAD + after + m
    chains = [[QUAD + after + i for i in range(m)]]
    for j in range(LANES):
        chains.append([j] + [QUAD + LANES * i + j for i in range(after // LANES)] +
                      [LANES * q + j for q in range(1, ILP)])
    width = max(len(items) for items in chains)
    idx = np.array([items + [zero] * (width - len(items)) for items in chains], np.intp)
    plan.idx = np.ascontiguousarray(idx.T)   # (items, chains): a chain's items len(chains) apart
    return plan


def row_sum(x):
    """vectorized_inner_sum of one contiguous float32 row of n >= 32 floats (a numpy float32)."""
    plan = _row_plan(x.size)
    if plan.two:
        body, tail = plan.cut[:2]
        if plan.full:
            _einsum("gpc->gc", x[body].reshape(plan.full, -1, QUAD), out=plan.runs)
        if plan.r0:
            plan.tail_dst[...] = x[tail].reshape(plan.r0, QUAD)
        _einsum("Gcg->c", plan.cc, order="C", out=plan.p)
    else:
        cascade = plan.cascade
        at, end = plan.cut[2:]
        if plan.left:
            cascade.top[-plan.left:, :LANES] = x[at:end].reshape(plan.left, LANES)
        cascade.run(x[:at].reshape(plan.k, QUAD), plan.p)
    if plan.idx is None:
        return _einsum("qj->", plan.lanes, order="C")
    rest, dst = plan.rest
    dst[...] = x[rest]
    return _einsum("ia->", plan.gather.take(plan.idx), order="C")


# -- many contiguous rows -------------------------------------------------------------------
#
# A row's last stages: lane j is the chain of its items (P0_j.. P3_j, the left vectors after
# P0_j; one left vector goes before P0_j instead: its first addition commutes), and the row's
# sum the chain of the tail floats and the lanes. Under CC_ROWS rows one chain of chains does
# both: `hia->h` over b (H, items, chains) adds, per row, the chains in order, each from 0
# (b's column 0 is the tail, columns 1..8 the lanes; with no tail b is the lanes' items). From
# CC_ROWS rows (that einsum's inner loops are short) the rows go across instead: the lanes'
# items copied into (items, 8, H), the lanes one einsum into `fin` (tail + 8, H), the rows'
# chains a second, each along whole rows of H floats.

CC_ROWS = 48   # (16 when rows have tail floats: the chain of chains then needs copies too)


class _RowsPlan:
    __slots__ = ("k", "full", "r0", "left", "fold", "m", "s", "z", "z_left", "p", "items", "b",
                 "b_tail", "b_left", "b_p", "fin", "fin_lanes", "cut", "short")


@_Plans
def _rows_plan(H, n):
    """rows_sum's plan for H rows of n floats (n < 8192: at most one level of runs)."""
    plan = _RowsPlan()
    vecs, m = divmod(n, LANES)
    k, left = divmod(vecs, ILP)
    s = step(k)
    full, r0 = divmod(k, s)
    count = full + (r0 > 0)
    plan.k, plan.full, plan.r0, plan.left, plan.m, plan.s = k, full, r0, left, m, s
    plan.cut = (full * s * QUAD, k * QUAD, k * QUAD + LANES * left)
    plan.short = _SHORT[n] if not vecs else None
    plan.z = plan.z_left = plan.p = plan.b_p = plan.b_left = plan.b_tail = plan.fin = None
    plan.fold = 0
    if not vecs:   # under 8 floats: row_sum's scalar order, one chain (strided: in order)
        plan.b = np.zeros((H, max(n, 2), 2), _F32)   # never a size-1 axis
        plan.b_tail = plan.b[:, :n, 0]
        return plan
    first = int(left == 1)   # the left vector's row
    items = max(left if not k else ILP + first, 2)   # never a size-1 axis
    across = H >= CC_ROWS or H >= 16 and m
    if across:   # the lanes' items and `fin` across the rows
        plan.items = np.zeros((items, LANES, H), _F32)
        plan.fin = np.zeros((m + LANES, H), _F32)
        plan.b_tail = plan.fin[:m].T
        plan.fin_lanes = plan.fin[m:]
        lanes = plan.items.transpose(2, 0, 1)   # (H, items, 8), for the views below
    elif m:
        plan.b = b = np.zeros((H, max(items, m), 1 + LANES), _F32)
        plan.b_tail = b[:, :m, 0]
        lanes = b[:, :, 1:]
    else:
        plan.b = lanes = np.zeros((H, items, LANES), _F32)
    if not k:   # the left vectors are the lanes' items
        plan.b_left = lanes[:, :left]
        return plan
    if left == 1:
        plan.b_left = lanes[:, 0]
    if m or across:   # P made contiguous, then copied to its items
        plan.p = np.zeros((H, QUAD), _F32)
        plan.b_p = lanes[:, first:first + ILP]
    else:
        plan.p = lanes[:, first:first + ILP].reshape(H, QUAD)   # a view: P's 4 vectors are lane items
    plan.fold = left if left > 1 else 0
    if count + plan.fold > 1:   # the runs' sums (and the left vectors after them), chained
        plan.z = np.zeros((H, count + plan.fold, QUAD), _F32)
        if plan.fold:
            plan.z_left = plan.z[:, count:, :LANES]
    return plan


def rows_sum(x2):
    """vectorized_inner_sum of every row of x2 (H, n), rows contiguous, n < 8192 (a numpy
    array of H sums)."""
    H, n = x2.shape
    plan = _rows_plan(H, n)
    if plan.short is not None:
        plan.b_tail[...] = x2[:, plan.short]
        return _einsum("hia->h", plan.b, order="C")
    body, at, end = plan.cut
    k = plan.k
    if not k:
        plan.b_left[...] = x2[:, :end].reshape(H, plan.left, LANES)
    else:
        z = plan.z
        if z is None:   # one run or a part of one: P is its chain
            _einsum("hpc->hc", x2[:, :at].reshape(H, k, QUAD), out=plan.p)
        else:
            full = plan.full
            if full:
                _einsum("hgpc->hgc", x2[:, :body].reshape(H, full, plan.s, QUAD), out=z[:, :full])
            if plan.r0:
                _einsum("hpc->hc", x2[:, body:at].reshape(H, plan.r0, QUAD), out=z[:, full])
            if plan.fold:
                plan.z_left[...] = x2[:, at:end].reshape(H, plan.fold, LANES)
            _einsum("hic->hc", z, out=plan.p)
        if plan.b_left is not None:
            plan.b_left[...] = x2[:, at:end]
        if plan.b_p is not None:
            plan.b_p[...] = plan.p.reshape(H, ILP, LANES)
    if plan.m:
        plan.b_tail[...] = x2[:, end:]
    if plan.fin is None:
        return _einsum("hia->h", plan.b, order="C")
    _einsum("qjh->jh", plan.items, out=plan.fin_lanes)
    return _einsum("ih->h", plan.fin)


# row_sum's order of the elements of a row under LANES floats: the first of 4 partial sums,
# the leftover elements added to it, then the other 3
_SHORT = [np.array(list(range(n)) if n < ILP else [0] + list(range(ILP, n)) + [1, 2, 3], np.intp)
          for n in range(LANES)]


# -- a few long rows ------------------------------------------------------------------------


@_Plans
def _long_plan(H, n):
    """rows_long's plan: the cascade of every row's quads at once (lanes (H, 32)), the left
    vectors the top's last items; b (H, items, chains) for the lanes and tails."""
    vecs, m = divmod(n, LANES)
    k, left = divmod(vecs, ILP)
    cascade = _Cascade(k, (H, QUAD), extra=left, keep_top=True)
    if m:
        b = np.zeros((H, max(m, ILP), 1 + LANES), _F32)
        p = np.zeros((H, QUAD), _F32)
    else:
        b = np.zeros((H, ILP, LANES), _F32)
        p = b.reshape(H, QUAD)
    return k, left, m, cascade, p, b


def rows_long(x2):
    """vectorized_inner_sum of each of a few long contiguous rows (H, n >= 32), as rows_sum."""
    H, n = x2.shape
    k, left, m, cascade, p, b = _long_plan(H, n)
    at, end = k * QUAD, k * QUAD + LANES * left
    if left:
        cascade.top[-left:, :, :LANES] = x2[:, at:end].reshape(H, left, LANES).transpose(1, 0, 2)
    cascade.fill_rows(x2[:, :at].reshape(H, k, QUAD).transpose(1, 0, 2), H)
    _einsum(cascade.sub1, cascade.top, out=p.reshape(H, QUAD))
    if m:
        b[:, :ILP, 1:] = p.reshape(H, ILP, LANES)
        b[:, :m, 0] = x2[:, end:]
    return _einsum("hia->h", b, order="C")
