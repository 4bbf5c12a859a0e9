"""Plain-text layout that reads the same in a terminal, a file and a pipe.

Tables fit WIDTH columns or fold to "name: value" lists; nothing is cut with "…"
or wrapped, no line ends in a space, and $COLUMNS plays no part. A tensor of
more than one element is a block under its label (`block`), never a table cell.
"""
from __future__ import annotations

from .errors import printable
from .style import paint

WIDTH = 80
GAP = "  "


class Cell(str):
    """A table cell with a colour role (see `style.CODES`); its width is its text's."""

    role: str | None = None

    def __new__(cls, text, role=None):
        cell = super().__new__(cls, text)
        cell.role = role
        return cell


def _painted(text: str) -> str:
    role = getattr(text, "role", None)
    return paint(str(text), role) if role else str(text)


class Table:
    """Columns padded to their widest cell; folded to a list when a row is too wide or a
    cell spans lines."""

    def __init__(self, *headers: str, title: str | None = None):
        self.headers = list(headers)
        self.rows: list[list[str]] = []
        self.title = title

    def add_row(self, *cells) -> None:
        """A row; a cell's control characters (a program's name) escaped before any colour."""
        self.rows.append([_escaped(c if isinstance(c, str) else str(c)) for c in cells])

    def lines(self, width: int = WIDTH) -> list[str]:
        if not self.rows:
            return []
        widths = [max(len(h), *(len(r[i]) for r in self.rows)) for i, h in enumerate(self.headers)]
        multiline = any("\n" in c for r in self.rows for c in r)
        if multiline or sum(widths) + len(GAP) * (len(widths) - 1) > width:
            return self._folded()
        out = [self.title] if self.title else []
        out.append(_join([(h, w) for h, w in zip(self.headers, widths)], plain=True))
        out.append(_join([("-" * w, w) for w in widths], plain=True))
        out.extend(_join(list(zip(r, widths))) for r in self.rows)
        return out

    def _folded(self) -> list[str]:
        """Each row as its first cell, then "  header: value" for the others that are set."""
        out = [self.title] if self.title else []
        for r in self.rows:
            out.append(_painted(r[0]) if r[0] else "-")
            for h, c in zip(self.headers[1:], r[1:]):
                if c == "":
                    continue
                head = f"  {h or 'value'}: "
                first, *rest = str(c).split("\n")
                shown = _painted(Cell(first, getattr(c, "role", None)))
                out.append((head + shown).rstrip())
                out.extend((" " * len(head) + line).rstrip() for line in rest)
        return out

    def text(self, width: int = WIDTH) -> str:
        return "\n".join(self.lines(width))


def _join(cells, plain=False) -> str:
    parts = []
    for i, (c, w) in enumerate(cells):
        last = i == len(cells) - 1
        pad = "" if last else " " * (w - len(c))
        parts.append((str(c) if plain else _painted(c)) + pad)
    return GAP.join(parts).rstrip()


def _escaped(cell: str) -> str:
    """A cell with its control characters escaped (`printable`), keeping its colour role
    and its line breaks."""
    if cell.isprintable():
        return cell
    text = printable(cell, "\n")
    return Cell(text, cell.role) if isinstance(cell, Cell) else text


def block(label: str, text: str, below: bool) -> str:
    """A value with its label: `label = text` on one line, or (`below`: a tensor of more
    than one element, or a text of several lines) the label and the text under it. The
    label's control characters (a program's name) are escaped."""
    label = printable(label)
    if below or "\n" in text:
        return f"{label}\n{text}"
    return f"{label} = {text}"


def clean(text: str) -> str:
    """No line ends in a space."""
    return "\n".join(line.rstrip() for line in text.split("\n"))
