"""The limits of a run (SPEC 2.5) and the one budget every expensive operation charges.

A run's work is charged *before* it is done: a tensor op charges its elements
(flops for matmul, solve, inverse, det) before numpy runs, a Python-level scan
(`in`, `count`, comparing or printing a nested value) before it starts, each
graph node as it is made. So a refusal comes before the cost, not after it.

`limited(limits)` sets the limits for a block (a run and what a command computes
from it); outside any block only the element limit holds and work is not counted,
so the engine used as a library is not metered.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager

from .errors import LimitError

# The work unit: about the CPU time of one token the interpreter runs (~150 ns on the
# 2-core machine of benchmarks/README.md), so that the default budget, 10^6 steps times
# WORK_PER_STEP units, ends any program within about 5 s of CPU (issue 26). Every rate
# below is measured against it by benchmarks/cost_calibration.py, which prints the CPU
# time per unit of each op family and fails on one charged below its time.
#
# Steps count loop iterations and calls, so a loop whose body is 10^4 statements, one long
# expression, or `zeros(10**8)` would do 10^4 times the work of `while True: pass` per
# step. The interpreter charges each statement run its tokens, each Python list or string
# 1 per 32 items; the engine each tensor op its elements or flops (ops/costs.py), each
# graph node NODE_WORK and each op recorded in no graph OP_WORK; this many per step lets a
# 20-token loop body run 10^6 iterations.
WORK_PER_STEP = 20
# Elements of a cheap elementwise op (`x * y`, 0.8-3 ns each with the result's allocation,
# as the machine's load goes) per unit; slower ops weigh more (ops/costs.py:
# ELEMENTWISE_WEIGHTS, flops per element).
ELEMENTS_PER_WORK = 64
# Operands below this many elements are not charged by elements: their time is the op's
# own (OP_WORK, NODE_WORK), and the per-op hot path (ops/apply.py) reads no cost for them.
FREE_ELEMENTS = 1024
ITEMS_PER_WORK = 32        # a Python-level scan of 32 items costs about one token
# Walking a nested value item by item (measuring it, then repr, compare, JSON) costs
# ~50-200 ns an item in Python's C code: about 4 items per token.
WALK_ITEMS_PER_WORK = 4
# Python numbers made from an array or read into one (`tolist()`, `np.array(list)`): 30-150
# ns each as the machine's load goes, two to a unit.
NUMBERS_PER_WORK = 2
# Making a graph node, or running one backward, costs ~3-5 us with the op (a scalar chain:
# ~100-130 ns a unit); up to ~6 us with the memory a large retained graph faults in.
NODE_WORK = 40
# A backward step run with create_graph, beside its NODE_WORK (the nodes its rule makes are
# charged by `apply` as they are made): the graph it builds outlives the call, and nested
# differentiation (30 nested `autograd.grad(create_graph=True)`, `grad --order 30`,
# torch.func.grad 25 deep) walks it and doubles it at each order, so the last order run
# costs as much as all the earlier ones. Charged unit for unit, those ran 3-4.5 s of CPU to
# the step limit at ~160 ns a unit (graphs of 10^5 nodes and more); this more than doubles
# their units and ends them in 1.1-1.7 s, a margin for slower machines. A backward without
# create_graph does not pay it (the engine picks the step's charge once per call), and one
# with it pays it once per node (d2y/dx2 through 1,000 ops: under 2% of the budget).
CREATE_GRAPH_STEP_WORK = 120
# A forward-mode tangent computed on arrays (jvp, jacfwd, hessian's outer level: ops/dual.py
# charges it, as `apply` charges no rule run on arrays), per input with a tangent and beside
# its elements: ~6-11 us of Python per scalar op. A scalar chain's jvp took 3-4x its
# forward's time and was charged nothing more; hessian of hessian ran 6 s to the limit.
TANGENT_WORK = 80
# An op that records no node (no input requires grad, or no_grad): ~2-3 us of dispatch,
# promotion and wrapping beside the tokens that called it, and up to twice that on a
# slower or loaded machine (`x = x * 1.0 * ...` in a loop spent 7 s of CI's CPU at 12,
# 2.1-4.2 s here at 24, 1.9-2.0 s at 32).
OP_WORK = 32

# A command that runs the program more than once (a run per --points line, per plot sample
# that is not computed in one vector run) has a total besides each run's budget: this many
# runs' worth (about 80 s of CPU at the defaults), so that a million --points lines of a
# 5 s program end in minutes with an error, not in weeks. It moves with --max-steps.
COMMAND_RUNS = 16

# Nesting of a value built at run time (`t = (t,)` in a loop): Python's own hash,
# compare and repr recurse in C once per level, and crash the process (not a
# RecursionError) somewhere past 10^5 levels.
MAX_VALUE_DEPTH = 1000

# Length of a Python list, tuple or string a program builds (`[0.] * n`, `list(range(n))`,
# `x.tolist()`, `s + s` in a loop): large enough for any tensor literal a person writes,
# small enough that a doubling loop stops long before memory does.
MAX_LIST_ITEMS = 10_000_000


class Limits:
    """Per-run budgets of SPEC 2.5, each changeable by a command-line option.

    Frozen, compared and hashed by value, as the dataclass it was (making that cost ~1 ms
    at every start-up). The class attributes are the defaults (`WorkBudget` reads one).
    """

    max_elements: int = 10**8
    max_steps: int = 10**6

    def __init__(self, max_elements: int = 10**8, max_steps: int = 10**6):
        object.__setattr__(self, "max_elements", max_elements)
        object.__setattr__(self, "max_steps", max_steps)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.max_elements, self.max_steps) == (other.max_elements, other.max_steps)

    def __hash__(self):
        return hash((self.max_elements, self.max_steps))

    def __repr__(self):
        return (f"{self.__class__.__qualname__}(max_elements={self.max_elements!r}, "
                f"max_steps={self.max_steps!r})")

    @property
    def max_work(self) -> int:
        return self.max_steps * WORK_PER_STEP


class WorkBudget:
    """The run's work budget, the one every expensive operation charges: the limits in force
    and the work charged against them so far.

    One object for the process, so the hot paths hold it once (`work` is a plain
    attribute the interpreter adds to); `limited` swaps its fields for a block.
    """

    __slots__ = ("limits", "max_elements", "max_work", "work", "spent", "max_total")

    def __init__(self):
        self.limits = None
        self.max_elements = Limits.max_elements
        self.max_work = float("inf")
        self.work = 0
        self.spent = 0                   # the command's finished runs (`command_total`)
        self.max_total = float("inf")

    def check(self) -> None:
        """Refuse if the work charged so far is past the limit."""
        if self.work > self.max_work:
            raise self.exhausted()

    def charge(self, units) -> None:
        """Charge `units` of work (tokens' worth) before doing it."""
        self.work += units
        if self.work > self.max_work:
            raise self.exhausted()

    def charge_elements(self, count) -> None:
        """Charge an engine operation over `count` elements (ops/costs.py's measure)."""
        self.work += count // ELEMENTS_PER_WORK
        if self.work > self.max_work:
            raise self.exhausted()

    def charge_items(self, count) -> None:
        """Charge a Python-level scan or copy of `count` items."""
        self.work += count // ITEMS_PER_WORK
        if self.work > self.max_work:
            raise self.exhausted()

    def check_elements(self, count: int) -> None:
        """Refuse a tensor over the element limit (before allocating it), and charge it."""
        if count > self.max_elements:
            raise LimitError(
                f"a tensor of {count} elements exceeds the limit of {self.max_elements} elements",
                hint="raise the limit with --max-elements",
            )
        if count >= FREE_ELEMENTS:
            self.charge_elements(count)

    def node_made(self) -> None:
        """Charge one graph node (the run's graph, and what a command builds after it)."""
        self.work += NODE_WORK
        if self.work > self.max_work:
            raise self.exhausted()

    def exhausted(self) -> LimitError:
        steps = self.limits.max_steps if self.limits is not None else 0
        if self.limits is not None and self.max_work < self.limits.max_work:
            return CommandLimitError(
                f"the command's runs together ran more than {steps * COMMAND_RUNS} steps "
                f"({COMMAND_RUNS} times --max-steps: the total of its --points lines or plot "
                "samples); the rest is not run",
                hint="raise the limit with --max-steps (the total moves with it)")
        return LimitError(f"the program ran more than {steps} steps (loop iterations plus "
                          "function calls, where a long loop body, a large tensor, a long scan "
                          "or a graph node counts as several)",
                          hint="raise the limit with --max-steps")


class CommandLimitError(LimitError):
    """The command's total (`command_total`) is spent: no later run of it can start."""


budget = WorkBudget()

# Set by the command line's backstop (cli/backstop.py): the process's memory ceiling as
# shown in the message, and a clock armed (True) and disarmed (False) around each run.
MEMORY_CEILING = [None]
RUN_CLOCK = [None]


def out_of_memory_message() -> str:
    limit = MEMORY_CEILING[0]
    return f"out of memory (limit {limit})" if limit else "out of memory"


@contextmanager
def limited(limits: Limits):
    """Hold everything inside the block to `limits`, with fresh work counters; a
    MemoryError inside becomes the LimitError "out of memory".

    Re-entering with the limits already in force keeps the counters: a run inside a
    command's block (`drive`) charges the same budget as the answer computed after it.
    """
    b = budget
    if b.limits is limits:
        yield b
        return
    saved = (b.limits, b.max_elements, b.max_work, b.work)
    b.limits, b.max_elements = limits, limits.max_elements
    b.max_work = min(limits.max_work, b.max_total - b.spent)   # the command's total too
    b.work = 0
    clock = RUN_CLOCK[0]
    try:
        if clock is not None:
            clock(True)
        yield b
    except MemoryError:
        raise LimitError(out_of_memory_message(),
                         hint="raise the limit with --max-memory, or lower --max-elements") \
            from None
    finally:
        if clock is not None:
            clock(False)
        b.spent += b.work
        b.limits, b.max_elements, b.max_work, b.work = saved


@contextmanager
def command_total(limits: Limits):
    """One command's runs (each in `limited`) held to COMMAND_RUNS runs' budgets together."""
    b = budget
    saved = (b.spent, b.max_total)
    b.spent, b.max_total = 0, limits.max_work * COMMAND_RUNS
    try:
        yield
    finally:
        b.spent, b.max_total = saved


@contextmanager
def element_limit(max_elements: int):
    """Only the element limit, for a block (a test, a library caller)."""
    b = budget
    saved = b.max_elements
    b.max_elements = max_elements
    try:
        yield
    finally:
        b.max_elements = saved


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while building a large acyclic structure (a
    syntax tree, a graph model): collections triggered by its 10^5 objects find nothing
    and would double the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# -- values ------------------------------------------------------------------------

_CONTAINER_SET = {list, tuple, dict, set}


def register_container(cls) -> None:
    """A container class of the language's (OrderedDict, defaultdict: dicts) that the walks
    below look into as they look into a dict."""
    _CONTAINER_SET.add(cls)


def measure(value, limit_depth: int = MAX_VALUE_DEPTH) -> tuple:
    """(depth, size, distinct) of a nested list/tuple/dict: `size` counts every item as
    often as a walk over it (repr, ==, hash, JSON) visits it, shared sub-structures in
    full; `distinct` is what measuring cost, each distinct container's items once. A
    container reached again while inside itself (a cycle) counts once, as repr's `[...]`.

    Raises LimitError if the value nests deeper than `limit_depth`.
    """
    if value.__class__ not in _CONTAINER_SET:
        return 0, 1, 0
    memo = {id(value): None}   # None: being walked
    keep = [value]             # ids stay valid while the walk runs
    kids = _children(value)
    stack = [(value, kids, iter(kids))]
    distinct = 0
    while stack:
        node, kids, todo = stack[-1]
        for child in todo:
            if child.__class__ in _CONTAINER_SET and id(child) not in memo:
                if len(stack) >= limit_depth:
                    raise too_deep(limit_depth)
                memo[id(child)] = None
                keep.append(child)
                grand = _children(child)
                stack.append((child, grand, iter(grand)))
                break
        else:
            stack.pop()
            depth, size = 1, len(node) + 1
            distinct += size
            for child in kids:
                if child.__class__ in _CONTAINER_SET:
                    got = memo[id(child)]
                    if got is not None:
                        size += got[1]
                        if got[0] >= depth:
                            depth = got[0] + 1
            if depth > limit_depth:
                raise too_deep(limit_depth)
            memo[id(node)] = (depth, size)
    depth, size = memo[id(value)]
    return depth, size, distinct


def _children(value):
    """The items of a container to look into: none if it holds no container."""
    items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
    if _CONTAINER_SET.isdisjoint(map(type, items)):
        return ()
    return items


def too_deep(limit: int = MAX_VALUE_DEPTH) -> LimitError:
    return LimitError(f"a value nested more than {limit} levels deep",
                      hint="values may nest at most this deep; the limit is fixed")


def check_built(value) -> None:
    """Refuse a container nested too deeply as it is built; charge the measuring."""
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    else:
        items = value
    if not _CONTAINER_SET.isdisjoint(map(type, items)):
        budget.charge(measure(value)[2] // WALK_ITEMS_PER_WORK)


def check_walk(value) -> None:
    """Before an operation that walks `value` (hash, compare, print, str, JSON, a scan):
    refuse it if nested too deeply, and charge the walk, shared parts in full."""
    if value.__class__ in _CONTAINER_SET:
        depth, size, distinct = measure(value)
        budget.charge((size + distinct) // WALK_ITEMS_PER_WORK)
    elif value.__class__ is str:
        budget.charge_items(len(value))
