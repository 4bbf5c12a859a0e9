"""Honest refusals: a name PyTorch (or Python) has and gradcli does not is "not supported in
gradcli", with the reason and, where one exists, what to write instead.

PyTorch's public names are recorded in `data/torch_names.json` (dir() of each namespace
under PyTorch 2.13), so a missing name is told apart from a typo: a name PyTorch has
is refused as not supported; only a name PyTorch does not have gets a did-you-mean.
"""
from __future__ import annotations

import json

_CPU = "gradcli runs one process on the CPU"
_FILES = "programs have no file system (no file is read or written)"
_REASONS = {
    # torch.X (and its submodules): the reason, then what to write instead (or None)
    "torch.save": (_FILES, "keep the tensors in variables; print them to see them"),
    "torch.load": (_FILES, "build the tensors in the program (torch.tensor, torch.randn)"),
    "torch.serialization": (_FILES, None),
    "torch.hub": (_FILES + " and no network", None),
    "torch.utils.model_zoo": (_FILES + " and no network", None),
    "torch.utils.tensorboard": (_FILES, "print the values"),
    "torch.utils.checkpoint": ("gradcli keeps every saved tensor (no recomputation)", None),
    "torch.distributed": (_CPU, None),
    "torch.multiprocessing": (_CPU, None),
    "torch.nn.parallel": (_CPU, "call the model itself"),
    "torch.nn.DataParallel": (_CPU, "call the model itself"),
    "torch.jit": ("gradcli interprets programs (no tracing or scripting)", "call the function"),
    "torch.fx": ("gradcli interprets programs (no graph capture)", None),
    "torch.onnx": (_FILES, None),
    "torch.profiler": ("gradcli has no profiler", "gradcli's --max-steps and the graph commands"),
    "torch.autograd.profiler": ("gradcli has no profiler", None),
    "torch.amp": ("gradcli computes in float64 and float32 only", None),
    "torch.cuda.amp": ("gradcli computes in float64 and float32 only", None),
    "torch.backends": (_CPU, None),
    "torch.futures": (_CPU + " (no asynchronous work)", None),
    "torch.classes": ("gradcli loads no compiled extensions", None),
    "torch.ops": ("gradcli loads no compiled extensions", None),
    "torch.testing": ("gradcli has no test helpers", "torch.allclose"),
    "torch.sparse": ("gradcli's tensors are dense", None),
    "torch.sparse_coo_tensor": ("gradcli's tensors are dense", None),
    "torch.fft": ("gradcli's tensors are real (no complex dtypes)", None),
    "torch.view_as_complex": ("gradcli's tensors are real (no complex dtypes)", None),
    "torch.view_as_real": ("gradcli's tensors are real (no complex dtypes)", None),
    "torch.polar": ("gradcli's tensors are real (no complex dtypes)", None),
    "torch.complex": ("gradcli's tensors are real (no complex dtypes)", None),
    "torch.special": ("gradcli does not have torch.special's functions",
                      "torch.sigmoid for expit, torch.erf, torch.special-free compositions"),
    "torch.special.expit": ("gradcli does not have torch.special's functions", "torch.sigmoid"),
    "torch.distributions": ("gradcli does not have torch.distributions",
                            "torch.multinomial, torch.normal, torch.randint for sampling"),
    "torch.lgamma": ("gradcli has no gamma-family functions", None),
    "torch.linalg.eigh": ("gradcli's linalg has no eigendecompositions", None),
    "torch.linalg.eig": ("gradcli's linalg has no eigendecompositions (complex results)", None),
    "torch.set_printoptions": ("gradcli prints tensors as PyTorch's defaults do", None),
    "torch.cuda.amp.GradScaler": ("gradcli computes in float64 and float32 only", None),
    "Tensor.pin_memory": (_CPU + " (no pinned memory)", "leave it out"),
    "Tensor.to_sparse": ("gradcli's tensors are dense", None),
    "Tensor.erfinv": ("gradcli has no inverse error function", None),
    "Tensor.lgamma": ("gradcli has no gamma-family functions", None),
    "torch.nn.functional.mish": ("gradcli does not have this activation", None),
}
# Python's builtins that gradcli refuses, with the reason.
BUILTINS = {
    "open": _FILES,
    "input": "programs read no input",
    "eval": "programs never evaluate text as code",
    "exec": "programs never evaluate text as code",
    "compile": "programs never evaluate text as code",
    "globals": "programs cannot reach their own namespaces as dicts",
    "locals": "programs cannot reach their own namespaces as dicts",
    "vars": "programs cannot reach the namespaces of values as dicts",
    "dir": "programs cannot list the members of values",
    "breakpoint": "programs run without a debugger",
    "help": "programs run without an interactive help",
    "id": "programs cannot see memory addresses",
    "memoryview": "programs have no raw memory",
    "bytearray": "programs have no raw memory",
}
# Modules a script may import that gradcli refuses, with the reason.
MODULES = {
    "os": _FILES + " and no environment",
    "pathlib": _FILES,
    "shutil": _FILES,
    "glob": _FILES,
    "io": _FILES,
    "tempfile": _FILES,
    "pickle": _FILES,
    "json": _FILES,
    "csv": _FILES,
    "tarfile": _FILES,
    "zipfile": _FILES,
    "subprocess": "programs start no processes",
    "multiprocessing": _CPU,
    "threading": _CPU,
    "socket": "programs have no network",
    "urllib": "programs have no network",
    "requests": "programs have no network",
    "logging": "programs write only with print",
    "importlib": "programs import with the import statement only",
    "inspect": "programs cannot look inside values",
    "ctypes": "programs have no raw memory",
    "torchvision": "gradcli has no datasets or pretrained models (no files, no network)",
    "matplotlib": "gradcli draws with its own plot command (gradcli plot)",
    "pandas": _FILES,
    "scipy": "gradcli has torch and numpy's basic functions only",
    "sklearn": "gradcli has torch and numpy's basic functions only",
    "tqdm": "programs write only with print",
    "d2l": "d2l's helpers read files and draw; write the few lines a snippet needs",
}

