"""Drawing `gradcli plot`'s samples: plotext in the terminal, matplotlib (Agg) to SVG or PNG.

Both are pure functions of a `plotting.Curve` or `plotting.Surface`; the libraries
are imported only here, when a plot is drawn. NaN samples are gaps in the lines;
kinks are marked with an x.
"""
from __future__ import annotations

import math

import numpy as np

INSTALL = "pip install 'gradcli[pictures]'  (or: pip install plotext matplotlib)"
SHADES = " .:-=+*#%@"   # a heat map without colour: darker is larger
# f and d1..d4: braille in colour; without colour the derivatives get their own marks
PLAIN_MARKERS = ("braille", "•", "+", "°", "*")
WIDTH, HEIGHT = 80, 24  # when standard output is not a terminal


def load(module: str):
    """Import plotext or matplotlib; missing, it is a usage error (exit 2) naming the install."""
    from ..errors import UsageError

    try:
        if module == "matplotlib":
            import matplotlib

            matplotlib.use("Agg")
            return matplotlib
        import importlib

        if module == "plotext":
            _without_plotext_docs()
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(f"gradcli plot needs {module}, which is not installed",
                         hint=f"install it: {INSTALL}") from None


def _without_plotext_docs() -> None:
    """plotext 6 builds the documentation of every method when it is imported (its last
    line, `from plotext._doc.doc import docs as doc`: 80% of its import, 0.2-0.4 s of a
    plot's 0.5 s); gradcli draws without it, so an empty `plotext.doc` stands in. Only
    before plotext's first import, and never over a documentation already built."""
    import sys
    import types

    if "plotext" not in sys.modules and "plotext._doc.doc" not in sys.modules:
        stub = types.ModuleType("plotext._doc.doc", "plotext's documentation, not built by gradcli")
        stub.docs = None
        sys.modules["plotext._doc.doc"] = stub


def labels(c) -> list[str]:
    """y, dy/dx, d²y/dx², ... for a curve's output and input (`d(x ** 3)/dx` for an expression)."""
    name = c.output_name if c.output_name.isidentifier() else f"({c.output_name})"
    out = [c.output_name]
    for k in range(1, c.order + 1):
        top = "d" if k == 1 else f"d{_sup(k)}"
        bottom = f"d{c.wrt}" if k == 1 else f"d{c.wrt}{_sup(k)}"
        out.append(f"{top}{name}/{bottom}")
    return out


