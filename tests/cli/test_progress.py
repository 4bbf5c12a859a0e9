"""Issue 15's progress: a bar on stderr in a terminal (`script` gives gradcli one), none when
piped, and none of Rich's progress machinery imported then; Ctrl-C still exits 130."""
import os
import pty
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
GRADCLI = [sys.executable, "-m", "gradcli"]
SLOW = "s = 0.0\nfor i in range(400000):\n    s = s + 1.0\nprint(s)\n"
FILES = ["samples/quickstart.txt", "samples/e05_chain.py", "samples/e01_linear.py"]

needs_script = pytest.mark.skipif(shutil.which("script") is None, reason="needs script (util-linux)")


def in_a_terminal(args, stdin_text=None, delay=None):
    """The bytes a terminal shows for `gradcli ARGS` run under script(1) (`delay`: the
    spinner's, so that a short program shows it on a fast machine too)."""
    command = " ".join(GRADCLI + args)
    proc = subprocess.run(["script", "-qec", command, "/dev/null"], cwd=ROOT, capture_output=True,
                          input=(stdin_text or "").encode(), timeout=300,
                          env=dict(os.environ, TERM="xterm-256color", COLUMNS="100",
                                   **({"GRADCLI_PROGRESS_DELAY": str(delay)} if delay else {})))
    return proc.returncode, proc.stdout.decode(errors="replace")


def piped(args):
    return subprocess.run(GRADCLI + args, cwd=ROOT, capture_output=True, text=True, timeout=300)


@needs_script
def test_gradcheck_of_many_files_shows_a_bar_in_a_terminal_only():
    code, shown = in_a_terminal(["gradcheck", "--no-sympy", *FILES])
    assert code == 0
    assert "checking" in shown and "/3" in shown  # the bar, with its count of files
    proc = piped(["gradcheck", "--no-sympy", *FILES])
    assert proc.returncode == 0
    assert "checking" not in proc.stderr + proc.stdout and "\x1b" not in proc.stderr + proc.stdout


@needs_script
def test_a_program_running_over_a_second_shows_a_spinner_in_a_terminal_only(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW)
    code, shown = in_a_terminal(["run", str(slow)], delay=0.05)
    assert code == 0 and "400000.0" in shown
    assert f"running {slow}" in shown
    proc = piped(["run", str(slow)])
    assert proc.stdout == "400000.0\n" and proc.stderr == ""


@needs_script
def test_backward_from_a_terminal_says_it_waits_for_a_program():
    code, shown = in_a_terminal(["backward", "-"], stdin_text="x = 2.0\ny = x * x\n\x04")
    assert "reading the program from standard input" in shown and "tensor(4.)" in shown
    proc = subprocess.run(GRADCLI + ["backward", "-"], input="x = 2.0\ny = x * x\n", cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""


def test_piped_nothing_of_rich_is_imported():
    code = ("import sys\nfrom gradcli.cli.app import run_app\n"
            "for args in (['backward', 'samples/quickstart.txt'], ['ops'],\n"
            "             ['gradcheck', '--no-sympy', 'samples/quickstart.txt', 'samples/e01_linear.py']):\n"
            "    run_app(args)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich'), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_ctrl_c_under_a_bar_exits_130():
    """stderr a terminal (a pty), so the spinner runs; SIGINT ends gradcli with 130."""
    main, secondary = pty.openpty()
    slow = "s = 0.0\nfor i in range(100000000):\n    s = s + 1.0\n"
    # a step budget no machine reaches before the signal (the default, 10^6, may come first)
    proc = subprocess.Popen(GRADCLI + ["run", "-e", slow, "--max-steps", "1000000000"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=secondary, stdin=subprocess.DEVNULL,
                            # a suite started in the background (`.ci/run &`) inherits SIGINT
                            # ignored, and Python then leaves it ignored: restore the default
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(secondary)
    seen = b""
    try:
        while b"running" not in seen:  # the spinner is up: the program has run over a second
            seen += os.read(main, 4096)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
        try:
            while os.read(main, 4096):
                pass
        except OSError:
            pass
        os.close(main)
