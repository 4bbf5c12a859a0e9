"""The text of a tensor, character for character as PyTorch's ``repr`` prints it.

Owns number formatting, layout, summarization and the ``key=value`` suffixes,
following ``torch/_tensor_str.py`` at its default print options, with its
``dtype=`` rule: shown for a floating dtype other than the default and for the
integer dtypes other than int64.
"""

import numpy as np

# PyTorch's default print options (torch.set_printoptions(profile="default")).
PRECISION = 4
THRESHOLD = 1000  # more elements than this and the middle of each dim becomes "..."
EDGEITEMS = 3
LINEWIDTH = 80

PREFIX = "tensor("


class _Formatter:
    """One number style and one width for every element of a tensor."""

    def __init__(self, values: np.ndarray):
        # bool and integer tensors (indices from max(dim)) print their values as Python
        # does, right-justified; int64 is PyTorch's default integer dtype: no suffix.
        self.is_bool = values.dtype == np.bool_ or values.dtype.kind in "iu"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1

        flat = values.reshape(-1)
        if self.is_bool:
            self.width = max([1] + [len(str(v)) for v in flat.tolist()])
            return

        # Zeros, nan and inf never decide the style or the width; this is why
        # tensor([0.0000, 0.5000]) pads nothing and -0. may stick out.
        shown = flat[np.isfinite(flat) & (flat != 0)].tolist()
        if not shown:
            return
        smallest = min(abs(v) for v in shown)
        largest = max(abs(v) for v in shown)
        self.int_mode = all(v.is_integer() for v in shown)
        # Integral values are >= 1, so the 1e-4 test only bites on fractions.
        self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4

        if self.sci_mode:
            texts = [f"{v:.{PRECISION}e}" for v in shown]
        elif self.int_mode:
            texts = [f"{v:.0f}." for v in shown]
        else:
            texts = [f"{v:.{PRECISION}f}" for v in shown]
        self.width = max(len(t) for t in texts)

    def format(self, value) -> str:
        if self.is_bool:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            # The trailing dot marks a float; PyTorch leaves nan and inf bare.
            if np.isfinite(value):
                text += "."
        else:
            text = f"{value:.{PRECISION}f}"
        return text.rjust(self.width)


def _edges(a: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows: EDGEITEMS from each end of every long dim."""
    for axis, size in enumerate(a.shape):
        if size > 2 * EDGEITEMS:
            keep = list(range(EDGEITEMS)) + list(range(size - EDGEITEMS, size))
            a = a.take(keep, axis=axis)
    return a


def _layout(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    """Nested brackets; `indent` is the column just before this level's "["."""
    if a.ndim == 0:
        return fmt.format(a.item())

    n = a.shape[0]
    cut = summarize and n > 2 * EDGEITEMS
    rows = list(range(EDGEITEMS)) + [None] + list(range(n - EDGEITEMS, n)) if cut else range(n)

    if a.ndim == 1:
        # PyTorch's " ..." carries its own space, so it is one item one char wider.
        items = [" ..." if i is None else fmt.format(a[i].item()) for i in rows]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"

    parts = ["..." if i is None else _layout(a[i], indent + 1, summarize, fmt) for i in rows]
    # Each dim beyond the second adds a blank line between blocks.
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _add_suffixes(text: str, suffixes: list[str]) -> str:
    # PyTorch over-counts the last line by one character (two when there is no
    # newline); copied so a suffix wraps exactly where PyTorch wraps it.
    last_line = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            pieces.append(",\n" + " " * len(PREFIX) + suffix)
            last_line = len(PREFIX) + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(pieces) + ")"


def format_tensor(data: np.ndarray, suffixes: list[str] = (), default=np.float64) -> str:
    """``repr`` of a tensor, with `suffixes` such as ``grad_fn=<MulBackward0>``; `default` (the
    default float dtype, numpy's), int64 and bool print no ``dtype=``."""
    a = np.asarray(data)
    dtype = a.dtype
    if dtype != np.bool_ and dtype.kind not in "iu":
        a = a.astype(np.float64, copy=False)

    extra = []
    if a.size == 0:
        # No element shows the shape or dtype, so PyTorch spells out both
        # (the shape only when it is not plain (0,)).
        if a.ndim != 1:
            extra.append(f"size={tuple(a.shape)}")
        if dtype != default:
            extra.append(f"dtype={_dtype_name(dtype)}")
        body = "[]"
    else:
        summarize = a.size > THRESHOLD
        # Only the elements that will be shown set the width and style.
        fmt = _Formatter(_edges(a) if summarize else a)
        body = _layout(a, len(PREFIX), summarize, fmt)
        if dtype != default and dtype != np.int64 and dtype != np.bool_:
            extra.append(f"dtype={_dtype_name(dtype)}")
    return _add_suffixes(PREFIX + body, extra + list(suffixes))


def _dtype_name(dtype: np.dtype) -> str:
    return "torch.bool" if dtype == np.bool_ else f"torch.{dtype.name}"
