"""collections.OrderedDict as PyTorch programs see it: what `state_dict()` gives.

A dict that prints as Python 3.11's OrderedDict, `OrderedDict([('weight', tensor(...)),
...])`, as PyTorch prints a state dict (Python 3.12 changed the form: this one does not
follow the Python that runs gradcli). Here, below the language and nn, so both make it.
"""
from __future__ import annotations

from reprlib import recursive_repr

# A program's iterable as a bounded list (the language's `materialize`, installed by
# lang/stdlib.py): `OrderedDict(zip(keys, values))` is held to the length limit.
ITEMS = [list]


class OrderedDict(dict):
    """A dict printed as `OrderedDict([(key, value), ...])`."""

    __slots__ = ()

    def __init__(self, items=(), **kwargs):
        super().__init__(items if isinstance(items, dict) else ITEMS[0](items))
        self.update(kwargs)

    @recursive_repr()
    def __repr__(self) -> str:
        if not self:
            return "OrderedDict()"
        return f"OrderedDict({list(self.items())!r})"

    __str__ = __repr__
