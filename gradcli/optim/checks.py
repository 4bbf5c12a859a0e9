"""What a program may have written into an optimizer, checked where the optimizer reads it.

A program reaches `opt.param_groups` (a list of dicts), `opt.state` (a dict keyed by
parameter) and a scheduler's `base_lrs` as plain lists and dicts, and may put anything in
them: `opt.param_groups[0]['params'] = [1, 'a', None]`, `opt.state[p]['exp_avg'] =
torch.zeros(5)`, `['betas'] = 5`. `step()`, `zero_grad()`, `add_param_group()`, the
schedulers and `repr` read them through these functions, which refuse a wrong value with
PyTorch's error where it has a clear one and a plain one where PyTorch's is an accident
of its implementation (an AttributeError on an int), and charge the walk and the update
to the run's budget: a step touches every element of every parameter a few dozen times.
"""
from __future__ import annotations

import numpy as np

from ..errors import ProgramError, ProgramTypeError, ProgramValueError, type_name
from ..limits import budget, check_walk
from .._tensor import Tensor

# numpy passes over a parameter's elements in one update (Adam's, the longest: the fused
# multiply-adds are ~20 passes each), charged before the update runs
UPDATE_PASSES = 64


def _key_error(message: str, key) -> ProgramError:
    """PyTorch's KeyError for a missing option (a program's `except KeyError` catches it)."""
    error = ProgramError(message)
    error.__cause__ = KeyError(key)
    return error


def params_of(params, where: str) -> list:
    """A group's `params` as a list of Tensors, taken item by item (so `range(10**9)` is
    refused at its first item, not after a list of 10^9 is built)."""
    if isinstance(params, Tensor):
        return [params]
    if isinstance(params, (set, frozenset, dict)):
        raise ProgramTypeError("optimizer parameters need to be organized in ordered collections, "
                               "but the ordering of tensors in sets will change between runs. "
                               "Please use a list instead.")
    if not hasattr(params, "__iter__"):
        raise ProgramTypeError(f"{where} must be a list of Tensors, not {type_name(params)}")
    taken = []
    for p in params:
        if not isinstance(p, Tensor):
            raise ProgramTypeError(f"optimizer can only optimize Tensors, but one of the params "
                                   f"is {type_name(p)}")
        taken.append(p)
    budget.charge_items(len(taken))
    return taken


def groups(opt) -> list:
    """(group, params) of every group, checked: a dict with a `params` list of Tensors; the
    walk charged. What step(), zero_grad() and add_param_group() read."""
    checked = []
    for i, group in enumerate(opt.param_groups):
        if group.__class__ is not dict:
            raise ProgramTypeError(f"param_groups[{i}] must be a dict, not {type_name(group)}")
        if "params" not in group:
            raise _key_error(f"param_groups[{i}] has no 'params'", "params")
        params = group["params"]
        if params.__class__ is not list and params.__class__ is not tuple:
            raise ProgramTypeError(f"param_groups[{i}]['params'] must be a list of Tensors, "
                                   f"not {type_name(params)}")
        for p in params:
            if not isinstance(p, Tensor):
                raise ProgramTypeError(f"optimizer can only optimize Tensors, but one of the "
                                       f"params is {type_name(p)} (in param_groups[{i}])")
        budget.charge_items(len(params) + 1)
        checked.append((group, params))
    return checked


def option(group: dict, key: str):
    """A group's option, present (PyTorch's KeyError if the program removed it)."""
    try:
        return group[key]
    except KeyError:
        raise _key_error(f"the parameter group has no option '{key}'", key) from None


