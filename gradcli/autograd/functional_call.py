"""torch.func.functional_call and stack_module_state: a module run with other parameters.

`functional_call(module, tensors, args)` swaps the named parameters and buffers of
`module` (and its submodules, "layer.weight") for the given tensors during one call,
then puts the module's own back: the module's forward becomes a function of its
parameters, which grad, jacrev and vmap can differentiate or map over (per-sample
gradients, model ensembles). Modules are handled through their tables
(`_parameters`, `_buffers`, `_modules`), so this layer needs no import of nn.
"""
from __future__ import annotations

from ..errors import AutogradError, ProgramTypeError
from .._tensor import Tensor
from ..graph.callback import call_program


def _owner(module, dotted: str):
    """(submodule, table, name) of a dotted parameter or buffer name."""
    *path, name = dotted.split(".")
    for part in path:
        modules = module.__dict__.get("_modules") or {}
        if part not in modules:
            raise AutogradError(f"functional_call: the module has no submodule '{part}' (in '{dotted}')")
        module = modules[part]
    for table in ("_parameters", "_buffers"):
        entries = module.__dict__.get(table)
        if entries is not None and name in entries:
            return module, entries, name
    raise AutogradError(f"Unexpected key(s): '{dotted}'.")


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """`module(*args, **kwargs)` with its parameters and buffers replaced by the given tensors."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (tuple, list)):
        merged = {}
        for d in dicts:
            merged.update(d)
        dicts = merged
    if not isinstance(dicts, dict):
        raise ProgramTypeError("functional_call: expected parameter_and_buffer_dicts to be a dict of Tensors, "
                               f"got {type(dicts).__name__}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    swapped = []
    try:
        for key, value in dicts.items():
            if not isinstance(value, Tensor):
                raise ProgramTypeError(f"functional_call: '{key}' must be a Tensor, got {type(value).__name__}")
            _, table, name = _owner(module, key)
            swapped.append((table, name, table[name]))
            table[name] = value
        return call_program("torch.func.functional_call", None, module, *args, **(kwargs or {}))
    finally:
        for table, name, original in reversed(swapped):
            table[name] = original


def stack_module_state(models):
    """(params, buffers): each named parameter and buffer of the models stacked along a new
    first dimension (an ensemble for vmap); the stacked parameters are new leaves."""
    from .. import ops

    models = list(models)
    if not models:
        raise AutogradError("stack_module_state: Expected at least one model, got 0.")
    stacked = []
    for method in ("named_parameters", "named_buffers"):
        names = [name for name, _ in getattr(models[0], method)()]
        out = {}
        for name in names:
            values = [dict(getattr(m, method)())[name] for m in models]
            t = ops.FUNCTIONS["stack"]([v.detach() for v in values])
            if method == "named_parameters":
                t.requires_grad_(values[0].requires_grad)
            out[name] = t
        stacked.append(out)
    return tuple(stacked)
