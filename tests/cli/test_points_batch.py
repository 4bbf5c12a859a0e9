"""`--points` in one run (issue 31.2): the batched answers are byte for byte the answers of
one run per point, for every command that takes --points, on many ops, in float64 and
float32; what the batch cannot answer runs point by point, and errors stay per line."""
import json
import math
import random
import zlib

import pytest

from gradcli.answers.batch import batchable
from gradcli.cli import points as points_module
from gradcli.lang import compile_program

from cli_helpers import invoke

UNARY = """exp log sin cos tan tanh sigmoid relu abs sqrt rsqrt reciprocal log1p expm1
    erf atan sinh cosh asin acos square neg softplus""".split()

# every elementwise function three ways (a function, torch's, a method), the arithmetic
# operators on tensors and numbers, powers, constants, a loop and updates in place
MANY = "\n".join(
    ["x = 0.7", "y = -1.3", "w = 2 * pi / 9", "acc = x * 0.0"]
    + [f"acc = acc + {op}(x * 0.3 + y * 0.1)" for op in UNARY]
    + [f"acc = acc - torch.{op}(y * 0.2 - w)" for op in UNARY]
    + [f"acc = acc * 0.5 + (x / 3 + w).{op}()" for op in UNARY]
    + ["p = x ** 2 + abs(y) ** 1.3 + 2 ** x - 1 / (1 + x * x) + (-x) * y",
       # the powers PyTorch computes by multiplying, those numpy's ** computes by sqrt, square
       # or reciprocal (in the backward: x ** (1.5 - 1)), 0 ** x
       "p = p + sin(x) ** 3 + (x * 1.1) ** -2 + exp(y) ** 0 + abs(x) ** 1.5 + abs(y) ** 3 "
       "+ (1 + x * x) ** 0.5 + x ** -1 + abs(y) ** -0.5 + 0 ** abs(x) + abs(x) ** pi",
       "for i in range(3):",
       "    p = p * 0.5 + sin(p) * i - w",
       "    p += x / (i + 1)",
       "z = acc + p"])
LOOP = """x = 0.5
y = 1.5
s = x
for i in range(20):
    s = sin(s) * y + x * 0.1
    s *= 0.9
z = s / 30
"""
STRAIGHT = """x = 1.0
y = 2.0
a = x * y + 1
b = cos(a) * x
c = tanh(b - y)
d = exp(-c * c) / y
z = log(d + 2) * sqrt(y * y + 1)
"""

COMMANDS = [
    ["eval"],
    ["backward"],
    ["backward", "--gradient", "2.5"],
    ["backward", "--inputs", "x"],
    ["grad", "--wrt", "x,y"],
    ["grad", "--wrt", "y", "--grad-outputs", "-0.5"],
    ["grad", "--wrt", "x,y", "--order", "2"],
    ["grad", "--wrt", "x", "--order", "3"],
    ["jacobian", "--wrt", "x,y"],
    ["jacobian", "--wrt", "x", "--mode", "auto"],
    ["hessian", "--wrt", "x,y"],
    ["hessian"],
]


def point_lines(seed: int, count: int, names=("x", "y")) -> str:
    """Random points, with the awkward numbers among them: 0, ints, the domain's edges,
    NaN and infinities, huge and tiny ones."""
    rng = random.Random(seed)
    special = [0.0, -0.0, 1, -1, 2, 1e-300, -1e-300, 1e300, 1e308, math.inf, -math.inf,
               math.nan, 0.5, 3]
    lines = []
    for k in range(count):
        point = {}
        for name in names:
            if rng.random() < 0.15:
                point[name] = rng.choice(special)
            elif rng.random() < 0.9:
                point[name] = rng.uniform(-3, 3)
        lines.append(json.dumps(point))
    return "\n".join(lines) + "\n"


@pytest.fixture
def made(monkeypatch):
    """The Batches each --points run made (None: every point ran alone)."""
    made = []
    real = points_module.Batches.make.__func__

    def spy(cls, *args):
        batches = real(cls, *args)
        made.append(batches)
        return batches
    monkeypatch.setattr(points_module.Batches, "make", classmethod(spy))
    return made


