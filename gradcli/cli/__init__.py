"""The command-line interface: a thin layer over the library (see `app`)."""
from __future__ import annotations

import os
import sys

# The backward graph holds no reference cycles, so the cyclic collector has little
# to find, yet at its default threshold it rescans the growing graph every 700
# allocations: that doubled the cost of an op. Collect rarely instead.
GC_THRESHOLDS = (100_000, 50, 100)


def process_settings() -> None:
    """The runtime policy of a gradcli process, set once, here: the collector's thresholds,
    and inf and nan flowing silently, as in PyTorch (numpy would warn on stderr)."""
    import gc

    import numpy

    gc.set_threshold(*GC_THRESHOLDS)
    numpy.seterr(all="ignore")
    import warnings

    # numpy's warnings through Python's (`Mean of empty slice`) too, not only its error state
    warnings.simplefilter("ignore", RuntimeWarning)


def main(argv: list[str] | None = None) -> None:
    process_settings()
    from . import backstop
    from .app import run_app
    from .common import FREEZE_AFTER_COMPILE

    FREEZE_AFTER_COMPILE[0] = True
    backstop.stderr_that_cannot_fail()
    code = backstop.streams_closed()
    if code is not None:
        sys.exit(code)
    from .options import take_process_options

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        args, given = take_process_options(args)
        max_memory, max_seconds = backstop.ceilings(given)
    except Exception as err:  # a UsageError
        sys.stderr.write(f"gradcli: error: {err}\n")
        sys.exit(2)
    backstop.install(max_memory, max_seconds)
    try:
        code = run_app(args, debug=given["debug"])
    except MemoryError:  # while reporting an error or another MemoryError: still one line
        code = backstop.out_of_memory()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        from .app import _silence_stdout

        _silence_stdout()
    except OSError as exc:
        code = backstop.write_failed(exc) or code
    _exit(code)


def _exit(code: int) -> None:
    """End the process without the interpreter's teardown, which frees every object one by one:
    for a graph of 10^5 nodes that took 0.5 s of an 8 s run, more than the kernel takes to drop
    the whole process. What teardown would still do that matters is done here: the atexit
    functions run and the standard streams are flushed."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)
