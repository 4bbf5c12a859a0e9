"""torch.utils.data for programs: Dataset, TensorDataset, Subset, random_split, DataLoader.

Each class is a ProgramClass (`classes.py`) whose methods are Python (`LibraryMethod`),
so a program's `class Data(Dataset):` derives from it as from its own classes and
every instance is a ProgramObject: the program reaches its attributes (`loader.dataset`,
`ds.tensors`) and nothing of Python's. A DataLoader walks a map-style dataset
(`len()` and `ds[i]`) in batches: `shuffle=True` draws the order from gradcli's
generator (the one `torch.manual_seed` resets; not PyTorch's numbers), `drop_last`
leaves out a short last batch, `collate_fn` replaces `default_collate` (PyTorch's:
tensors stacked, numbers made tensors, tuples transposed into lists, dicts by key).
Each item read is charged to the work budget.
"""
from __future__ import annotations

import math

from gradcli._tensor import Tensor, as_int
from gradcli.errors import ProgramTypeError, ProgramValueError
from gradcli.lang.classes import LibraryMethod, ProgramClass, ProgramObject
from gradcli.lang import classnames
from gradcli.lang.values import Namespace
from gradcli.limits import budget as _budget


def _functions():
    from gradcli import ops

    return ops.FUNCTIONS


def _class(name: str, base, methods: dict) -> ProgramClass:
    return ProgramClass(name, base, {key: LibraryMethod(fn) for key, fn in methods.items()},
                        {}, is_module=False)


DATASET = ProgramClass("Dataset", None, {}, {}, is_module=False)


def _tensor_dataset_init(self, *tensors):
    if not tensors:
        raise ProgramValueError("TensorDataset needs at least one tensor")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise ProgramTypeError("TensorDataset takes tensors")
        if t.ndim == 0 or t.shape[0] != tensors[0].shape[0]:
            raise ProgramValueError("Size mismatch between tensors")
    self.attrs["tensors"] = tuple(tensors)


def _tensor_dataset_item(self, index):
    return tuple(t[index] for t in self.attrs["tensors"])


def _tensor_dataset_len(self):
    return int(self.attrs["tensors"][0].shape[0])


TENSOR_DATASET = _class("TensorDataset", DATASET, {
    "__init__": _tensor_dataset_init, "__getitem__": _tensor_dataset_item,
    "__len__": _tensor_dataset_len,
})


def _subset_init(self, dataset, indices):
    self.attrs["dataset"] = dataset
    self.attrs["indices"] = [as_int(i, "an index") for i in _items(indices)]


def _subset_item(self, index):
    indices = self.attrs["indices"]
    if isinstance(index, list):
        return [self.attrs["dataset"][indices[as_int(i, "an index")]] for i in index]
    return self.attrs["dataset"][indices[as_int(index, "an index")]]


SUBSET = _class("Subset", DATASET, {
    "__init__": _subset_init, "__getitem__": _subset_item,
    "__len__": lambda self: len(self.attrs["indices"]),
})


def _items(values) -> list:
    from gradcli.lang.sequences import materialize

    if isinstance(values, Tensor):
        return values.tolist()
    return materialize(values)


def _permutation(n: int) -> list:
    from gradcli.ops.factories import _rng

    _budget.charge_items(n)
    return [int(i) for i in _rng(None).permutation(n)]


def random_split(dataset, lengths, generator=None):
    """Subsets of the given lengths (or fractions, remainders spread as PyTorch does),
    in an order drawn from gradcli's generator."""
    n = len(dataset)
    lengths = _items(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1) \
            and sum(lengths) <= 1:
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    lengths = [as_int(x, "a length") for x in lengths]
    if sum(lengths) != n:
        raise ProgramValueError("Sum of input lengths does not equal the length of the input "
                                "dataset!")
    order = _permutation(n)
    out, start = [], 0
    for length in lengths:
        out.append(SUBSET(dataset, order[start:start + length]))
        start += length
    return out


