"""What happens when a node saves a tensor for backward: saved_tensors_hooks and inference tensors.

`torch.autograd.graph.saved_tensors_hooks(pack, unpack)` calls `pack(tensor)` for
each tensor a node saves inside the block, and `unpack(packed)` when backward (or
`grad_fn._saved_self`) reads it back, as PyTorch does. A tensor made under
`inference_mode` cannot be saved at all. Nothing here costs anything while no
hook is active and no inference tensor was made: the op table calls `on_save`
only when `hooks_or_inference[0]` is set.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..errors import AutogradError, ProgramTypeError
from .._tensor import Tensor, _GradMode
from .callback import call_program

class TensorMap:
    """tensor -> value, held weakly and by identity (a WeakKeyDictionary compares keys
    with `==`, which is elementwise on tensors)."""

    __slots__ = ("_data",)

    def __init__(self):
        self._data = {}

    def __len__(self) -> int:
        return len(self._data)

    def get(self, t, default=None):
        entry = self._data.get(id(t))
        return entry[1] if entry is not None and entry[0]() is t else default

    def __contains__(self, t) -> bool:
        entry = self._data.get(id(t))
        return entry is not None and entry[0]() is t

    def __setitem__(self, t, value) -> None:
        data = self._data
        key = id(t)

        def forget(ref):
            entry = data.get(key)
            if entry is not None and entry[0] is ref:
                del data[key]

        data[key] = (weakref.ref(t, forget), value)


_stack: list = []                      # (pack, unpack) of the active saved_tensors_hooks, innermost last
_inference = TensorMap()               # tensors made under inference_mode (-> True)
_inference_depth = [0]
_packed = weakref.WeakKeyDictionary()  # OpNode -> {input index: packed value}
hooks_or_inference = [False]           # read by ops.registry before calling on_save

INFERENCE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
    "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
    "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


def _refresh() -> None:
    hooks_or_inference[0] = bool(_stack) or bool(_inference_depth[0]) or len(_inference) > 0


def active() -> bool:
    return bool(_stack)


class saved_tensors_hooks:
    """`with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):`."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _stack.append((self.pack_hook, self.unpack_hook))
        _refresh()
        return self

    def __exit__(self, *exc):
        _stack.pop()
        _refresh()
        return False


class save_on_cpu(saved_tensors_hooks):
    """`torch.autograd.graph.save_on_cpu(pin_memory=False)`: every tensor is on the CPU already."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class disable_saved_tensors_hooks(saved_tensors_hooks):
    """`torch.autograd.graph.disable_saved_tensors_hooks(error_message)`: saving inside is
    the error (it stands as its own pack hook, which `pack` recognizes)."""

    def __init__(self, error_message):
        super().__init__(self, self)
        self.error_message = str(error_message)


def check_savable(t: Tensor) -> None:
    if _inference and t in _inference:
        raise AutogradError(INFERENCE_MESSAGE)


def pack(t: Tensor):
    """The innermost pack hook's value for `t` (kept with the unpack hook that reads it)."""
    check_savable(t)
    pack_hook, unpack_hook = _stack[-1]
    if isinstance(pack_hook, disable_saved_tensors_hooks):
        raise AutogradError(pack_hook.error_message)
    return (unpack_hook, call_program("pack_hook", None, pack_hook, t))


def unpack(packed):
    if packed is None:
        return None
    unpack_hook, value = packed
    out = call_program("unpack_hook", None, unpack_hook, value)
    if not isinstance(out, Tensor):
        from ..errors import type_name

        raise ProgramTypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                               f"result of type {type_name(out)}")
    return out


def on_save(node) -> None:
    """An OpNode was just made: refuse an inference tensor it saves, pack what it saves
    under saved_tensors_hooks (in the order its rules read them, as PyTorch packs)."""
    if not _stack and not len(_inference):
        _refresh()   # the last inference tensor is gone: the op table can stop calling
        return
    if node.saved is None or node.versions is None:
        return
    order = []
    for plan in node.op.plans:
        for kind, key in plan or ():
            if kind == 0 and key not in order and node.versions[key] is not None:
                order.append(key)
    for i, version in enumerate(node.versions):
        if version is not None and i not in order:
            order.append(i)
    for i in order:
        check_savable(node.saved[i])
    if _stack:
        _packed[node] = {i: pack(node.saved[i]) for i in order}


def on_save_result(node) -> None:
    """An OpNode saved its output: pack it (as the output tensor, as PyTorch passes it)."""
    if _stack:
        output = Tensor._make(node.result, node, True, 0, node._result_counter)
        _packed.setdefault(node, {})["result"] = pack(output)


def forget(node) -> None:
    """The node was freed: what was packed for it goes too (a packed output refers to it)."""
    _packed.pop(node, None)


def unpack_node(node) -> None:
    """Before an OpNode's backward: its saved tensors as the unpack hooks give them back."""
    packed = _packed.get(node)
    if not packed:
        return
    if node.released:   # freed: the node's own check gives PyTorch's error
        del _packed[node]
        return
    if "result" in packed:
        node.result = unpack(packed["result"])._data
        if len(packed) == 1:
            return
    saved = list(node.saved)
    versions = list(node.versions)
    for i, value in packed.items():
        if i == "result":
            continue
        out = unpack(value)
        if out._data.shape != np.shape(saved[i]._data):
            pass  # PyTorch does not check either: the rule's own error says what went wrong
        saved[i] = out
        versions[i] = None
    node.saved = tuple(saved)
    node.versions = tuple(versions)


def saved_value(node, index):
    """Saved input `index` (or "result") of an OpNode, through the unpack hook if it was packed."""
    packed = _packed.get(node)
    if packed and index in packed:
        out = unpack(packed[index])
        if index == "result":   # PyTorch gives a saved output back as the node's output
            out = Tensor._make(out._data, node, True, 0, node._result_counter)
        return out
    if index == "result":
        return Tensor._make(node.result, node, True, 0, node._result_counter)
    return node.saved[index]


# -- inference_mode -------------------------------------------------------------

_plain_make = Tensor.__dict__["_make"]


def _marking_make(cls, *args, **kwargs):
    t = _plain_make.__func__(cls, *args, **kwargs)
    _inference[t] = True
    return t


def enter_inference() -> None:
    """Inside inference_mode every tensor made is an inference tensor (Tensor._make marks it)."""
    _inference_depth[0] += 1
    if _inference_depth[0] == 1:
        Tensor._make = classmethod(_marking_make)
    _refresh()


def exit_inference() -> None:
    _inference_depth[0] -= 1
    if _inference_depth[0] == 0:
        Tensor._make = _plain_make
    _refresh()


class inference_mode(_GradMode):
    """`torch.inference_mode()`: no graph is recorded, as under no_grad, and the tensors
    made inside are inference tensors, which no node may save."""

    __slots__ = ()

    def __init__(self, mode: bool = True):
        super().__init__(not mode)

    def __enter__(self):
        if not self._mode:
            enter_inference()
        return super().__enter__()

    def __exit__(self, *exc):
        if not self._mode:
            exit_inference()
        return super().__exit__(*exc)


def is_inference(t: Tensor) -> bool:
    return t in _inference
