"""The command-line interface: a thin layer over the library (see `app`)."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    from .app import run_app

    code = run_app(argv)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        from .app import _silence_stdout

        _silence_stdout()
    sys.exit(code)
