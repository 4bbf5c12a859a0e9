"""A bounded fuzz run with a fixed seed (the long run is `benchmarks/fuzz.py --minutes N`),
and tests that the fuzzer's own checks can fail."""
from __future__ import annotations

import resource

import pytest

import fuzzgen
from hardening_helpers import SLOWNESS

SEED = 20240607
ROUNDS = 500
BUDGET_S = 25.0  # of CPU: stop early on a slow machine rather than slow the suite


def cpu_seconds() -> float:
    """CPU time of this process and of the processes it ran (the fuzzer runs a few for real):
    what the programs cost, whatever else the machine is running."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def test_bounded_fuzz_run_finds_nothing(tmp_path):
    fuzzer = fuzzgen.Fuzzer(SEED, workdir=str(tmp_path))
    start = cpu_seconds()
    for _ in range(ROUNDS):
        fuzzer.round()
        if cpu_seconds() - start > BUDGET_S:
            break
    tally = fuzzer.tally
    report = "\n\n".join(f.describe() for f in tally.failures[:5])
    assert not tally.failures, f"{len(tally.failures)} failures in {tally.programs} programs:\n{report}"
    # as many as a reference machine runs in the budget, fewer on a slower one
    assert tally.programs >= 200 / SLOWNESS
    assert tally.gradient_checks >= 50 / SLOWNESS
    assert set(tally.codes) <= {0, 1, 2, 3, 4}
    assert tally.codes.get(0, 0) > 0 and tally.codes.get(3, 0) > 0  # both kinds were exercised


def test_generated_programs_run_and_agree_with_finite_differences():
    generator = fuzzgen.Generator(7)
    for _ in range(20):
        case = generator.program()
        assert fuzzgen.check_gradients(case) == [], case.source
        assert case.used, case.source


def test_the_gradient_check_can_fail():
    """A custom Function with a wrong backward is caught, at the right input and element."""
    source = """
x = [0.5, 1.5]
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t
    @staticmethod
    def backward(ctx, g):
        t, = ctx.saved_tensors
        return g * 3 * t
out = Bad.apply(x).sum()
"""
    found = fuzzgen.check_gradients(fuzzgen.Case(source, {"x": [0.5, 1.5]}))
    assert len(found) == 2
    assert found[0].startswith("dout/dx[0]: backward 1.5") and "finite differences 1.0" in found[0]


def test_the_gradient_check_skips_a_kink():
    found = fuzzgen.check_gradients(fuzzgen.Case("x = [0., 1.]\nout = abs(x).sum()\n",
                                                 {"x": [0.0, 1.0]}))
    assert found == []


@pytest.mark.parametrize("outcome, problem", [
    (fuzzgen.Outcome(["eval"], 70, "", "internal error", 0.1), "exit code 70"),
    (fuzzgen.Outcome(["eval"], 3, "", "Traceback (most recent call last):", 0.1), "a traceback"),
    (fuzzgen.Outcome(["eval", "--json"], 0, '{"x": NaN}', "", 0.1), "does not parse"),
    (fuzzgen.Outcome(["eval", "--json"], 3, "", "error", 0.1), "no error document"),
    (fuzzgen.Outcome(["eval"], None, "", "", 20.0, timed_out=True), "no answer within"),
])
def test_the_run_properties_can_fail(outcome, problem):
    assert any(problem in p for p in fuzzgen.problems(outcome))


def test_a_hang_is_stopped_and_reported():
    outcome = fuzzgen.run_cli(["run", "-e", "while True:\n    pass\n", "--max-steps", "10000000000"],
                              timeout=0.5)
    assert outcome.timed_out and fuzzgen.problems(outcome) == ["no answer within 20 s"]


def test_mutants_differ_from_their_seeds():
    mutator = fuzzgen.Mutator(3)
    seeds = {text for _, text in mutator.seeds}
    mutants = [mutator.mutant()[1] for _ in range(50)]
    assert sum(m not in seeds for m in mutants) >= 45
    assert any(isinstance(m, bytes) for m in mutants)
