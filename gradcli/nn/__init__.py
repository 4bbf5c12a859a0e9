"""`torch.nn` as far as gradcli goes: modules (`modules`), losses (`loss`), `init`.

The names are read from `public.py`, imported on the first read of one (PEP 562's module
`__getattr__`): the language's start imports only the Module base (`modules/module.py`,
for its class statement and its sandbox), and a program that uses no layer loads none.
"""
from __future__ import annotations


from .modules import public_names

__getattr__ = public_names(__name__)
