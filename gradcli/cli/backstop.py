"""The process's own backstop under the work budget: a memory ceiling and a CPU-time
ceiling, and standard streams that are closed or full.

The budget (`gradcli.limits`) refuses work before it is done; this catches what an
estimate misses. `--max-memory` caps the process's data segment (RLIMIT_DATA: numpy's
and Python's allocations fail with MemoryError past it, which `gradcli.limits.limited`
turns into exit 3); `--max-seconds` arms a CPU-time timer for each run, whose signal
becomes exit 3 too. Both are taken off the command line before a command's options are
read, as `--debug` is, so every command has them: declared in `cli/options.py` (`PROCESS`),
for every command's help and for `take_process_options`, which reads them.
"""
from __future__ import annotations

import errno
import os
import resource
import signal
import sys

from ..errors import ExitCode, LimitError, UsageError
from .. import limits as _limits

DEFAULT_MAX_MEMORY = 4 * 2**30
DEFAULT_MAX_SECONDS = 0.0  # off: the step budget bounds a run's work already
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def ceilings(given: dict) -> tuple:
    """(max_memory in bytes or 0, max_seconds or 0) from the --max-memory and --max-seconds
    `options.take_process_options` took (None: the default). Raises UsageError."""
    memory = DEFAULT_MAX_MEMORY if given["max_memory"] is None else _size(given["max_memory"])
    seconds = DEFAULT_MAX_SECONDS if given["max_seconds"] is None else _seconds(given["max_seconds"])
    return memory, seconds


def _size(text: str) -> int:
    """`4G`, `512M`, `1000000` (bytes); 0 is no ceiling."""
    raw = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = raw[-1:] if raw[-1:] in _UNITS else ""
    try:
        number = float(raw[:len(raw) - len(unit)])
    except ValueError:
        number = -1.0
    if not number >= 0 or number == float("inf"):
        raise UsageError(f"--max-memory {text!r}: expected a size such as 4G, 512M or 0 (off)")
    return int(number * _UNITS[unit])


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise UsageError(f"--max-seconds {text!r}: expected a number of seconds, or 0 (off)")
    return value


def describe(size: int) -> str:
    for unit in ("T", "G", "M", "K"):
        if size >= _UNITS[unit] and size % (_UNITS[unit] // 16) == 0:
            return f"{size / _UNITS[unit]:g} {unit}iB"
    return f"{size} bytes"


def install(max_memory: int, max_seconds: float) -> None:
    """Set the ceilings for this process."""
    if max_memory:
        for kind in ("RLIMIT_DATA", "RLIMIT_AS"):
            limit = getattr(resource, kind, None)
            if limit is None:
                continue
            try:
                _soft, hard = resource.getrlimit(limit)
                ceiling = max_memory if hard == resource.RLIM_INFINITY else min(max_memory, hard)
                resource.setrlimit(limit, (ceiling, hard))
            except (ValueError, OSError):
                continue
            _limits.MEMORY_CEILING[0] = f"{describe(ceiling)}, --max-memory"
            break
    if max_seconds and hasattr(signal, "setitimer"):
        def out_of_time(signum, frame):
            raise LimitError(f"the run used more than {max_seconds:g} seconds of CPU time",
                             hint="raise the limit with --max-seconds")

        signal.signal(signal.SIGPROF, out_of_time)

        def clock(running: bool) -> None:
            signal.setitimer(signal.ITIMER_PROF, max_seconds if running else 0)

        _limits.RUN_CLOCK[0] = clock


def out_of_memory() -> int:
    """Report a MemoryError that reached the command line's boundary (exit 3)."""
    _stderr(f"gradcli: error: {_limits.out_of_memory_message()}")
    return int(ExitCode.PROGRAM)


def streams_closed() -> int | None:
    """Exit 2 with one line if standard output is closed (`gradcli ... >&-`)."""
    if sys.stdout is None or not _fd_open(1):
        _stderr("gradcli: error: standard output is closed")
        return int(ExitCode.USAGE)
    return None


def write_failed(exc: OSError) -> int | None:
    """Exit 2 with one line for a failed write to standard output (`> /dev/full`)."""
    if exc.errno not in (errno.ENOSPC, errno.EBADF, errno.EIO, errno.EDQUOT, errno.EFBIG):
        return None
    _stderr(f"gradcli: error: cannot write to standard output: {os.strerror(exc.errno)}")
    try:  # nothing more can reach it: let the interpreter's final flush stay quiet
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
    except OSError:
        pass
    return int(ExitCode.USAGE)


def stdin_buffer():
    """Standard input as bytes; a UsageError (exit 2) if it is closed (`gradcli eval - <&-`)."""
    if sys.stdin is None or not _fd_open(0):
        raise UsageError("cannot read standard input: it is closed")
    return sys.stdin.buffer


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def _stderr(line: str) -> None:
    try:
        if sys.stderr is not None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
    except OSError:
        pass