def default_collate(batch):
    """PyTorch's default_collate for the values a program's dataset gives."""
    functions = _functions()
    first = batch[0]
    if isinstance(first, Tensor):
        return functions["stack"](list(batch), 0)
    if isinstance(first, bool):
        return functions["tensor"](list(batch))
    if isinstance(first, int):
        return functions["tensor"](list(batch))
    if isinstance(first, float):
        from gradcli import dtypes

        return functions["tensor"](list(batch), dtype=dtypes.float64)
    if isinstance(first, str):
        return list(batch)
    if isinstance(first, dict):
        return {key: default_collate([item[key] for item in batch]) for key in first}
    if isinstance(first, (tuple, list)):
        if any(len(item) != len(first) for item in batch):
            raise ProgramValueError("each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise ProgramTypeError(f"default_collate: batch must contain tensors, numbers, dicts or "
                           f"lists; found {type(first).__name__}")


def _loader_init(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, generator=None, prefetch_factor=None,
                 persistent_workers=False, pin_memory_device=""):
    if sampler is not None or batch_sampler is not None:
        raise ProgramValueError("DataLoader's sampler and batch_sampler are not supported in "
                                "gradcli", hint="shuffle=True, or index the dataset yourself")
    self.attrs.update(dataset=dataset, batch_size=batch_size, shuffle=bool(shuffle),
                      drop_last=bool(drop_last), collate_fn=collate_fn,
                      num_workers=num_workers)


def _loader_batches(self):
    from gradcli.lang.reflect import ProgramIterator

    return ProgramIterator(_batches(self.attrs))


def _batches(attrs):
    dataset, size = attrs["dataset"], attrs["batch_size"]
    n = len(dataset)
    order = _permutation(n) if attrs["shuffle"] else range(n)
    collate = attrs["collate_fn"] or default_collate
    if size is None:
        for index in order:
            _budget.charge_items(1)
            yield dataset[index]
        return
    size = as_int(size, "batch_size")
    if size <= 0:
        raise ProgramValueError(f"batch_size should be a positive integer value, but got "
                                f"batch_size={size}")
    for start in range(0, n, size):
        indices = order[start:start + size]
        if len(indices) < size and attrs["drop_last"]:
            return
        _budget.charge_items(len(indices))
        yield collate([dataset[i] for i in indices])


def _loader_len(self):
    attrs = self.attrs
    n = len(attrs["dataset"])
    if attrs["batch_size"] is None:
        return n
    size = as_int(attrs["batch_size"], "batch_size")
    return n // size if attrs["drop_last"] else -(-n // size)


DATA_LOADER = _class("DataLoader", None, {
    "__init__": _loader_init, "__iter__": _loader_batches, "__len__": _loader_len,
})
ITERABLE_DATASET = ProgramClass("IterableDataset", DATASET, {}, {}, is_module=False)
SAMPLER = ProgramClass("Sampler", None, {}, {}, is_module=False)
for _library in (DATASET, TENSOR_DATASET, SUBSET, DATA_LOADER, ITERABLE_DATASET, SAMPLER):
    classnames.register_torch(_library, _library.name)   # print(DataLoader): PyTorch's path


def namespace() -> Namespace:
    """`torch.utils.data` (and `torch.utils`, holding it)."""
    from gradcli.errors import Builtin

    members = {
        "Dataset": DATASET, "TensorDataset": TENSOR_DATASET, "Subset": SUBSET,
        "DataLoader": DATA_LOADER, "IterableDataset": ITERABLE_DATASET, "Sampler": SAMPLER,
        "random_split": Builtin("random_split", random_split),
        "default_collate": Builtin("default_collate", default_collate),
    }
    data = Namespace("torch.utils.data", members)
    members["dataloader"] = Namespace("torch.utils.data.dataloader", {
        "DataLoader": DATA_LOADER, "default_collate": members["default_collate"]})
    members["dataset"] = Namespace("torch.utils.data.dataset", {
        "Dataset": DATASET, "TensorDataset": TENSOR_DATASET, "Subset": SUBSET,
        "random_split": members["random_split"]})
    return data

