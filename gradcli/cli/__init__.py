"""The command-line interface: a thin layer over the library (see `app`)."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    import gc

    # The backward graph holds no reference cycles, so the cyclic collector has little
    # to find, yet at its default threshold it rescans the growing graph every 700
    # allocations: that doubled the cost of an op. Collect rarely instead.
    gc.set_threshold(100_000, 50, 100)
    import numpy

    # inf and nan flow silently, as in PyTorch; numpy would warn on stderr.
    numpy.seterr(all="ignore")
    from .app import run_app
    from .common import FREEZE_AFTER_COMPILE

    FREEZE_AFTER_COMPILE[0] = True
    code = run_app(argv)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        from .app import _silence_stdout

        _silence_stdout()
    sys.exit(code)