def _sup(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _log_scaled(z: np.ndarray) -> tuple[np.ndarray, bool]:
    """Colour by log10(1 + z) when z >= 0 spans several decades (Rosenbrock's valley)."""
    finite = z[np.isfinite(z)]
    if finite.size and finite.min() >= 0 and finite.max() > 100 * (np.percentile(finite, 10) + 1e-12):
        with np.errstate(all="ignore"):
            return np.log10(1 + z), True
    return z, False


def _surface_panels(s) -> list:
    """(title, values, whether log-scaled) of the two heat maps: the output and the gradient norm."""
    panels = []
    for title, z in ((s.output_name, s.z), (f"|∇{s.output_name}|", s.norm)):
        shown, logged = _log_scaled(z)
        panels.append((f"log10(1 + {title})" if logged else title, shown, logged))
    return panels


# -- the terminal --------------------------------------------------------------------------
#
# Everything around the data is laid out here, outside plotext's box, so that nothing covers
# a curve at any size: the title (the output's formula) above it, the legend, the heat maps'
# key and their marks below it, each cut into lines no wider than the terminal.

MIN_PANEL = (24, 8)  # the smallest panel (characters wide, lines high) worth drawing
SUBPLOT_HINT = 10.0  # largest values this many times apart: the smaller curve lies flat


def terminal(result, width: int = WIDTH, height: int = HEIGHT, color: bool = False,
             subplots: bool = False) -> str:
    """The plot as text of at most `width` x `height` characters (ANSI colours only with
    `color`); with `subplots`, f and each derivative in a panel of its own."""
    plt = load("plotext")
    plt.terminal.limit(False, False)   # the size given, not the one $COLUMNS/$LINES claim
    fig = plt.figure
    fig.clear.all()
    try:
        if hasattr(result, "values"):
            if subplots:
                lines = _curve_panels(fig, result, width, height, color)
            else:
                lines = _terminal_curve(fig, result, width, height, color)
        else:
            lines = _terminal_surface(fig, result, width, height)
    finally:
        fig.clear.all()
    return "\n".join(line.rstrip() for line in lines)


def _build(fig, width: int, height: int, color: bool) -> list[str]:
    fig.plot_size(width, max(height, 4))
    return fig.build().string(colorless=not color).splitlines()


def formula_title(result, width: int, what: str = "") -> str:
    """The output's formula (`y = x**3 - x`), else its name, then `what` if it fits;
    cut with '…' to `width`."""
    title = result.formula or result.output_name
    if what and len(title) + len(what) <= width:
        title += what
    return fit(title, width)


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


def _rows_of(items: list, width: int, sep: str = "   ") -> list[str]:
    """(plain text, shown text) items joined into lines of at most `width` visible
    characters, never cutting an item (one too wide is cut alone)."""
    lines, plain, shown = [], "", ""
    for text, look in items:
        if len(text) > width:
            text = look = fit(text, width)
        if plain and len(plain) + len(sep) + len(text) > width:
            lines.append(shown)
            plain = shown = ""
        plain, shown = (plain + sep + text, shown + sep + look) if plain else (text, look)
    if plain:
        lines.append(shown)
    return lines


def _glyph(signal, marker: str, color: bool) -> str:
    """What a signal's points look like: braille as one of its cells, coloured as drawn."""
    glyph = "⢕" if marker == "braille" else marker
    if not color:
        return glyph
    from plotext._primitives.colorize import colorize

    return colorize(glyph, signal._get_marker().pixel()).string()


def _curve_signal(fig, c, k: int, v, color: bool):
    """Draw d_k (k = 0: f) on `fig`; the signal, or None when nothing of it is finite."""
    v = _drawable(v)
    keep = np.flatnonzero(np.isfinite(v))
    if not keep.size:
        return None, None
    marker = "braille" if color else PLAIN_MARKERS[k]
    signal = fig.signal(c.xs[keep].tolist(), v[keep].tolist(), marker=marker)
    signal.lines()
    for j in np.flatnonzero(np.diff(keep) > 1):   # a gap: no line across missing samples
        signal.line(int(j) + 1, False)
    fig.draw(signal)
    return signal, marker


def _terminal_curve(fig, c, width: int, height: int, color: bool) -> list[str]:
    fig.theme("simple")
    legend = []
    for k, (label, v) in enumerate(zip(labels(c), c.values)):
        signal, marker = _curve_signal(fig, c, k, v, color)
        if signal is not None:
            legend.append((f"{_glyph(signal, marker, False)} {label}",
                           f"{_glyph(signal, marker, color)} {label}"))
    kinks = _kinks_drawn(fig, c, range(1, c.order + 1))
    if kinks:
        legend.append(("x kink", "x kink"))
    under = _rows_of(legend, width)
    fig.title(formula_title(c, width - 4, f", and its derivatives in {c.wrt}" if c.order else ""))
    fig.label(c.wrt, axis=0)
    return _build(fig, width, height - len(under), color) + under


def _kinks_drawn(fig, c, orders) -> int:
    """Mark with an x the kinks whose undefined derivative is in `orders`, on the curve of the
    one before it; how many."""
    if not c.kinks:
        return 0
    xs, ys = _kink_points(c, orders)
    kept = [(x, y) for x, y in zip(xs, ys) if abs(y) <= LARGEST_DRAWN]
    if kept:
        fig.draw(fig.signal([x for x, _ in kept], [y for _, y in kept], marker="x"))
    return len(kept)


def _kink_points(c, orders=None) -> tuple[list, list]:
    """Where the kinks sit: on the curve of the derivative that has them (d_(k-1) at x)."""
    xs, ys = [], []
    for x, k in c.kinks:
        if orders is not None and k not in orders:
            continue
        i = int(np.argmin(np.abs(c.xs - x)))
        y = c.values[k - 1][i]
        if math.isfinite(y):
            xs.append(x)
            ys.append(float(y))
    return xs, ys


def panel_grid(n: int, width: int, height: int) -> tuple[int, int, int]:
    """(rows, columns, height) for n panels: the grid whose smallest panel is largest against
    MIN_PANEL, stacked (one x axis under another) when that ties. When no grid gives every
    panel MIN_PANEL in `height`, as many columns as fit, each panel MIN_PANEL high, and the
    height that needs (more than `height`: the caller shows the rows that fit and names the
    rest, rather than panels with no room for data)."""
    best = None
    for rows in range(1, n + 1):
        cols = -(-n // rows)
        if (rows - 1) * cols >= n:
            continue
        w, h = width // cols, height // rows
        if w < MIN_PANEL[0] or h < MIN_PANEL[1]:
            continue
        score = min(w / MIN_PANEL[0], h / MIN_PANEL[1])
        if best is None or score >= best[0]:
            best = (score, rows, cols)
    if best is not None:
        return best[1], best[2], height
    cols = max(1, min(n, width // MIN_PANEL[0]))
    rows = -(-n // cols)
    return rows, cols, rows * MIN_PANEL[1]


def scales_differ(c) -> bool:
    """Whether f and its derivatives span magnitudes so far apart that, on one axis, the
    smaller curves lie flat (`--subplots` draws each in a panel of its own)."""
    spans = []
    for v in c.values:
        finite = _drawable(v)
        finite = finite[np.isfinite(finite)]
        if finite.size:
            spans.append(float(np.max(np.abs(finite))))
    spans = [s for s in spans if s > 0]
    return len(spans) > 1 and max(spans) > SUBPLOT_HINT * min(spans)


def _curve_panels(fig, c, width: int, height: int, color: bool) -> list[str]:
    """f and each derivative in a panel of its own, each with its own y axis."""
    names = labels(c)
    under = [fit("x: a kink", width)] if _kink_points(c)[0] else []
    room = height - 1 - len(under)
    rows, cols, needed = panel_grid(len(names), width, room)
    if needed > room:
        # not every panel fits the terminal: those that do, and a note naming the others
        # (its length reserved for the most it can name: all but the first row's)
        def note(dropped):
            return too_small(", ".join(dropped) + " not shown", 1 + len(under) + needed, height, width)

        shown = max(1, min(rows - 1, (room - len(note(names[cols:]))) // MIN_PANEL[1]))
        dropped = note(names[shown * cols:])
        names, rows, height = names[:shown * cols], shown, room - len(dropped)
        under += dropped
    else:
        height = needed
    grid = rows * cols > 1   # (plotext has no grid of one panel: the figure is the panel)
    if grid:
        fig.subplots(rows, cols)
    fig.theme("simple")
    for k, (label, v) in enumerate(zip(names, c.values)):
        panel = fig.subplot(k // cols + 1, k % cols + 1) if grid else fig
        _curve_signal(panel, c, k, v, color)
        _kinks_drawn(panel, c, [k + 1])
        panel.title(label)
        if k // cols == rows - 1 or k + cols >= len(names):   # the lowest panel of its column
            panel.label(c.wrt, axis=0)
    for k in range(len(names), rows * cols):                  # an unused cell stays blank
        fig.subplot(k // cols + 1, k % cols + 1).axes(False)
    title = formula_title(c, width, f", and its derivatives in {c.wrt}" if c.order else "")
    return [title.center(width).rstrip()] + _build(fig, width, height, color) + under


def too_small(what: str, needed: int, height: int, width: int) -> list[str]:
    """Lines (at most `width` wide) saying what a terminal of `height` lines leaves out of a
    picture of `needed` lines, and how to see all of it."""
    import textwrap

    text = f"{what}: the picture needs {needed} lines; enlarge the terminal, or use -o plot.svg"
    return textwrap.wrap(text, max(width, 20))


HERE, LEAST = "X", "O"   # the program's point and the sampled minimum on a heat map


def _terminal_surface(fig, s, width: int, height: int) -> list[str]:
    """The two heat maps side by side, the formula above, under them each map's key (which
    shade is which value) and the marks: X where the program's inputs are, O the least
    output sampled."""
    marks = _surface_marks(s)
    keys = []
    panels = _surface_panels(s)
    # a mark at more places than the panel has cells, so that every cell gets one
    cols, rows = max(4, width // 2), max(4, height)
    px = np.linspace(s.xs[0], s.xs[-1], cols)
    py = np.linspace(s.ys[0], s.ys[-1], rows)
    xi = np.abs(s.xs[None, :] - px[:, None]).argmin(axis=1)   # the nearest sample
    yi = np.abs(s.ys[None, :] - py[:, None]).argmin(axis=1)
    fig.subplots(1, 2)
    fig.theme("simple")
    for col, (title, z, logged) in enumerate(panels, start=1):
        panel = fig.subplot(1, col)
        cells = _drawable(z[np.ix_(yi, xi)])
        finite = _drawable(z)
        finite = finite[np.isfinite(finite)]   # the key's ends: the whole grid's
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        scale = (len(SHADES) - 1) / (hi - lo) if hi > lo else 0.0
        for r, y in enumerate(py):
            shade = [SHADES[int(round((v - lo) * scale))] if math.isfinite(v) else " " for v in cells[r]]
            panel.draw(panel.signal(px.tolist(), [float(y)] * cols, marker=shade))
        for glyph, (x, y), _ in marks:        # over the shades
            panel.draw(panel.signal([x], [y], marker=glyph))
        panel.title(fit(title, width // 2 - 6))
        panel.label(f"{s.wrt[0]} across, {s.wrt[1]} up", axis=0)
        back = (lambda v: 10 ** v - 1) if logged else (lambda v: v)
        name = title[len("log10(1 + "):-1] if logged else title
        key = f"{name}: {back(lo):.3g} [{SHADES}] {back(hi):.3g}" + (" (log)" if logged else "")
        keys.append((key, key))
    under = _rows_of(keys, width) + _rows_of([(m, m) for _, _, m in marks], width)
    title = formula_title(s, width).center(width).rstrip()
    needed = 1 + MIN_PANEL[1] + 4 + len(under)
    if needed > height:   # maps with no room for their rows: say so, in the terminal's lines
        return [title] + too_small("heat maps not drawn", needed, height, width)
    return [title] + _build(fig, width, height - 1 - len(under), False) + under


def _g(v: float) -> str:
    return f"{v:.4g}"


def _at(x: float, y: float) -> str:
    return f"({_g(x)}, {_g(y)})"


def _surface_marks(s) -> list:
    """(glyph, (x, y), what it means) for the program's point and the least output sampled."""
    (a, b), marks = s.wrt, []
    if len(s.point) == 2 and all(math.isfinite(v) for v in s.point):
        x, y = s.point
        marks.append((HERE, (x, y), f"{HERE} the program's ({a}, {b}) = {_at(x, y)}"))
    z = _drawable(s.z)
    if np.isfinite(z).any():
        j, i = np.unravel_index(np.nanargmin(z), z.shape)
        x, y = float(s.xs[i]), float(s.ys[j])
        marks.append((LEAST, (x, y), f"{LEAST} min {s.output_name} = {_g(float(z[j, i]))} at {_at(x, y)}"))
    return marks


# -- files -------------------------------------------------------------------------------------


FORMATS = ("svg", "png")


def save(result, path: str, fmt: str, subplots: bool = False) -> None:
    """Write the plot to `path` as SVG or PNG with matplotlib's Agg canvas (no display needed);
    with `subplots`, a curve and each derivative on an axis of its own."""
    matplotlib = load("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if hasattr(result, "values"):
        fig = Figure(figsize=(7, 4.5 if not subplots else 2 + 1.8 * (result.order + 1)), dpi=100)
        FigureCanvasAgg(fig)
        _file_curve(fig, result, subplots)
    else:
        fig = Figure(figsize=(10, 4.8), dpi=100)
        FigureCanvasAgg(fig)
        _file_surface(fig, result)
    # no date, version or random ids in the file: the same plot gives the same bytes
    metadata = {"Date": None, "Creator": None} if fmt == "svg" else {"Software": None}
    try:
        fig.tight_layout()
        with matplotlib.rc_context({"svg.hashsalt": "gradcli"}):
            fig.savefig(path, format=fmt, metadata=metadata)
    except OSError as exc:
        from ..errors import UsageError

        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    except (ArithmeticError, ValueError, np.linalg.LinAlgError) as exc:
        # matplotlib's transforms fail on what `_drawable` let through (a span of values
        # it cannot scale): refused with a message, not a bug
        from ..errors import ProgramError

        raise ProgramError(f"matplotlib cannot draw these values: {exc}",
                           hint="plot a narrower --range, or draw it in the terminal (no -o)") \
            from None


# Values past this magnitude are left out of a picture (drawn as a gap, as NaN is):
# matplotlib's axis transforms overflow on spans near the float64 maximum (1e308 - -1e308)
# and then fail with LinAlgError "Singular matrix".
LARGEST_DRAWN = 1e150


def _drawable(values):
    """`values` as floats with the undrawable ones (inf, NaN, past LARGEST_DRAWN) as NaN."""
    v = np.array(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        v[~(np.abs(v) <= LARGEST_DRAWN)] = np.nan
    return v


def _file_curve(fig, c, subplots: bool = False) -> None:
    """One axis for f and its derivatives, or (`subplots`) one each, stacked, sharing x."""
    names = labels(c)
    axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)[:, 0] if subplots else \
        [fig.add_subplot()] * len(names)
    for k, (ax, label, v) in enumerate(zip(axes, names, c.values)):
        ax.plot(_drawable(c.xs), _drawable(v), label=label, linewidth=1.5,   # NaN breaks the line
                color=f"C{k}")
    for k, ax in enumerate(axes if subplots else axes[:1]):
        xs, ys = _kink_points(c, [k + 1] if subplots else None)
        if xs:
            ax.plot(xs, _drawable(ys), "x", color="black", markersize=8, label="kink")
        for x in xs:
            ax.axvline(x, color="gray", linewidth=0.8, linestyle=":")
        ax.axhline(0, color="gray", linewidth=0.5)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best")
    axes[-1].set_xlabel(c.wrt)
    title = c.formula or c.output_name
    axes[0].set_title(f"{title}, and its derivatives in {c.wrt}" if c.order else title)


def _file_surface(fig, s) -> None:
    marks = _surface_marks(s)
    for col, (title, z, _) in enumerate(_surface_panels(s), start=1):
        ax = fig.add_subplot(1, 2, col)
        mesh = ax.pcolormesh(s.xs, s.ys, np.ma.masked_invalid(_drawable(z)), shading="nearest",
                             cmap="viridis")
        fig.colorbar(mesh, ax=ax)
        for glyph, (x, y), what in marks:
            ax.plot([x], [y], "x" if glyph == HERE else "o", color="red" if glyph == HERE else "white",
                    markeredgecolor="black", markersize=9, label=what[2:])
        ax.set_title(title)
        ax.set_xlabel(s.wrt[0])
        ax.set_ylabel(s.wrt[1])
        if marks:
            ax.legend(loc="best", fontsize=8, framealpha=0.8)
    fig.suptitle(s.formula or s.output_name)
