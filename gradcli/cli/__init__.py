"""The command-line interface: a thin layer over the library (see `app`)."""
from __future__ import annotations

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


def main(argv: list[str] | None = None) -> None:
    process_settings()
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
