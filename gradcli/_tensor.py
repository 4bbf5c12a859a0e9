"""The Tensor: a numpy array of one of PyTorch's dtypes, with PyTorch's autograd attributes.

This module owns the tensor object and the grad mode. It knows nothing about
individual ops: `gradcli.ops` attaches the operator overloads and op methods
(`x + y`, `x.sin()`) from the op table, so that one place defines each op, and
the in-place machinery (`ops/views.py`: `_inplace`, `zero_`, ...).
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from . import dtypes as _dtypes
from .errors import AutogradError, LimitError, ProgramTypeError, ShapeError
from .format import format_tensor
from .limits import MAX_LIST_ITEMS, NUMBERS_PER_WORK, OP_WORK, budget as _budget

ndarray = np.ndarray
float64 = np.float64


# -- grad mode -----------------------------------------------------------------

_grad_enabled = [True]  # a one-element list: read on every op, so kept a cheap global


def is_grad_enabled() -> bool:
    return _grad_enabled[0]


class _GradMode:
    """Base of the grad-mode switches: a context manager and a decorator."""

    __slots__ = ("_prev", "_mode")

    def __init__(self, mode: bool):
        self._mode = bool(mode)

    def __enter__(self):
        self._prev = _grad_enabled[0]
        _grad_enabled[0] = self._mode
        return self

    def __exit__(self, *exc):
        _grad_enabled[0] = self._prev
        return False

    def __call__(self, fn):
        mode = self._mode

        def wrapper(*args, **kwargs):
            with _GradMode(mode):
                return fn(*args, **kwargs)

        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper


class no_grad(_GradMode):
    """Disable graph recording: results of ops do not require grad."""

    __slots__ = ()

    def __init__(self):
        super().__init__(False)


class enable_grad(_GradMode):
    """Enable graph recording inside a no_grad region."""

    __slots__ = ()

    def __init__(self):
        super().__init__(True)


class set_grad_enabled(_GradMode):
    """Set graph recording on or off: at once when called, as PyTorch's does, and
    restored at the end of a `with` block."""

    __slots__ = ()

    def __init__(self, mode: bool):
        super().__init__(mode)
        self._prev = _grad_enabled[0]
        _grad_enabled[0] = self._mode

    def __enter__(self):
        return self

    def __call__(self, fn):
        _grad_enabled[0] = self._prev  # as a decorator it only applies inside fn
        return super().__call__(fn)


# -- limits --------------------------------------------------------------------


check_elements = _budget.check_elements  # refuse (and charge) a tensor before allocating it


def array_tolist(data: np.ndarray) -> list:
    """`tolist()` of a tensor's or a program's numpy array: refused past the list limit and
    charged, before a Python number is made."""
    if data.size > MAX_LIST_ITEMS:
        raise LimitError(f"tolist() of {data.size} elements would make more than "
                         f"{MAX_LIST_ITEMS} Python numbers", hint="the limit is fixed")
    _budget.charge(data.size // NUMBERS_PER_WORK)
    return data.tolist()


# -- shapes --------------------------------------------------------------------


class Size(tuple):
    """A tensor's shape: a tuple that prints as PyTorch's `torch.Size([2, 3])`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)


def shape_str(shape) -> str:
    """A shape as PyTorch writes it in messages: [2, 3]."""
    return "[" + ", ".join(str(d) for d in shape) + "]"


# -- the tensor -----------------------------------------------------------------


class RemovableHandle:
    """What register_hook returns: remove() takes the hook off again.

    Every hook registration makes one, so it charges the registration (a program registering
    hooks in a loop), and remove() its scan of the hook list."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks: list, hook):
        _budget.charge(OP_WORK)
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> None:
        _budget.charge_items(len(self._hooks))
        try:
            self._hooks.remove(self._hook)
        except ValueError:
            pass


BATCH_CHECK = [None]      # vmap's refusal of .item() / bool() on a batched tensor (ops/dual.py)
TANGENT_SUFFIX = [None]   # forward mode's `tangent=...` in a tensor's repr, while a dual level is active

NEVER_MODIFIED = (0,)  # the version counter of every tensor not yet modified in place (read-only)
# In-place modifications made in this process, all tensors together: a node made since the last
# one saved nothing that has changed, and its backward skips the per-tensor version check.
MODIFICATIONS = [0]


def version_counter(t) -> list:
    """`t`'s own version counter, to share (a view, a detached alias, a saved output)."""
    counter = t._counter
    if counter is NEVER_MODIFIED:
        counter = t._counter = [0]
    return counter


