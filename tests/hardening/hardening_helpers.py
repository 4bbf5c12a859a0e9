"""Running gradcli for the hardening tests: through Typer's CliRunner, and isolated in a
forked child that reports its exit code, output, CPU time and peak memory."""
from __future__ import annotations

import os
import pickle
import re
import resource
import select
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
import fuzzgen  # noqa: E402

from gradcli.cli.app import app  # noqa: E402

# The CPU bounds here ("refused within about 2 s of CPU") were set on a machine where
# `reference_loop` took about REFERENCE_LOOP_S (where `python -c "import numpy"` took 83 ms;
# a machine of this sandbox that took 199 ms for that import takes 0.065 s for the loop). On a
# slower machine they stretch by as much, so the tests tell bounded work (a second or two)
# from unbounded (minutes), not one CPU from another.
REFERENCE_LOOP_S = 0.03


def reference_loop() -> float:
    """CPU seconds of a fixed pure-Python loop (10^6 additions), best of 3."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        total = 0
        for i in range(1_000_000):
            total += i
        best = min(best, time.process_time() - start)
    return best


SLOWNESS = max(1.0, reference_loop() / REFERENCE_LOOP_S)


def cpu_bound(seconds: float) -> float:
    """A CPU bound set on the reference machine, for this one."""
    return seconds * SLOWNESS


LOCATION = re.compile(r"^(<expr>|<stdin>|[^\s:]+):(\d+):(\d+): error: ", re.M)
strict_json = fuzzgen.strict_json


def invoke(*args, input=None):
    """`gradcli ARGS` through CliRunner; an exception escaping the app fails the test."""
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


@dataclass
class Measured:
    code: int | None
    stdout: str
    stderr: str
    cpu_seconds: float
    wall_seconds: float
    peak_mb: float  # resident memory the run added, at its peak


def isolated(argv: list, stdin: bytes = b"", timeout: float = 30.0) -> Measured:
    """Run `gradcli ARGV` in a forked child (in-process CLI, as `run_app` runs it) and
    measure it: the child's peak resident memory above what it started with, and its CPU
    time, so that other work on the machine does not count. A child that outlives
    `timeout` is killed and reported with code None."""
    read_end, write_end = os.pipe()
    wall = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.close(read_end)
            start_rss = int(open("/proc/self/statm").read().split()[1]) * resource.getpagesize()
            usage = resource.getrusage(resource.RUSAGE_SELF)
            outcome = fuzzgen.run_cli(argv, stdin=stdin, timeout=timeout)
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
            peak = after.ru_maxrss * 1024 - start_rss
            code = None if outcome.timed_out else outcome.code
            data = pickle.dumps((code, outcome.stdout[-200_000:], outcome.stderr[-200_000:], cpu,
                                 peak / 2**20))
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view):]
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    deadline = time.monotonic() + timeout + 10
    try:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([read_end], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return Measured(None, "", "killed: no answer", timeout, time.perf_counter() - wall, 0.0)
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
    os.waitpid(pid, 0)
    if not chunks:  # the child died before it could report
        return Measured(None, "", "the child process died", 0.0, time.perf_counter() - wall, 0.0)
    code, stdout, stderr, cpu, peak = pickle.loads(b"".join(chunks))
    return Measured(code, stdout, stderr, cpu, time.perf_counter() - wall, peak)


def assert_clean_error(result_stderr: str, stdout: str = ""):
    """No traceback, and an error line with a FILE:LINE:COL location."""
    assert "Traceback" not in result_stderr and "Traceback" not in stdout
    assert LOCATION.search(result_stderr), result_stderr


# --- a real `python -m gradcli` process under a CPU and memory rlimit -------------------

ROOT = Path(__file__).resolve().parents[2]
CHILD_CPU_S = 20          # the child's own CPU time: a hang ends here, as a failure
CHILD_ADDRESS = 3 * 2**30  # address space: numpy and Python start in ~1 GB of it


def _limit_child(close_stderr: bool = False):
    resource.setrlimit(resource.RLIMIT_CPU, (CHILD_CPU_S, CHILD_CPU_S + 1))
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS, CHILD_ADDRESS))
    if close_stderr:
        os.close(2)


def limited_run(*args, stdin: bytes = b"", stderr_fd=None, env=None,
                close_stderr: bool = False) -> Measured:
    """`python -m gradcli ARGS` in a real process under the rlimits above, measured by
    wait4: its exit code (negative for a signal), output, CPU seconds and peak resident MB.
    `stderr_fd` replaces the stderr pipe (a full stderr); `close_stderr` closes it."""
    import subprocess
    import threading

    wall = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gradcli", *args], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE if stderr_fd is None else stderr_fd,
        preexec_fn=lambda: _limit_child(close_stderr),
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    chunks = {"out": [], "err": []}

    def drain(stream, key):
        for block in iter(lambda: stream.read(1 << 16), b""):
            chunks[key].append(block)

    readers = [threading.Thread(target=drain, args=(proc.stdout, "out"))]
    if proc.stderr is not None:
        readers.append(threading.Thread(target=drain, args=(proc.stderr, "err")))
    for reader in readers:
        reader.start()
    try:
        proc.stdin.write(stdin)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    for reader in readers:
        reader.join(CHILD_CPU_S * 4)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Measured(proc.returncode, b"".join(chunks["out"]).decode("utf-8", "replace"),
                    b"".join(chunks["err"]).decode("utf-8", "replace"),
                    usage.ru_utime + usage.ru_stime, time.perf_counter() - wall,
                    usage.ru_maxrss / 1024)


def program_error(*args, message: str, stdin: bytes = b"", code: int = 3) -> Measured:
    """Run limited and check: exit `code`, `message` in stderr, no traceback, no 'bug in
    gradcli', at most 5 s of CPU (on the reference machine) and 2 GB."""
    ran = limited_run(*args, stdin=stdin)
    assert ran.code == code, (ran.code, ran.stderr[-2000:])
    assert message in ran.stderr, ran.stderr[-2000:]
    assert "Traceback" not in ran.stderr and "bug in gradcli" not in ran.stderr, ran.stderr[-2000:]
    assert ran.cpu_seconds < cpu_bound(5), ran.cpu_seconds
    assert ran.peak_mb < 2048, ran.peak_mb
    return ran
