r"""PyTorch's keyword conventions on the torch functions and Tensor methods, applied once
to the op tables when every op is defined (`tensor_methods.attach`): numpy's `keepdims=`
read as `keepdim=`, and `out=`.

`out=` on the torch functions that take it: `torch.add(x, y, out=z)` writes the result
into `z` and returns `z`, as PyTorch's out= overloads do.

OUT_FUNCTIONS is PyTorch 2.13's list (every torch.<name> gradcli has whose Python
signature has an `out` argument in one of its overloads in
`torch/_C/_VariableFunctions.pyi`: `re.finditer(r"^def (\w+)\((.*?)\) ->", stub, re.S | re.M)`,
then `out: ` in the arguments), and torch.norm (Python-level there); SAME_DTYPE lists
those whose kernels refuse an `out` of another dtype (each tried under PyTorch 2.13).
Any other function refuses `out=` as Python refuses an unknown keyword (PyTorch's own words: "reshape() got an unexpected keyword argument 'out'"). As in
PyTorch: an input or `out` requiring grad under grad mode is refused (out= functions are
not differentiable); the result must be castable to out's dtype; an `out` of another
shape is resized (PyTorch also warns, on stderr); `out` is written in place (a view writes
into its base) and its version bumped.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _grad_enabled, bump_version, check_elements
from ..errors import AutogradError, ProgramError, ProgramTypeError

OUT_FUNCTIONS = frozenset("""
abs acos add addmm all amax amin any arange arccos arcsin arctan arctan2 argmax argmin argsort asin atan
atan2 bernoulli bitwise_and bitwise_not bitwise_or bitwise_xor bmm cat ceil clamp clamp_max clamp_min clip
concat concatenate cos cosh cumprod cumsum diag div divide dot empty eq erf exp expm1 eye fix floor
floor_divide fmod frac full gather ge gt index_add index_select inverse isneginf isposinf kthvalue le
linspace log log1p log_softmax logical_and logical_not logical_or logspace logsumexp lt matmul max maximum
mean min minimum mm mul multinomial mv nansum ne neg nonzero norm normal ones outer pow prod rand randint
randn randperm reciprocal remainder round rsqrt scatter scatter_add sigmoid sign sin sinh softmax sort sqrt
square stack std sub sum tan tanh threshold topk tril triu true_divide trunc var where zeros
""".split())


def _takes_keepdim(fn) -> bool:
    inner = fn
    while getattr(inner, "__wrapped__", None) is not None:   # a wrapper's parameters are its function's
        inner = inner.__wrapped__                            # (vmap's guards: ops/batching_rules.py)
    params = getattr(inner, "op_params", None)   # an op's function: its keywords (registry.py)
    if params is not None:
        return "keepdim" in params
    # (co_varnames is made anew on each read: read only where needed, at start-up)
    code = getattr(inner, "__code__", None)
    return code is not None and "keepdim" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]


def _renamed_keepdims(fn, kwargs: dict) -> None:
    if "keepdim" in kwargs:
        raise TypeError(f"{fn.__name__}() got multiple values for argument 'keepdim'")
    kwargs["keepdim"] = kwargs.pop("keepdims")


def keepdims(fn):
    """`fn` taking numpy's `keepdims=` as `keepdim=`, as PyTorch's argument parser does for
    every function with a `keepdim` (`x.sum(1, keepdims=True)`); `fn` itself if it has none."""
    if not _takes_keepdim(fn):
        return fn

    def taking_keepdims(*args, **kwargs):
        if "keepdims" in kwargs:
            _renamed_keepdims(fn, kwargs)
        return fn(*args, **kwargs)
    return _named_after(taking_keepdims, fn, fn.__name__)


_SAME = "Expected out tensor to have dtype {want}, but got {got} instead"
# the out= functions whose kernels want `out` of the result's own dtype, with PyTorch's words
# ({want}/{got}: float, double; {Want}/{Got}: Float, Double)
SAME_DTYPE = {
    **{name: _SAME for name in "mm bmm matmul addmm mv softmax log_softmax tril triu diag gather inverse "
                               "norm".split()},
    "dot": "result dtype {Got} does not match input dtype {Want}",
    "where": "Expected out type to be {Want} but got {Got}",
    "clamp": "Found dtype {Got} but expected {Want}",
    "index_select": "index_select(): self and result must have the same scalar type",
    "amax": "Expected the dtype for input and out to match, but got {Want} for input's dtype and {Got} for "
            "out's dtype.",
    "amin": "Expected the dtype for input and out to match, but got {Want} for input's dtype and {Got} for "
            "out's dtype.",
}


def _requires_grad(value) -> bool:
    if isinstance(value, Tensor):
        return value.requires_grad
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, Tensor) and v.requires_grad for v in value)
    return False


def _can_cast(source: np.dtype, target: np.dtype) -> bool:
    """PyTorch's canCast: never floating to integral, nor anything but bool to bool."""
    if source.kind == "f" and target.kind in "iub":
        return False
    if source.kind in "iuf" and target.kind == "b":
        return False
    return True