def per_point(monkeypatch, args, points):
    """The command with every point run alone (the path before batches)."""
    with monkeypatch.context() as m:
        m.setattr(points_module.Batches, "make", classmethod(lambda cls, *a: None))
        return invoke(*args, "--points", "-", input=points)


def both(monkeypatch, made, args, points):
    batched = invoke(*args, "--points", "-", input=points)
    alone = per_point(monkeypatch, args, points)
    assert batched.stdout == alone.stdout, args
    assert batched.exit_code == alone.exit_code
    return batched, made[-1]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_many_ops_byte_for_byte(monkeypatch, made, command, dtype):
    points = point_lines(zlib.crc32(" ".join(command + [dtype]).encode()), 60)
    result, batches = both(monkeypatch, made, [command[0], "-e", MANY, "--dtype", dtype, *command[1:]], points)
    assert batches is not None and batches.answered > 0 and not batches.off
    assert result.stdout.count("\n") == 60


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_straight_line_and_loop_byte_for_byte(monkeypatch, made, command):
    for program in (STRAIGHT, LOOP):
        result, batches = both(monkeypatch, made, [command[0], "-e", program, *command[1:]],
                               point_lines(7, 40))
        assert batches.answered > 0 and not batches.off


def test_bad_lines_stay_per_line_with_their_numbers(monkeypatch, made):
    points = ('{"x": 1}\n{"x": 2}\nnot json\n{"x": [1, 2]}\n\n{"q": 1}\n{"x": true}\n'
              '{"x": 10000000000000000000000000000000000000000000000000000000000000000000000000'
              '000000000000000000000000000000000000000000000000000000000000000000000000000000000'
              '000000000000000000000000000000000000000000000000000000000000000000000000000000000'
              '000000000000000000000000000000000000000000000000000000000000000000000000000000000'
              '0000000000000000000000}\n{"x": 3, "y": 4}\n{"y": 5}\n')
    result, batches = both(monkeypatch, made, ["grad", "-e", STRAIGHT, "--wrt", "x,y"], points)
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(docs) == 9 and result.exit_code == 2
    assert [("error" in d) for d in docs] == [False, False, True, True, True, True, True, False, False]
    assert "line 3" in docs[2]["error"]["message"] and "line 7" in docs[5]["error"]["message"]
    assert batches.answered > 0


def test_a_wrong_batch_is_caught_and_the_points_run_alone(monkeypatch, made):
    """A batch whose answer differs at its first point is not used (here made wrong on purpose,
    at every point: the check compares one point a batch, so it catches what differs for all,
    such as a type promotion or a kernel of another precision)."""
    from gradcli.answers import batch

    real = batch.grad

    def off_by_one(run, size, *args):
        result = real(run, size, *args)
        result.grads["x"]._data *= 1 + 2**-52
        return result
    monkeypatch.setattr(batch, "grad", off_by_one)
    points = "".join(json.dumps({"x": 1 + k / 7, "y": 2 - k / 9}) + "\n" for k in range(50))
    result, batches = both(monkeypatch, made, ["grad", "-e", STRAIGHT, "--wrt", "x,y"], points)
    assert batches.off and batches.answered == 0


def test_a_batch_that_fails_runs_its_points_alone(monkeypatch, made):
    """--max-elements 3 passes each point's run and fails the batch's vectors."""
    result, batches = both(monkeypatch, made, ["grad", "-e", STRAIGHT, "--wrt", "x", "--max-elements", "3"],
                           point_lines(5, 30))
    assert result.exit_code == 0 and batches.answered == 0 and batches.failures >= 1