def bump_version(t) -> None:
    """An in-place modification of `t` (and of everything sharing its counter)."""
    version_counter(t)[0] += 1
    MODIFICATIONS[0] += 1


# the state of a new tensor besides its data and requires_grad: Tensor.__init__ sets these
_FRESH = (("_grad", None), ("grad_fn", None), ("_output_nr", 0), ("_counter", NEVER_MODIFIED),
          ("_hooks", None), ("_accumulator", None), ("_retains_grad", False), ("_base", None),
          ("_views", None))


class _TensorClass(type):
    """Tensor's metaclass: the class prints as PyTorch's does (`<class 'torch.Tensor'>`)."""

    def __repr__(cls) -> str:
        from .errors import CLASS_NAME

        return f"<class '{CLASS_NAME[0](cls) or cls.__qualname__}'>"


class Tensor(metaclass=_TensorClass):
    """A tensor that records the operations applied to it.

    `_data` is the numpy array; `_counter` the version counter (`_version`), a
    one-element list shared with `detach()`ed aliases and views and bumped by
    in-place ops, so that a saved tensor modified in place is detected at
    backward, as PyTorch does. Until a tensor is modified in place or shares its
    counter, `_counter` is the shared `NEVER_MODIFIED` (one object fewer per tensor
    for the cyclic collector): `bump_version` and `version_counter` give it its own.
    A view keeps its root base in `_base`; a base keeps its live views in `_views`
    (see `ops/views.py`).
    """

    __slots__ = (
        "_data", "_grad", "grad_fn", "requires_grad", "_output_nr", "_counter",
        "_hooks", "_accumulator", "_retains_grad", "_base", "_views", "_view_kind", "__weakref__",
    )

    def __init__(self, data, requires_grad: bool = False):
        """`torch.Tensor(data)`: the default float dtype (a float array the engine passes keeps its own)."""
        if isinstance(data, ndarray) and data.dtype.kind == "f":
            arr = np.array(data)
        else:
            arr = np.array(data, dtype=_dtypes.get_default_dtype().np)
        self._data = arr
        self.requires_grad = bool(requires_grad)
        for name, value in _FRESH:
            setattr(self, name, value)

    @classmethod
    def _make(cls, data: ndarray, grad_fn=None, requires_grad: bool = False,
              output_nr: int = 0, version=None) -> "Tensor":
        """Wrap an array without copying (the engine's constructor; it sets each field by hand,
        not from _FRESH, as ops/apply.py does inline: the hot path)."""
        t = cls.__new__(cls)
        t._data = data
        t._grad = None
        t.grad_fn = grad_fn
        t.requires_grad = requires_grad
        t._output_nr = output_nr
        t._counter = NEVER_MODIFIED if version is None else version
        t._hooks = None
        t._accumulator = None
        t._retains_grad = False
        t._base = None
        t._views = None
        return t

    # -- plain attributes ---------------------------------------------------

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        """PyTorch's checks on `x.grad = value`: a tensor of x's shape, or None."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise ProgramTypeError("assigned grad expected to be a Tensor or None but got grad of type "
                                       f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise ShapeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                                 f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                                 "and the tensor are the same size")
        self._grad = value

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_dim(dim, self._data.ndim)]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    @property
    def dtype(self):
        return _dtypes.BY_NUMPY[self._data.dtype]

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    @property
    def itemsize(self) -> int:
        return self._data.dtype.itemsize

    def element_size(self) -> int:
        return self._data.dtype.itemsize

    @property
    def data(self) -> "Tensor":
        """The same storage, untracked, with a version counter of its own."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise ProgramTypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    @property
    def _version(self) -> int:
        return self._counter[0]

    def item(self) -> float:
        if BATCH_CHECK[0] is not None:
            BATCH_CHECK[0](self, "item")
        if self._data.size != 1:
            raise ShapeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.item()  # a float32's value exactly, an int as int, a bool as bool

    def tolist(self):
        if BATCH_CHECK[0] is not None:
            BATCH_CHECK[0](self, "tolist")
        return array_tolist(self._data)

    def numpy(self) -> ndarray:
        if BATCH_CHECK[0] is not None:
            BATCH_CHECK[0](self, "numpy")
        if self.requires_grad:
            raise AutogradError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    # -- graph attributes ---------------------------------------------------

    def detach(self) -> "Tensor":
        """The same storage and version counter, cut out of the graph."""
        if BATCH_CHECK[0] is not None:   # inside vmap: a batched tensor detaches its physical one
            batched = BATCH_CHECK[0](self, "detach")
            if batched is not None:
                return batched
        return Tensor._make(self._data, version=version_counter(self))

    def detach_(self) -> "Tensor":
        self.grad_fn = None
        self.requires_grad = False
        self._output_nr = 0
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if BATCH_CHECK[0] is not None:   # inside vmap: PyTorch's refusal
            BATCH_CHECK[0](self, "requires_grad_")
        return self._set_requires_grad(requires_grad)

    def _set_requires_grad(self, requires_grad: bool = True) -> "Tensor":
        """requires_grad_'s checks without vmap's refusal (factories, Parameter, the setter)."""
        if self.grad_fn is not None:
            if not requires_grad:
                raise AutogradError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a "
                    "computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self._data.dtype.kind != "f":
            raise AutogradError("Only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad = bool(requires_grad)
        return self

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise AutogradError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self.grad_fn._add_tensor_hook(self._output_nr, _RetainGrad(self), retains=True)

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def register_hook(self, hook) -> RemovableHandle:
        """Call hook(grad) when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self.requires_grad:
            raise AutogradError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            self._hooks.append(hook)
            return RemovableHandle(self._hooks, hook)
        return self.grad_fn._add_tensor_hook(self._output_nr, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        if BATCH_CHECK[0] is not None:   # inside vmap: PyTorch's refusal
            BATCH_CHECK[0](self, "backward")
        from .autograd.engine import backward

        backward([self], None if gradient is None else [gradient], retain_graph, create_graph,
                 inputs=inputs)

    # -- Python protocol ------------------------------------------------------

    __hash__ = object.__hash__

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise ProgramTypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __bool__(self) -> bool:
        if BATCH_CHECK[0] is not None:
            BATCH_CHECK[0](self, "bool")
        if self._data.size != 1:
            raise ShapeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data)

    def __float__(self) -> float:
        return self.item()

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        value = self.item()
        if self._data.dtype.kind not in "iub":
            raise ProgramTypeError("only integer tensors of a single element can be converted to an index")
        return int(value)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and self._data.dtype != np.bool_:
            return format(self.item(), spec)
        return format(str(self), spec)

    def __repr__(self) -> str:
        if BATCH_CHECK[0] is not None:   # inside vmap: a batched tensor prints as PyTorch's does
            shown = BATCH_CHECK[0](self, "repr")
            if shown is not None:
                return shown
        suffixes = []
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        if TANGENT_SUFFIX[0] is not None:   # a dual tensor's tangent (set by ops/dual.py)
            TANGENT_SUFFIX[0](self, suffixes)
        return format_tensor(self._data, suffixes, _dtypes.get_default_dtype().np)

    __str__ = __repr__


class _RetainGrad:
    """The hook retain_grad() installs: stores the incoming gradient in `.grad`."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: Tensor):
        self._tensor = weakref.ref(tensor)

    def __call__(self, grad: Tensor) -> None:
        tensor = self._tensor()
        if tensor is None:
            return None
        if tensor.grad is None:
            tensor.grad = grad if grad.grad_fn is not None else Tensor._make(grad._data.copy())
        elif grad.grad_fn is not None or tensor.grad.grad_fn is not None:
            tensor.grad = tensor.grad + grad
        else:
            tensor.grad._data = tensor.grad._data + grad._data
        return None


def _dim(dim, ndim: int) -> int:
    """Normalize a possibly negative dim, with PyTorch's error when out of range."""
    dim = as_int(dim, "dim")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise ShapeError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _dims(dims, ndim: int) -> tuple:
    """A list of dims, each normalized, with PyTorch's error for one given twice."""
    out = []
    for d in dims:
        a = _dim(d, ndim)
        if a in out:
            raise ShapeError(f"dim {a} appears multiple times in the list of dims")
        out.append(a)
    return tuple(out)


def as_int(value, what: str = "an integer") -> int:
    """An integer where one is needed: an integral float or one-element tensor is accepted."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise ProgramTypeError(f"{what} must be an integer, not a tensor of {value._data.size} elements")
        value = value._data.item()
        if isinstance(value, int) and not isinstance(value, bool):   # x[torch.tensor(2)] = v
            return value
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    raise ProgramTypeError(f"{what} must be an integer, got {value!r}")

