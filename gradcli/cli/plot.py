"""The `plot` command: the output and its derivatives over a range of one input, or heat maps
of the output and its gradient norm over two.

Sampling is `gradcli.answers.sampling`'s; drawing is `gradcli.render.plot`'s (plotext in the
terminal, matplotlib for -o), both imported only when this command runs.
"""
from __future__ import annotations

import math
import os
import sys
from typing import Annotated, Optional

from .common import drive, wrt_names
from .options import LIMIT_OPTIONS, Common, Option, Wrt, common_options


def parse_range(text: str, option: str = "--range") -> tuple[float, float]:
    """--range's 'A:B' as two finite numbers with A < B."""
    from ..errors import UsageError

    lo, colon, hi = text.partition(":")
    try:
        a, b = float(lo), float(hi)
    except ValueError:
        raise UsageError(f"{option} {text!r}: expected A:B, two numbers such as -3:3") from None
    if not colon or not math.isfinite(b - a) or a >= b:
        raise UsageError(f"{option} {text!r}: expected A:B with finite numbers and A < B")
    return a, b


def _terminal_size() -> tuple[int, int, bool]:
    """(width, height, colour) of standard output: 80 x 24 unless it is a terminal; colour as
    --color chose (auto: a terminal without NO_COLOR).

    The size is asked of the terminal itself, never of $COLUMNS/$LINES, so piped output
    is the same wherever it runs."""
    from ..render.plot import HEIGHT, WIDTH
    from ..render.style import coloured

    color = coloured("stdout")
    try:
        if not sys.stdout.isatty():
            return WIDTH, HEIGHT, color
        size = os.get_terminal_size(sys.stdout.fileno())
    except (AttributeError, ValueError, OSError):
        return WIDTH, HEIGHT, color
    return max(size.columns, 40), max(size.lines - 1, 12), color


@common_options("file", "expr", "of", "sets", "json", "dtype", *LIMIT_OPTIONS)
def plot_cmd(
    opts: Common,
    wrt: Wrt = None,
    range_: Annotated[Optional[str], Option(
        "--range", help="A:B, the interval to plot (default: the input's value ± 3·max(1, |value|)); "
                        "with --wrt x,y: A:B,C:D.", show_default=False)] = None,
    samples: Annotated[Optional[int], Option(
        "--samples", help="Points along x (default 400); with --wrt x,y, per axis of the grid "
                          "(default 40).", show_default=False)] = None,
    order: Annotated[int, Option("--order", help="Plot the 1st to K-th derivatives (K <= 4).")] = 1,
    output: Annotated[Optional[str], Option(
        "--output", "-o", help="Write the plot to FILE.svg or FILE.png (matplotlib) instead of the "
                               "terminal.", show_default=False)] = None,
    subplots: Annotated[bool, Option(
        "--subplots", help="f and each derivative in a panel of its own, each with its own "
                           "y axis (for curves of very different scales).")] = False,
):
    """The output and its derivatives over a range of one input, drawn in the terminal or to a file.

    With --wrt x,y: heat maps of a scalar output and of its gradient norm. NaN, infinite and
    undefined values (a kink, as abs has at 0) are gaps, and null in the JSON.

    Example: gradcli plot -e 'x = 0.0; y = tanh(x)' --wrt x --order 2
    """
    from ..answers import sampling
    from ..errors import UsageError
    from ..render import jsonout, plot as render

    wrt_list = wrt_names(wrt)
    if len(wrt_list) > 2 or len(dict.fromkeys(wrt_list)) != len(wrt_list):
        raise UsageError(f"--wrt {wrt}: plot takes one input, or two different ones for a heat map")
    spans = [parse_range(part) for part in range_.split(",")] if range_ is not None else None
    if spans is not None and len(spans) != len(wrt_list):
        raise UsageError(f"--range {range_}: give one A:B per --wrt name ({len(wrt_list)})")
    fmt = None
    if output is not None:
        fmt = os.path.splitext(output)[1].lower().lstrip(".")
        if fmt not in render.FORMATS:
            raise UsageError(f"-o {output}: plot writes .svg or .png files",
                             hint="name the file FILE.svg or FILE.png")
        render.load("matplotlib")
    elif not opts.json:
        render.load("plotext")
    two = len(wrt_list) == 2
    if two and order != 1:
        raise UsageError("--order: a 2-D plot shows the output and its gradient norm; "
                         "--order applies to one --wrt input")
    if two and subplots:
        raise UsageError("--subplots: a 2-D plot draws its two heat maps side by side already; "
                         "--subplots applies to one --wrt input")

    limits = opts.limits()

    def answer(run):
        if two:
            return sampling.sample_surface(run, limits, wrt_list, opts.of, spans,
                                           samples or sampling.DEFAULT_GRID)
        return sampling.sample_curve(run, limits, wrt_list[0] if wrt_list else _one_input(run),
                                     opts.of, order,
                                     spans[0] if spans else None, samples or sampling.DEFAULT_SAMPLES)

    def to_json(result):
        _warn(result)
        if output is not None:
            render.save(result, output, fmt, subplots)
            sys.stderr.write(f"wrote {output}\n")
        return jsonout.surface_json(result) if two else jsonout.curve_json(result)

    def human(result):
        _warn(result)
        if output is not None:
            render.save(result, output, fmt, subplots)
            sys.stderr.write(f"wrote {output}\n")
            return
        width, height, color = _terminal_size()
        _write(render.terminal(result, width, height, color, subplots) + "\n")
        if not two and not subplots and render.scales_differ(result):
            sys.stderr.write("gradcli: note: the curves' scales differ widely, so the smaller "
                             "ones lie flat on the shared axis: --subplots draws each in a "
                             "panel of its own\n")

    drive(opts, answer, to_json, human, requires_grad=tuple(wrt_list))


def _one_input(run) -> str:
    """The input to plot when --wrt is not given: the program's only one."""
    from ..errors import UsageError
    from .common import default_wrt

    found = default_wrt(run)
    if len(found) != 1:
        raise UsageError(f"plot takes one input and the program has {len(found)} "
                         f"({', '.join(found)})", hint=f"name one with --wrt {found[0]}, "
                         f"or two for a heat map: --wrt {','.join(found[:2])}")
    return found[0]


def _write(text: str) -> None:
    """Braille and box drawing, or '?' for them where standard output cannot encode them."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        encoding = sys.stdout.encoding or "ascii"
        sys.stdout.write(text.encode(encoding, "replace").decode(encoding))


def _warn(result) -> None:
    """Samples whose run failed are gaps; say so once, with the first error."""
    if result.failures:
        point, err = result.failures[0]
        n = len(result.xs) if hasattr(result, "values") else len(result.xs) * len(result.ys)
        sys.stderr.write(f"gradcli: warning: the program failed at {len(result.failures)} of {n} "
                         f"samples, drawn as gaps (first at {point}: {err.message})\n")
