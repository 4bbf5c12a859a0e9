"""A progress bar on standard error, in a terminal only.

Piped (stderr not a terminal), every function here is a no-op that imports
nothing: Rich's progress machinery is loaded only when it will be shown.
`steps` counts known work (gradcheck's ops and files, --points lines);
`after(seconds)` shows a spinner once a program has run longer than that.
"""
from __future__ import annotations

import contextlib
import os
import sys

DELAY = 1.0  # seconds a program runs before `after` shows that it is still working


def shown() -> bool:
    """A bar only for a person watching: stderr is a terminal (GRADCLI_PROGRESS=0 turns it off)."""
    if os.environ.get("GRADCLI_PROGRESS") == "0":
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _noop(*_args, **_kwargs) -> None:
    return None


def _progress(spinner_only: bool):
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)

    columns = [SpinnerColumn(), TextColumn("{task.description}")]
    if not spinner_only:
        columns += [BarColumn(), MofNCompleteColumn()]
    columns.append(TimeElapsedColumn())
    # stdout goes through the bar's console only when it shares the terminal; piped, it stays
    # as it is. The bar disappears when done (transient).
    return Progress(*columns, console=Console(stderr=True), transient=True,
                    redirect_stdout=sys.stdout.isatty(), redirect_stderr=True)


@contextlib.contextmanager
def steps(description: str, total: int | None):
    """`advance(n=1, description=None)` for each step of `total`; a no-op when not shown.
    An unknown total (None): a spinner after DELAY, as `after`."""
    if not shown():
        yield _noop
        return
    if total is None:
        with after(description):
            yield _noop
        return
    bar = _progress(False)
    task = bar.add_task(description, total=total)

    def advance(n: int = 1, description: str | None = None) -> None:
        bar.update(task, advance=n, **({"description": description} if description else {}))

    with bar:
        yield advance


@contextlib.contextmanager
def after(description: str, seconds: float | None = None):
    """A spinner that appears once the work inside has taken `seconds` (terminal only;
    DELAY, or $GRADCLI_PROGRESS_DELAY, which the tests set so that a short program shows it)."""
    if not shown():
        yield
        return
    if seconds is None:
        seconds = float(os.environ.get("GRADCLI_PROGRESS_DELAY", DELAY))
    import threading

    lock = threading.Lock()
    state = {"bar": None, "done": False}

    def start() -> None:
        with lock:
            if state["done"]:
                return
            bar = _progress(True)
            bar.add_task(description, total=None)
            bar.start()
            state["bar"] = bar

    timer = threading.Timer(seconds, start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["bar"] is not None:
                state["bar"].stop()
