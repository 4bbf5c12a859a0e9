"""The inputs of the recorded reductions: seeded numpy arrays, some seen through views
(a transpose, slices, steps) so that PyTorch's strided kernels are recorded too."""
import numpy as np


def _views(x, view):
    if view is None:
        return x
    return {
        "T": lambda: x.transpose(2, 0, 1),
        "slice": lambda: x[:, 3:50, :],
        "step": lambda: x[::2, ::3, 1:],
        "col": lambda: x[:, 5, :],
        "T2": lambda: x.transpose(1, 2, 0)[:, ::2],
        "bigT": lambda: x.T,
        "bigslice": lambda: x[:, :700],
    }[view]()


def make_input(case):
    rng = np.random.default_rng(case["seed"])
    x = (rng.standard_normal(case["shape"]) * 3).astype(case["dtype"])
    if case["kind"] == "nansum":
        x.reshape(-1)[::7] = np.nan
    return _views(x, case.get("view"))


CASES = []


def _add(kind, dtype, shape, dims, view=None, keepdim=False, seed=0):
    name = f"{kind}-{dtype}-{'x'.join(map(str, shape))}-{view or 'contiguous'}-{dims}-{keepdim}"
    CASES.append({"name": name, "kind": kind, "dtype": dtype, "shape": list(shape), "dims": dims,
                  "view": view, "keepdim": keepdim, "seed": seed})


for _dtype in ("float32", "float16"):
    for _n in (1, 7, 8, 17, 33, 100, 2000, 4097, 32768, 40000, 1000000):
        _add("sum", _dtype, (_n,), None, seed=_n)
    for _shape, _dims in (((33, 65), 0), ((33, 65), 1), ((33, 65), [0, 1]), ((100, 300), 0),
                          ((300, 100), 1), ((5, 17, 19), [0, 2]), ((5, 17, 19), 1), ((64, 64, 3), [0, 2]),
                          ((4, 300, 50), 1), ((1000, 1000), 0), ((1000, 1000), 1)):
        _add("sum", _dtype, _shape, _dims, keepdim=isinstance(_dims, list))
    for _view, _dims in (("T", 1), ("T", [0, 2]), ("slice", 1), ("slice", None), ("step", 0),
                         ("step", [1, 2]), ("col", 0), ("T2", 2)):
        _add("sum", _dtype, (60, 70, 9), _dims, view=_view)
    for _view, _dims in (("bigT", 0), ("bigT", 1), ("bigslice", None), ("bigslice", 0)):
        _add("sum", _dtype, (1000, 1000), _dims, view=_view)
    for _shape, _dims in (((2000,), None), ((33, 65), 1), ((5, 17, 19), [0, 2]), ((40000,), None),
                          ((300, 200), 0)):
        _add("mean", _dtype, _shape, _dims)
        _add("nansum", _dtype, _shape, _dims)
    for _shape, _dim in (((2000,), 0), ((33, 65), 0), ((33, 65), 1)):
        _add("cumsum", _dtype, _shape, _dim)
