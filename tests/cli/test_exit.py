"""`cli._exit`: the process ends without the interpreter's teardown, yet what teardown does
that a user could see (atexit functions, buffered output) still happens."""
import subprocess
import sys


def test_exit_runs_atexit_functions_and_flushes_buffered_output():
    code = ("import atexit, sys\n"
            "atexit.register(lambda: sys.stdout.write(' and atexit'))\n"
            "from gradcli.cli import _exit\n"
            "sys.stdout.write('buffered')\n"
            "sys.stderr.write('err')\n"
            "_exit(5)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 5
    assert run.stdout == "buffered and atexit"
    assert run.stderr == "err"


def test_a_whole_run_exits_with_its_code_and_complete_output(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("x = 2.0\ny = x * x\n")
    run = subprocess.run([sys.executable, "-m", "gradcli", "backward", str(program), "--json"],
                         capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, '{"output":{"name":"y","value":4.0},"grads":{"x":4.0}}\n')
    bad = subprocess.run([sys.executable, "-m", "gradcli", "backward", "-e", "y = "], capture_output=True, text=True)
    assert bad.returncode == 3 and "error: expected an expression" in bad.stderr