def number(group: dict, key: str) -> float:
    """A numeric option (lr, eps, momentum, ...): a real number or a one-element Tensor."""
    value = option(group, key)
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise ProgramValueError(f"the option '{key}' must be a number or a one-element "
                                    f"Tensor, not a Tensor of {value._data.size} elements")
        value = value._data.reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise ProgramTypeError(f"the option '{key}' must be a number, not {type_name(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ProgramValueError(f"the option '{key}' is too large: {value:.3e}") from None


def flag(group: dict, key: str) -> bool:
    """A yes/no option (maximize, nesterov, amsgrad, centered): bool, int or None."""
    value = option(group, key)
    if value is None:
        return False
    if not isinstance(value, (bool, np.bool_, int, np.integer)):
        raise ProgramTypeError(f"the option '{key}' must be a bool, not {type_name(value)}")
    return bool(value)


def pair(group: dict, key: str) -> tuple:
    """Adam's `betas`: two numbers."""
    value = option(group, key)
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ProgramTypeError(f"the option '{key}' must be a pair of numbers, not "
                               f"{type_name(value)}" + (f" of {len(value)} items"
                                                        if isinstance(value, (tuple, list)) else ""))
    return tuple(number({key: v}, key) for v in value)


def charge_update(p: Tensor) -> None:
    """Charge one parameter's update before it runs."""
    budget.charge_elements(p._data.size * UPDATE_PASSES)


def state_of(opt, p: Tensor) -> dict:
    """`opt.state[p]`, a dict (made empty if absent), as the update reads it."""
    state = opt.state.get(p)
    if state is None:
        state = opt.state[p] = {}
    elif state.__class__ is not dict:
        raise ProgramTypeError(f"the optimizer's state of a parameter must be a dict, not "
                               f"{type_name(state)}")
    return state


def state_tensor(state: dict, key: str, p: Tensor) -> np.ndarray:
    """The array of a state Tensor the update writes in place: a Tensor of the parameter's
    shape and dtype whose storage can be written (PyTorch's in-place ops refuse the others)."""
    if key not in state:
        raise _key_error(f"the optimizer's state of a parameter has no '{key}'", key)
    value = state[key]
    if not isinstance(value, Tensor):
        raise ProgramTypeError(f"the optimizer's state '{key}' must be a Tensor, not "
                               f"{type_name(value)}")
    data = value._data
    if data.shape != p._data.shape:
        raise ProgramError(f"the optimizer's state '{key}' has shape {list(data.shape)}, but its "
                           f"parameter has shape {list(p._data.shape)}")
    if data.dtype != p._data.dtype:
        raise ProgramError(f"the optimizer's state '{key}' is of dtype {value.dtype}, but its "
                           f"parameter is of dtype {p.dtype}")
    return _writable(value, key)


def step_count(state: dict) -> np.ndarray:
    """The `step` counter's array: a one-element Tensor."""
    return _one_element(state, "step", np.number, "a number")


def scalar_state(state: dict, key: str) -> np.ndarray:
    """A one-element state Tensor the update writes in place (NAdam's `mu_product`)."""
    return _one_element(state, key, np.floating, "a floating Tensor")


def _one_element(state: dict, key: str, kind, kind_words: str) -> np.ndarray:
    """The array of the one-element Tensor at `state[key]`, of a dtype under `kind`."""
    if key not in state:
        raise _key_error(f"the optimizer's state of a parameter has no '{key}'", key)
    value = state[key]
    if not isinstance(value, Tensor) or value._data.size != 1:
        what = f"a Tensor of {value._data.size} elements" if isinstance(value, Tensor) \
            else type_name(value)
        raise ProgramTypeError(f"the optimizer's state '{key}' must be a one-element Tensor, not {what}")
    if not np.issubdtype(value._data.dtype, kind):
        raise ProgramTypeError(f"the optimizer's state '{key}' must be {kind_words}, not {value.dtype}")
    return _writable(value, key)


def _writable(value: Tensor, key: str) -> np.ndarray:
    data = value._data
    if data.__class__ is not np.ndarray or not data.flags.writeable:
        if data.__class__ is np.ndarray and 0 in data.strides and data.size > 1:
            raise ProgramError(f"the optimizer's state '{key}': unsupported operation: more than "
                               "one element of the written-to tensor refers to a single memory "
                               "location. Please clone() the tensor before performing the "
                               "operation.")
        value._data = data = np.array(data)
    return data


def lr_of(value, what: str) -> float:
    """A scheduler's learning rate (a group's `lr`, an entry of `base_lrs`): a number."""
    if what == "lr":
        return number({what: value}, what)
    if isinstance(value, Tensor) and value._data.size == 1:
        return float(value._data.reshape(()).item())
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise ProgramTypeError(f"the scheduler's {what} must hold numbers, not {type_name(value)}")
    return float(value)


def repr_checked(opt) -> None:
    """Before `repr(opt)` prints every option of every group: the walk charged, each group
    a dict (a program's value in an option may be any size)."""
    for i, group in enumerate(opt.param_groups):
        if group.__class__ is not dict:
            raise ProgramTypeError(f"param_groups[{i}] must be a dict, not {type_name(group)}")
        for key, value in group.items():
            if key != "params":
                check_walk(value)
