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
    """(title, values) of the two heat maps: the output and the gradient norm."""
    panels = []
    for title, z in ((s.output_name, s.z), (f"|∇{s.output_name}|", s.norm)):
        shown, logged = _log_scaled(z)
        panels.append((f"log10(1 + {title})" if logged else title, shown))
    return panels


# -- the terminal --------------------------------------------------------------------------


def terminal(result, width: int = WIDTH, height: int = HEIGHT, color: bool = False) -> str:
    """The plot as text of `width` x `height` characters (ANSI colours only with `color`)."""
    plt = load("plotext")
    plt.terminal.limit(False, False)   # the size given, not the one $COLUMNS/$LINES claim
    fig = plt.figure
    fig.clear.all()
    fig.theme("simple")
    fig.plot_size(width, height)
    if hasattr(result, "values"):
        _terminal_curve(fig, result, color)
    else:
        _terminal_surface(fig, result, width, height)
    text = fig.build().string(colorless=not color)
    fig.clear.all()
    return "\n".join(line.rstrip() for line in text.splitlines())


def _terminal_curve(fig, c, color: bool) -> None:
    for k, (label, v) in enumerate(zip(labels(c), c.values)):
        v = _drawable(v)
        keep = np.flatnonzero(np.isfinite(v))
        if not keep.size:
            continue
        marker = "braille" if color else PLAIN_MARKERS[k]
        signal = fig.signal(c.xs[keep].tolist(), v[keep].tolist(), marker=marker)
        signal.label(label).lines()
        for j in np.flatnonzero(np.diff(keep) > 1):   # a gap: no line across missing samples
            signal.line(int(j) + 1, False)
        fig.draw(signal)
    if c.kinks:
        xs, ys = _kink_points(c)
        kept = [(x, y) for x, y in zip(xs, ys) if abs(y) <= LARGEST_DRAWN]
        if kept:
            fig.draw(fig.signal([x for x, _ in kept], [y for _, y in kept], marker="x").label("kink"))
    fig.title(f"{c.output_name} and its derivatives in {c.wrt}")
    fig.label(c.wrt, axis=0)


def _kink_points(c) -> tuple[list, list]:
    """Where the kinks sit: on the curve of the derivative that has them (d_(k-1) at x)."""
    xs, ys = [], []
    for x, k in c.kinks:
        i = int(np.argmin(np.abs(c.xs - x)))
        y = c.values[k - 1][i]
        if math.isfinite(y):
            xs.append(x)
            ys.append(float(y))
    return xs, ys


def _terminal_surface(fig, s, width: int, height: int) -> None:
    fig.subplots(1, 2)
    # a mark at more places than the panel has cells, so that every cell gets one
    cols, rows = max(4, width // 2), max(4, height)
    px = np.linspace(s.xs[0], s.xs[-1], cols)
    py = np.linspace(s.ys[0], s.ys[-1], rows)
    xi = np.abs(s.xs[None, :] - px[:, None]).argmin(axis=1)   # the nearest sample
    yi = np.abs(s.ys[None, :] - py[:, None]).argmin(axis=1)
    for col, (title, z) in enumerate(_surface_panels(s), start=1):
        panel = fig.subplot(1, col)
        cells = _drawable(z[np.ix_(yi, xi)])
        finite = cells[np.isfinite(cells)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        scale = (len(SHADES) - 1) / (hi - lo) if hi > lo else 0.0
        for r, y in enumerate(py):
            marks = [SHADES[int(round((v - lo) * scale))] if math.isfinite(v) else " " for v in cells[r]]
            panel.draw(panel.signal(px.tolist(), [float(y)] * cols, marker=marks))
        panel.title(title)
        panel.label(f"{s.wrt[0]} across, {s.wrt[1]} up", axis=0)


# -- files -------------------------------------------------------------------------------------


FORMATS = ("svg", "png")


def save(result, path: str, fmt: str) -> None:
    """Write the plot to `path` as SVG or PNG with matplotlib's Agg canvas (no display needed)."""
    matplotlib = load("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if hasattr(result, "values"):
        fig = Figure(figsize=(7, 4.5), dpi=100)
        FigureCanvasAgg(fig)
        _file_curve(fig, result)
    else:
        fig = Figure(figsize=(10, 4.2), dpi=100)
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


def _file_curve(fig, c) -> None:
    ax = fig.add_subplot()
    for label, v in zip(labels(c), c.values):
        ax.plot(_drawable(c.xs), _drawable(v), label=label, linewidth=1.5)   # NaN breaks the line
    if c.kinks:
        xs, ys = _kink_points(c)
        ax.plot(xs, _drawable(ys), "x", color="black", markersize=8, label="kink")
        for x in xs:
            ax.axvline(x, color="gray", linewidth=0.8, linestyle=":")
    ax.axhline(0, color="gray", linewidth=0.5)
    ax.set_xlabel(c.wrt)
    ax.set_title(f"{c.output_name} and its derivatives in {c.wrt}")
    ax.grid(True, alpha=0.3)
    ax.legend()


def _file_surface(fig, s) -> None:
    for col, (title, z) in enumerate(_surface_panels(s), start=1):
        ax = fig.add_subplot(1, 2, col)
        mesh = ax.pcolormesh(s.xs, s.ys, np.ma.masked_invalid(_drawable(z)), shading="nearest",
                             cmap="viridis")
        fig.colorbar(mesh, ax=ax)
        ax.set_title(title)
        ax.set_xlabel(s.wrt[0])
        ax.set_ylabel(s.wrt[1])