_NAMES: dict = {}


def torch_names() -> dict:
    """PyTorch 2.13's public names by namespace (`torch`, `torch.nn`, ..., `torch.Tensor`)."""
    if not _NAMES:
        from importlib import resources  # with tempfile, shutil, random: not at start-up

        text = resources.files("gradcli.lang").joinpath("data/torch_names.json").read_text()
        _NAMES.update({key: frozenset(value) for key, value in json.loads(text)["names"].items()})
    return _NAMES


def _reason(path: str):
    """The (reason, instead) recorded for `path` or the nearest namespace holding it."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        found = _REASONS.get(".".join(parts[:end]))
        if found is not None:
            return found
    return None


def pytorch_has(namespace: str, attr: str) -> bool:
    names = torch_names().get(namespace)
    return names is not None and attr in names


def refusal(namespace: str, attr: str):
    """(message, hint) for `namespace.attr` that gradcli lacks, when PyTorch has it (or it has
    a recorded reason); None for a name PyTorch does not have either (a typo)."""
    path = f"{namespace}.{attr}"
    found = _reason(path)
    if found is None and not pytorch_has(namespace, attr):
        return None
    reason, instead = found or (f"gradcli implements part of {namespace} (`gradcli ops` "
                                f"lists its functions)", None)
    return f"{path} is not supported in gradcli: {reason}", instead and f"instead: {instead}"


def tensor_refusal(attr: str):
    """(message, hint) for a Tensor method PyTorch has and gradcli lacks; None for a typo."""
    found = _REASONS.get(f"Tensor.{attr}")
    if found is None and not pytorch_has("torch.Tensor", attr):
        return None
    reason, instead = found or ("gradcli implements part of the Tensor's methods (`gradcli ops` "
                                "lists them)", None)
    return f"Tensor.{attr} is not supported in gradcli: {reason}", instead and f"instead: {instead}"


def builtin_refusal(name: str):
    reason = BUILTINS.get(name)
    return None if reason is None else f"{name}() is not supported in gradcli: {reason}"


def known_module(name: str) -> bool:
    """A module gradcli refuses with a reason of its own, or one PyTorch has: not a typo."""
    parent, _, leaf = name.rpartition(".")
    return name.split(".")[0] in MODULES or _reason(name) is not None \
        or (bool(parent) and pytorch_has(parent, leaf))


def module_refusal(name: str):
    """The message for `import name` of a module gradcli refuses (any module outside the
    importable ones: the recorded reason, or a general one)."""
    root = name.split(".")[0]
    reason = MODULES.get(root)
    if reason is None:
        found = _reason(name) if root == "torch" else None
        reason = found[0] if found else "gradcli programs import only torch, numpy, math and " \
                                        "the standard modules gradcli provides"
    return f"module '{name}' is not supported in gradcli: {reason}"