def _write(name: str, result, out: Tensor) -> Tensor:
    from ..dtypes import BY_NUMPY

    data = result._data if isinstance(result, Tensor) else np.asarray(result)
    if name in SAME_DTYPE and data.dtype != out._data.dtype:
        want, got = BY_NUMPY[data.dtype].legacy, out.dtype.legacy
        raise ProgramError(SAME_DTYPE[name].format(want=want.lower(), got=got.lower(), Want=want, Got=got))
    if not _can_cast(data.dtype, out._data.dtype):
        raise ProgramError(f"result type {BY_NUMPY[data.dtype].legacy} can't be cast to the desired output "
                           f"type {out.dtype.legacy}")
    target = out._data
    if target.shape != data.shape:
        check_elements(data.size)
        out._data = np.array(data, dtype=target.dtype)   # resized: new storage, as PyTorch's resize_
    elif target.__class__ is np.ndarray and target.flags.writeable:
        target[...] = data
    else:
        out._data = np.array(data, dtype=target.dtype)
    bump_version(out)
    return out


def with_out(name: str, fn):
    """`fn` taking PyTorch's `out=` keyword (a Tensor, or a tuple of them for a tuple result),
    and `keepdims=` where it takes `keepdim=` (one wrapper for both: a call costs one layer)."""
    if _takes_keepdim(fn):
        def taking_out_keepdims(*args, out=None, **kwargs):
            if "keepdims" in kwargs:
                _renamed_keepdims(fn, kwargs)
            return fn(*args, **kwargs) if out is None else _into_out(name, fn, args, kwargs, out)
        return _named_after(taking_out_keepdims, fn, name)
    code = getattr(fn, "__code__", None)
    simple = (getattr(fn, "op_params", None) == () and code is not None and not code.co_flags & 0x0C
              and code.co_kwonlyargcount == 0 and code.co_varnames[:code.co_argcount])
    # an op's own function of one or two inputs (`make_function`: `sin(input)`, `add(input, other)`):
    # a wrapper of the same parameters, which Python binds as it would fn's (with the same
    # errors, under the same name) without packing *args and **kwargs for every call
    if simple == ("input",):
        def taking_out(input, *, out=None):
            return fn(input) if out is None else _into_out(name, fn, (input,), {}, out)
    elif simple == ("input", "other"):
        def taking_out(input, other, *, out=None):
            return fn(input, other) if out is None else _into_out(name, fn, (input, other), {}, out)
    else:
        def taking_out(*args, out=None, **kwargs):
            return fn(*args, **kwargs) if out is None else _into_out(name, fn, args, kwargs, out)

    return _named_after(taking_out, fn, name)


def _named_after(wrapper, fn, name: str):
    wrapper.__name__ = getattr(fn, "__name__", name)
    wrapper.__qualname__ = getattr(fn, "__qualname__", name)
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


def _into_out(name: str, fn, args: tuple, kwargs: dict, out):
    """fn(*args, **kwargs) written into `out`, checked as PyTorch checks an out= argument."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if not all(isinstance(o, Tensor) for o in outs) or (isinstance(out, list)):
        raise ProgramTypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _grad_enabled[0] and (any(_requires_grad(a) for a in args)
                             or any(_requires_grad(v) for v in kwargs.values())
                             or any(o.requires_grad for o in outs)):
        raise AutogradError(f"{name}(): functions with out=... arguments don't support automatic "
                            "differentiation, but one of the arguments requires grad.")
    result = fn(*args, **kwargs)
    if isinstance(result, tuple):
        if len(outs) != len(result) or not isinstance(out, tuple):
            raise ProgramTypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                                   f"{type(out).__name__}")
        written = [_write(name, r, o) for r, o in zip(result, outs)]
        return type(result)(*written) if hasattr(result, "_fields") else tuple(written)
    if isinstance(out, tuple):
        raise ProgramTypeError(f"{name}(): argument 'out' must be Tensor, not tuple")
    return _write(name, result, out)
