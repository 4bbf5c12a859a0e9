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
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50, "E": 2**60}
# The largest ceilings the system takes: setrlimit's C long, and what setitimer's time_t
# takes here (10^10 s is refused on Linux x86-64); beyond them, 0 means no ceiling.
MAX_MEMORY = 2**62
MAX_SECONDS = 1e9


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
    size = int(number * _UNITS[unit])
    if size > MAX_MEMORY:  # setrlimit takes a C long
        raise UsageError(f"--max-memory {text!r}: larger than the system takes (at most "
                         f"{describe(MAX_MEMORY)}); 0 is no ceiling")
    if size == 0 and number > 0:
        raise UsageError(f"--max-memory {text!r}: less than one byte; 0 is no ceiling")
    return size


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise UsageError(f"--max-seconds {text!r}: expected a number of seconds, or 0 (off)")
    if value > MAX_SECONDS:  # setitimer's time_t
        raise UsageError(f"--max-seconds {text!r}: larger than the system takes (at most "
                         f"{MAX_SECONDS:g}); 0 is no ceiling")
    return value


def describe(size: int) -> str:
    for unit in ("E", "P", "T", "G", "M", "K"):
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
            except (ValueError, OSError, OverflowError):
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
    """Report a MemoryError that reached the command line's boundary (exit 3): one line, even
    if making it runs out of memory again (then a fixed line, written without Python objects)."""
    import gc

    gc.collect()
    try:
        _stderr(f"gradcli: error: {_limits.out_of_memory_message()}")
    except MemoryError:
        try:
            os.write(2, b"gradcli: error: out of memory\n")
        except OSError:
            pass
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


class _ForgivingStderr:
    """Standard error that cannot fail a run: a write to a full or broken stderr is dropped,
    so a program error still exits 3 (not 2, "cannot write"), and a clean run exits 0."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError):
            pass

    def __getattr__(self, name):
        return getattr(self._stream, name)


def stderr_that_cannot_fail() -> None:
    """Whatever happens to standard error, the exit code is the run's: a closed stderr
    (`2>&-`, which left `sys.stderr` None and every report an AttributeError, exit 1) is
    pointed at /dev/null, and a full one (`2>/dev/full`) drops what it cannot take."""
    if sys.stderr is None or not _fd_open(2):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            if devnull != 2:
                os.dup2(devnull, 2)
                os.close(devnull)
            sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        except OSError:
            return
    sys.stderr = _ForgivingStderr(sys.stderr)


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
