"""`torch.nn` as far as gradcli goes: modules (`modules`), losses (`loss`), `init`.

The names are read from `public.py`, imported on the first read of one (PEP 562's module
`__getattr__`): the language's start imports only the Module base (`modules/module.py`,
for its class statement and its sandbox), and a program that uses no layer loads none.
"""
from __future__ import annotations


def __getattr__(name: str):
    if name == "public":  # being imported: the import system finds it in sys.modules
        raise AttributeError(name)
    from . import public

    try:
        return getattr(public, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
