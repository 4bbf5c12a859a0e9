"""A Jacobian or Hessian over several inputs as one labelled grid of numbers.

Rows are the output's elements (a Jacobian) or the inputs' elements (a Hessian),
columns the inputs' elements, each labelled (`x`, `w[1]`, `y[0, 2]`); every number
in one style, as PyTorch would print the matrix (`format._Formatter`). The grid
uses the terminal's width ($COLUMNS, else the terminal's; 80 in a pipe) and, when
it is wider, folds into blocks of columns, each under its own header: never one
line per pair of inputs.
"""
from __future__ import annotations

import shutil
import sys

import numpy as np

from ..format import _Formatter

PIPE_WIDTH = 80
MAX_CELLS = 10_000  # past this many numbers a grid says less than the tensors do: not used


def width() -> int:
    """On a terminal, its width ($COLUMNS if set, else the terminal's own); 80 when standard
    output is a pipe or a file, so that piped output is the same wherever it runs."""
    try:
        if not sys.stdout.isatty():
            return PIPE_WIDTH
    except (AttributeError, ValueError):
        return PIPE_WIDTH
    return max(shutil.get_terminal_size((PIPE_WIDTH, 24)).columns, 20)


def labels(name: str, shape: tuple) -> list[str]:
    """`x` for a one-element tensor, else `x[i]` / `x[i, j]` for each element in order."""
    if int(np.prod(shape, dtype=np.int64)) == 1:
        return [name]
    return [f"{name}[{', '.join(map(str, idx))}]" for idx in np.ndindex(*shape)]


def grid_lines(title: str, row_labels: list, col_labels: list, matrix: np.ndarray,
               columns: int | None = None) -> list[str]:
    """The grid's lines: a title, then blocks of as many columns as fit in `columns`."""
    matrix = np.asarray(matrix, dtype=np.float64).reshape(len(row_labels), len(col_labels))
    cells = _texts(matrix)
    cell = max([len(c) for c in col_labels] + [len(c) for row in cells for c in row] + [1])
    left = max(len(r) for r in row_labels)
    total = columns or width()
    per_block = max(1, (total - left) // (cell + 2))
    lines = [title]
    for start in range(0, len(col_labels), per_block):
        stop = min(start + per_block, len(col_labels))
        if start:
            lines.append("")
        if len(col_labels) > per_block:
            lines.append(f"columns {start + 1}-{stop} of {len(col_labels)}")
        lines.append(" " * left + "".join(f"  {c:>{cell}}" for c in col_labels[start:stop]))
        for label, row in zip(row_labels, cells):
            lines.append(f"{label:<{left}}" + "".join(f"  {c:>{cell}}" for c in row[start:stop]))
    return lines


def _texts(matrix: np.ndarray) -> list:
    """Every number in one style: PyTorch's (`format._Formatter`), except that a wide spread
    of magnitudes alone does not switch a grid to scientific notation (432. beside 0.3175
    reads better as 432.0000 and 0.3175 than as 4.3200e+02 and 3.1750e-01)."""
    fmt = _Formatter(matrix)
    finite = np.abs(matrix[np.isfinite(matrix) & (matrix != 0)])
    if fmt.sci_mode and not fmt.int_mode and finite.size and finite.max() <= 1e8 \
            and finite.min() >= 1e-4:
        return [[f"{v:.4f}" for v in row] for row in matrix.tolist()]
    return [[fmt.format(v).strip() for v in row] for row in matrix.tolist()]


def jacobian_grid(output_name: str, output, blocks: dict) -> list[str] | None:
    """The Jacobian of every input side by side, or None when a grid would not help."""
    out_shape = tuple(output._data.shape)
    rows = labels(output_name, out_shape)
    cols, parts = [], []
    for name, blk in blocks.items():
        in_shape = tuple(blk._data.shape[len(out_shape):])
        cols += labels(name, in_shape)
        parts.append(np.asarray(blk._data, dtype=np.float64).reshape(len(rows), -1))
    if len(rows) * len(cols) > MAX_CELLS:
        return None
    title = f"Jacobian d{output_name}/d({', '.join(blocks)}): rows {output_name}, columns the inputs"
    return grid_lines(title, rows, cols, np.concatenate(parts, axis=1))


def hessian_grid(output_name: str, wrt: list, blocks: dict) -> list[str] | None:
    """All second partials of a scalar output as one symmetric grid, or None if too large."""
    shapes = {}
    for a in wrt:
        for b in wrt:
            v = blocks[a][b]
            if v is None:
                return None
    for a in wrt:
        diag = blocks[a][a]._data
        shapes[a] = diag.shape[:diag.ndim // 2]
    labs = [lab for a in wrt for lab in labels(a, shapes[a])]
    if len(labs) ** 2 > MAX_CELLS:
        return None
    rows = []
    for a in wrt:
        na = int(np.prod(shapes[a], dtype=np.int64))
        rows.append(np.concatenate([np.asarray(blocks[a][b]._data, dtype=np.float64).reshape(
            na, int(np.prod(shapes[b], dtype=np.int64))) for b in wrt], axis=1))
    title = f"Hessian of {output_name}: d²{output_name}/d(row)d(column)"
    return grid_lines(title, labs, labs, np.concatenate(rows, axis=0))
