"""The containers: Sequential, ModuleList, ModuleDict."""
from __future__ import annotations

from collections import OrderedDict

from ...errors import ProgramError
from .module import Module


# --- containers --------------------------------------------------------------


class Sequential(Module):
    """Modules called in order; indexing gives a module, slicing a Sequential."""

    program_iterable = True
    public = ("append",)

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], dict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def _index(self, idx: int) -> int:
        size = len(self._modules)
        idx = int(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return idx % size

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx])) \
                if type(self) is Sequential else ModuleList(list(self._modules.values())[idx])
        return list(self._modules.values())[self._index(idx)]

    def __setitem__(self, idx, module):
        key = list(self._modules)[self._index(idx)]
        self.add_module(key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Sequential):
    """A list of modules, registered as 0, 1, ... (not callable)."""

    public = ("append", "extend", "insert")

    def __init__(self, modules=None):
        Module.__init__(self)
        if modules is not None:
            self.extend(modules)

    def extend(self, modules):
        for module in list(modules):
            self.append(module)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(int(index), module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def forward(self, *args, **kwargs):
        raise ProgramError("ModuleList is not callable: call the modules it holds",
                           hint="for layer in self.layers: x = layer(x)")


class ModuleDict(Module):
    """A dict of modules by name, in insertion order."""

    program_iterable = True
    public = ("keys", "values", "items", "update")

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules))

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return list(self._modules.keys())

    def values(self):
        return list(self._modules.values())

    def items(self):
        return list(self._modules.items())

    def update(self, modules):
        items = modules.items() if isinstance(modules, dict) else modules
        for key, module in items:
            self.add_module(key, module)

    def forward(self, *args, **kwargs):
        raise ProgramError("ModuleDict is not callable: call the modules it holds")
