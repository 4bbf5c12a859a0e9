"""Issue 19, the resource model: each reproducer, and one case per root cause, as a real
`python -m gradcli` process under a CPU-time and memory rlimit (set in preexec_fn), so a
regression ends fast with a failure instead of hanging or swapping the machine.

Limits are set low on the command line where that exercises the same mechanism
(`--max-steps 1000` charges a matmul the same way the default does, only sooner).
"""
from __future__ import annotations

import json

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CPU_SECONDS = 20          # the child's own CPU time: a hang ends here, as a failure
MEMORY = 3 * 2**30        # address space: numpy and Python start in ~1 GB of it


def _limit_child():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def gradcli(*args, stdin=b"", stdout=subprocess.PIPE, stdin_fd=None, close_fds_extra=()):
    """Run `python -m gradcli ARGS` limited; returns (exit code, stdout, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "gradcli", *args], cwd=ROOT, input=None if stdin_fd else stdin,
        stdin=stdin_fd, stdout=stdout, stderr=subprocess.PIPE, preexec_fn=_limit_child,
        timeout=CPU_SECONDS * 4, env={**os.environ, "PYTHONPATH": str(ROOT)})
    out = proc.stdout.decode() if isinstance(proc.stdout, bytes) else ""
    err = proc.stderr.decode()
    assert proc.returncode != -9 and proc.returncode != -24, f"killed by the rlimit: {err[-500:]}"
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    return proc.returncode, out, err


def refused(*args, message, code=3, stdin=b""):
    got, out, err = gradcli(*args, stdin=stdin)
    assert got == code, (got, err[-2000:])
    assert message in err, err[-2000:]
    return out, err


SHARED_60 = "a = [1.0]\nfor i in range(60):\n    a = [a, a]\n"
LOW = ("--max-steps", "1000")


# --- 1. a value nested 200,000 deep crashed the tuple hash (exit 139) -------------------

def test_deep_value_is_refused_when_built_not_hashed():
    refused("run", "-e", "t = (0,)\nfor i in range(200000):\n    t = (t,)\nd = {t: 1}",
            message="<expr>:3:9: error: a value nested more than 1000 levels deep")


def test_deep_value_built_by_append_is_refused():
    refused("run", "-e", "a = []\nfor i in range(5000):\n    b = []\n    b.append(a)\n    a = b",
            message="nested more than 1000 levels deep")


# --- 2. the engine calling a program's object -------------------------------------------

@pytest.mark.parametrize("hook", ["5", "torch", "H", "len", "H.apply"])
def test_hook_that_cannot_take_a_gradient_is_a_program_error(hook):
    source = ("class H(autograd.Function):\n    pass\n"
              f"x = 2.0\ny = x * 1.0\ny.register_hook({hook})\nz = y * y")
    refused("backward", "-e", source, message="error: ")


def test_leaf_hook_that_is_a_number():
    # a number literal in the expression commands is of the default float dtype (SPEC 2.1)
    refused("backward", "-e", "x = 2.0\nx.register_hook(5)\nz = x * x",
            message="hook: 'float' object is not callable")


def test_optimizer_param_groups_poisoned():
    base = "w = tensor([1.0], requires_grad=True)\no = optim.SGD([w], lr=0.1)\n"
    for poison in ('o.param_groups[0]["lr"] = "a"', "o.param_groups[0] = 5.0",
                   'o.param_groups[0] = {"params": [w]}'):
        refused("run", "-e", base + poison + "\n(w * w).sum().backward()\no.step()",
                message="<expr>:5:3: error: ")


def test_base_optimizer_step():
    refused("run", "-e", "w = tensor([1.0], requires_grad=True)\noptim.Optimizer([w], {}).step()",
            message="Optimizer.step() is not implemented")


FUNCTION = ("class F(autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
            "        ctx.{attr} = {value}\n        return x * 2\n    @staticmethod\n"
            "    def backward(ctx, g):\n        return g * 2\n"
            "x = tensor([1.0], requires_grad=True)\ny = F.apply(x)")


@pytest.mark.parametrize("attr, value", [("result", '"abc"'), ("variable", "x"),
                                         ("next_functions", "()")])
def test_ctx_cannot_shadow_what_the_engine_reads(attr, value):
    refused("graph", "--values", "-e", FUNCTION.format(attr=attr, value=value),
            message=f"cannot set attribute '{attr}' of ctx")


def test_a_failing_point_keeps_the_stream_going():
    source = "x = 2.0\nif x > 2.5:\n    x.register_hook(5)\ny = x * x"
    got, out, err = gradcli("backward", "-e", source, "--points", "-",
                            stdin=b'{"x": 3.0}\n{"x": 1.0}\n')
    lines = out.splitlines()
    assert got == 3 and len(lines) == 2, (got, out, err)
    assert '"error"' in lines[0] and '"grads"' in lines[1]


def test_step_closure_result_is_checked():
    refused("run", "-e", "w = tensor([1.0], requires_grad=True)\no = optim.SGD([w], lr=0.1)\n"
                         "print(o.step(autograd.Function))",
            message="the closure returned a Function")


# --- 3. MemoryError -----------------------------------------------------------------------

def test_reduction_of_an_empty_tensor_is_charged_before_numpy_allocates():
    refused("eval", "-e", "x = zeros(10**10, 0)\ny = x.sum(1)",
            message="<expr>:2:7: error: a tensor of 10000000000 elements exceeds the limit")


def test_out_of_memory_is_exit_3_with_the_limit():
    refused("eval", "--json", "-e", "x = ones(10**4, 10**4)", "--max-memory", "400M",
            message="out of memory (limit 400 MiB, --max-memory)")


def test_out_of_memory_under_points_keeps_the_stream_going():
    got, out, err = gradcli("eval", "-e", "n = 10.0\ny = zeros(int(n.item()), 1000)",
                            "--points", "-", "--max-memory", "300M",
                            stdin=b'{"n": 100000}\n{"n": 10}\n')
    lines = out.splitlines()
    assert got == 3 and len(lines) == 2, (got, out, err)
    assert "out of memory" in lines[0] and '"values"' in lines[1]


def test_tolist_of_a_large_tensor_is_refused_before():
    refused("run", "-e", "x = ones(2**24)\nprint(x.tolist())", message="tolist() of 16777216")


def test_sum_of_a_shared_list_of_lists():
    refused("run", "-e", "print(sum([[0]*10**6]*10**6, []))", message="ran more than")


# --- 4. hangs -----------------------------------------------------------------------------

def test_float_in_a_huge_range():
    refused("run", "-e", "print(0.5 in range(10**18))", message="<expr>:1:11: error: the program ran more")


def test_grad_order_is_checked_before_any_sum():
    refused("grad", "--wrt", "x", "--order", "100000000000", "-e", "x = 2.0\ny = x * x",
            message="100000000000 backward passes")
    refused("grad", "--wrt", "x", "--order", "100000000000", "-e",
            "x = [2.0, 1.0]\ny = (x * x).sum()", message="more than 2**4096 partial derivatives")


@pytest.mark.parametrize("use", ["print(a == a)", "print(a)", "s = str(a)", "s = f'{a}'",
                                 "print(1 in a)", "n = a.count(0)"])
def test_shared_list_walk_is_refused_before_it_is_walked(use):
    refused("run", "-e", SHARED_60 + use, message="ran more than")


def test_shared_list_is_left_out_of_json():
    got, out, err = gradcli("eval", "--json", "-e", SHARED_60 + "x = 2.0")
    assert got == 0, (got, err)
    values = json.loads(out)["values"]
    assert values["x"] == 2.0 and "a" not in values


@pytest.mark.parametrize("loop", ["a.count(5)", "a.insert(0, 1)", "a.pop(0)", "a.index(0)"])
def test_sequence_scans_are_charged(loop):
    refused("run", *LOW, "-e", f"a = [0] * 10**6\nfor i in range(10**6):\n    {loop}",
            message="ran more than 1000 steps")


def test_int_of_a_long_string_is_not_a_huge_int():
    refused("run", "-e", "x = int('1' * 10**6, 2)\nprint(x % 7)", message="too large to convert")
    got, out, err = gradcli("run", "-e", "print(int('1' * 100, 2) % 7)")
    assert got == 0 and out.strip() == "2.0", (got, out, err)


def test_matmul_is_charged_its_flops():
    refused("run", *LOW, "-e", "for i in range(100):\n    y = ones(500, 500) @ ones(500, 500)",
            message="<expr>:2:24: error: the program ran more than 1000 steps")


@pytest.mark.parametrize("op", ["inverse(a)", "det(a)", "torch.linalg.solve(a, a)"])
def test_cubic_linear_algebra_is_charged(op):
    refused("run", *LOW, "-e", f"a = ones(3000, 3000)\nb = {op}", message="ran more than 1000 steps")


def test_nested_create_graph_grads_are_charged():
    source = ("w = tensor([1.0], requires_grad=True)\ny = exp(w).sum()\nfor i in range(30):\n"
              "    (g,) = autograd.grad(y, w, create_graph=True)\n    y = (g * g * w).sum()")
    refused("run", "--max-steps", "20000", "-e", source, message="ran more than 20000 steps")


def test_backward_steps_render_in_linear_time():
    got, out, err = gradcli("backward", "--steps", "-e",
                            "x = 2.0\ny = x\nfor i in range(5000):\n    y = y * 1.0001")
    assert got == 0 and out.count("step ") == 5001, (got, err)


def test_error_rendering_under_points_is_linear(tmp_path):
    program = tmp_path / "long.py"
    program.write_text("x = 1.0\n" + "# a comment\n" * 20000 + "y = x * q")
    points = b'{"x": 1.0}\n' * 2000
    got, out, err = gradcli("eval", str(program), "--points", "-", stdin=points)
    assert got == 3 and out.count('"error"') == 2000 and err.count("unknown name 'q'") == 2000


# --- 5. streams ---------------------------------------------------------------------------

def test_stdout_full():
    with open("/dev/full", "wb") as full:
        got, _, err = gradcli("eval", "-e", "x = 1.0", stdout=full)
    assert got == 2 and err.strip() == \
        "gradcli: error: cannot write to standard output: No space left on device"


def test_stdout_closed():
    proc = subprocess.run([sys.executable, "-c",
                           "import os, sys, runpy; os.close(1); sys.argv = ['gradcli', 'eval', "
                           "'-e', 'x = 1.0']; runpy.run_module('gradcli', run_name='__main__')"],
                          cwd=ROOT, stderr=subprocess.PIPE, preexec_fn=_limit_child, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and proc.stderr.decode().strip() == \
        "gradcli: error: standard output is closed"


def test_stdin_closed():
    proc = subprocess.run("exec 0<&-; exec " + sys.executable + " -m gradcli eval -", shell=True,
                          cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                          preexec_fn=_limit_child, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "standard input: it is closed" in err and "Traceback" not in err


def test_control_characters_are_escaped():
    got, out, err = gradcli("run", "-e", 'x = 1\ny = "\x1b[31m\x07" + z')
    assert got == 3 and "\x1b" not in err and "\x07" not in err and '"\\x1b[31m\\x07"' in err
    got, out, err = gradcli("run", "/tmp/no\x1bsuch\x07file.py")
    assert got == 2 and "no\\x1bsuch\\x07file.py" in err and "\x1b" not in err


# --- the backstop -------------------------------------------------------------------------

def test_max_seconds_ends_a_run_with_exit_3():
    refused("run", "--max-seconds", "0.5", "--max-steps", "1000000000000", "-e",
            "while True:\n    x = 1", message="more than 0.5 seconds of CPU time")


@pytest.mark.parametrize("option", [("--max-memory", "lots"), ("--max-seconds", "nan"),
                                    ("--max-memory", "-1G")])
def test_backstop_options_are_checked(option):
    refused("eval", "-e", "x = 1.0", *option, message=f"{option[0]} ", code=2)


# --- 6. the small ones --------------------------------------------------------------------

@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x0c"])
def test_line_separators_in_a_comment_do_not_shift_the_error_line(separator):
    _, err = refused("run", "-e", f"# a{separator}b\nx = 1\ny = z", message="<expr>:3:5: error:")
    assert "  y = z\n" in err


def test_gradcheck_of_a_non_tensor_result():
    refused("run", "-e", "x = tensor([1.0], requires_grad=True)\n"
                         "print(autograd.gradcheck(lambda t: 'abc', (x,)))",
            message="the function returned a str")


@pytest.mark.parametrize("option", ["--eps", "--atol", "--rtol"])
def test_nan_tolerances_are_refused(option):
    refused("gradcheck", "-e", "x = 2.0\ny = x * x", "--wrt", "x", option, "nan",
            message=option, code=2)


def test_numpy_warnings_are_off():
    got, out, err = gradcli("eval", "-e", "x = zeros(0)\ny = x.mean()\nz = log(zeros(1) - 1)")
    assert got == 0 and "Warning" not in err and err == "", err


def test_bom_on_the_first_points_line():
    got, out, err = gradcli("eval", "-e", "x = 2.0\ny = x * x", "--points", "-",
                            stdin=b'\xef\xbb\xbf{"x": 3.0}\n')
    assert got == 0 and '"y":9.0' in out, (got, out, err)