@pytest.mark.parametrize("program", [
    "x = 1.0\nif x > 0:\n    y = x\nelse:\n    y = -x\n",             # control flow on the input
    "x = 1.0\nfor i in range(int(x)):\n    x = x + 1\n",            # a range an input decides
    "x = 1.0\nn = 3\nfor i in range(n):\n    x2 = x * 2\n",         # a range of a name
    "x = 1.0\ny = x.sum()\n",                                      # a reduction
    "x = 1.0\nprint(x)\ny = x * 2\n",                              # a print
    "x = 1.0\ny = x * rand(1)\n",                                  # randomness
    "x = [1.0, 2.0]\ny = x * 2\n",                                 # a vector input
    "x = 1.0\ny = x[0]\n",                                         # indexing
    "x = 1.0\nx = x * 2\n",                                        # an input reassigned
    "x = 1.0\nwhile True:\n    break\ny = x\n",                     # a while loop
    "x = 1.0\ndef f(a):\n    return a\ny = f(x)\n",                  # a call of a def
    "x = 1.0\ny = maximum(x, 0.5)\n",                              # a function outside the list
    "x = 1.0\ny = 2.0\nz = x ** y\n",                              # a tensor exponent
    "x = 1.0\nz = x ** (x * 0 + 2)\n",                              # a tensor exponent
    "x = 1.0\nfor i in range(3):\n    x2 = x ** i\n",             # a name as exponent
    "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x * 2\n",  # a PyTorch program
])
def test_programs_a_batch_cannot_answer_are_refused(program):
    assert not batchable(compile_program(program))


def test_programs_a_batch_answers():
    for program in (STRAIGHT, LOOP, MANY, "x = 1\ny = -2 * pi\nz = x * y\nz\n"):
        assert batchable(compile_program(program)), program


def test_refused_programs_give_the_same_lines(monkeypatch, made):
    program = "x = 1.0\ny = 2.0\nz = x * y if x > 0 else y\n"
    result, batches = both(monkeypatch, made, ["grad", "-e", program, "--wrt", "x,y"], point_lines(2, 20))
    assert batches is None


def test_set_values_and_points_together(monkeypatch, made):
    result, batches = both(monkeypatch, made, ["grad", "-e", LOOP, "--wrt", "x,y", "--set", "y=0.25"],
                           point_lines(9, 30, names=("x",)))
    assert batches.answered > 0


def test_symbolic_and_steps_run_point_by_point(monkeypatch, made):
    for args in (["backward", "-e", STRAIGHT, "--steps"], ["jacobian", "-e", STRAIGHT, "--wrt", "x",
                                                           "--mode", "forward"]):
        result, batches = both(monkeypatch, made, args, point_lines(4, 8))
        assert batches is None or batches.answered == 0


def test_nan_hints_per_point(monkeypatch, made):
    points = '{"x": -1}\n{"x": 1}\n{"x": -2}\n{"x": 3}\n'
    batched = invoke("grad", "-e", "x = 1.0\nz = sqrt(x)", "--wrt", "x", "--points", "-", input=points)
    alone = per_point(monkeypatch, ["grad", "-e", "x = 1.0\nz = sqrt(x)", "--wrt", "x"], points)
    assert batched.stdout == alone.stdout
    assert batched.stderr.count("hint:") == alone.stderr.count("hint:") == 2
    assert made[-1].answered == 3


def test_a_producer_that_waits_for_each_answer_gets_it():
    """Lines are batched only while more are waiting: a pipe fed one point at a time, each
    written after the answer of the one before, is answered point by point (no deadlock)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "gradcli", "grad", "-e", STRAIGHT, "--wrt", "x,y",
                             "--points", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    import threading

    watchdog = threading.Timer(120, proc.kill)  # a deadlock fails the test instead of hanging it
    watchdog.start()
    try:
        answers = []
        for k in range(4):
            proc.stdin.write((json.dumps({"x": 1 + k, "y": 2}) + "\n").encode())
            proc.stdin.flush()
            answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
    assert [a["point"]["x"] for a in answers] == [1, 2, 3, 4]
    alone = invoke("grad", "-e", STRAIGHT, "--wrt", "x,y", "--points", "-",
                   input="".join(json.dumps({"x": 1 + k, "y": 2}) + "\n" for k in range(4)))
    assert [json.loads(line) for line in alone.stdout.splitlines()] == answers
