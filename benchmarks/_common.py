"""What every benchmark shares: timing, the GC modes, the optional PyTorch, the report.

A benchmark measures gradcli beside its floor (the same arithmetic written by
hand in plain numpy, or the bare interpreter start) and, only when PyTorch is
importable, beside PyTorch. Figures are ratios taken in one run, the sides
interleaved so that a change in the machine's load hits both alike.

GC modes: the library leaves Python's cyclic garbage collector as it finds it
(`library`, thresholds 700/10/10); the CLI raises the threshold for its own
process (`cli`, 100000/50/100, see gradcli/cli/__init__.py). Where a graph is
large enough for that to matter, gradcli is measured both ways and each row
says which.
"""
from __future__ import annotations

import gc
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

# The gradcli tree measured: this checkout, or the one `run_all.py --compare REV` names.
# It goes first on the path of this process and of every process it starts, so that
# an installed gradcli elsewhere (an editable install of another checkout) is not the
# one measured.
TREE = Path(os.environ.get("GRADCLI_BENCH_TREE", ROOT)).resolve()
sys.path.insert(0, str(TREE))


def _library_in_float64() -> None:
    """The benchmarks compare gradcli with float64 floors (numpy by hand, PyTorch set to
    float64): run the library at float64 too, as the expression commands do. (A tree from
    before dtypes has no set_default_dtype and is float64 already.)"""
    try:
        import gradcli
    except ImportError:
        return
    if hasattr(gradcli, "set_default_dtype"):
        gradcli.set_default_dtype(gradcli.float64)


_library_in_float64()
os.environ["PYTHONPATH"] = os.pathsep.join([str(TREE)] + [p for p in os.environ.get("PYTHONPATH", "")
                                                           .split(os.pathsep) if p])
# --quick (or GRADCLI_BENCH_QUICK=1): fewer repeats, for a short run such as a compare.
QUICK = "--quick" in sys.argv[1:] or os.environ.get("GRADCLI_BENCH_QUICK") == "1"

GC_LIBRARY = (700, 10, 10)        # Python's default: what a library user gets
GC_CLI = (100_000, 50, 100)       # what gradcli.cli.main sets for its process
GC_MODES = {"library": GC_LIBRARY, "cli": GC_CLI}


def has_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


def import_torch():
    """torch, set to float64 and this machine's threads, or None when it is not installed."""
    if not has_torch():
        return None
    import torch

    torch.set_default_dtype(torch.float64)
    return torch


@contextmanager
def gc_mode(mode: str):
    """Run with the collector thresholds of `mode` ('library' or 'cli'), then restore them."""
    old = gc.get_threshold()
    was_enabled = gc.isenabled()
    gc.enable()
    gc.set_threshold(*GC_MODES[mode])
    try:
        yield
    finally:
        gc.set_threshold(*old)
        if not was_enabled:
            gc.disable()


def clock(fn) -> float:
    """Seconds one call of `fn` takes, from a freshly collected heap."""
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def compare(sides: dict, repeat: int, warmup: int = 1) -> dict:
    """Time each side `repeat` times, interleaved; {name: sorted list of seconds}.

    `sides` maps a name to a zero-argument callable, or to (callable, gc mode).
    """
    norm = {k: (v if isinstance(v, tuple) else (v, "library")) for k, v in sides.items()}
    for _ in range(warmup):
        for fn, mode in norm.values():
            with gc_mode(mode):
                clock(fn)
    times = {k: [] for k in norm}
    for _ in range(repeat):
        for name, (fn, mode) in norm.items():
            with gc_mode(mode):
                times[name].append(clock(fn))
    return {k: sorted(v) for k, v in times.items()}


def repeats(n: int) -> int:
    """How many times to repeat a timing: `n`, or at most 3 with --quick."""
    return min(n, 3) if QUICK else n


def median(xs) -> float:
    return statistics.median(xs)


def best(xs) -> float:
    """The least time of N: this machine is shared, and other load only ever adds time."""
    return min(xs)


def python_exe() -> str:
    return sys.executable


def gradcli_cmd() -> list[str]:
    """The installed `gradcli` script beside this interpreter (no pyenv shim), else -m."""
    here = Path(sys.executable).parent / "gradcli"
    if here.exists():
        return [str(here)]
    return [sys.executable, "-m", "gradcli"]


PYCACHE = Path(tempfile.gettempdir()) / "gradcli-benchmarks-pycache"


def process_env(bytecode_cache: bool = True) -> dict:
    """The environment of a measured process.

    With `bytecode_cache`, compiled modules are cached (as in any installation)
    under PYCACHE, outside the repository, even where PYTHONDONTWRITEBYTECODE is
    set (this sandbox sets it, and then every start compiles gradcli's modules
    from source); without it, the environment is left as it is.
    """
    env = dict(os.environ)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def run_process(cmd, stdin: bytes | None = None, cwd=None, timeout: float = 120.0,
                env=None) -> tuple[float, subprocess.CompletedProcess]:
    """(wall seconds, completed process) for one whole process (bytecode cached by default)."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          cwd=cwd or TREE, timeout=timeout,
                          env=process_env() if env is None else env)
    return time.perf_counter() - t0, proc


def fmt_s(seconds) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_x(ratio) -> str:
    return "-" if ratio is None else f"{ratio:.2f}x"


def table(headers: list[str], rows: list[list]) -> str:
    """A plain text table (no Rich: benchmarks import nothing they measure)."""
    cells = [[str(h) for h in headers]] + [["-" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cells[0], widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in cells[1:]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


def environment() -> dict:
    import numpy as np

    info = {"python": sys.version.split()[0], "numpy": np.__version__,
            "cpus": os.cpu_count(), "load": [round(x, 2) for x in os.getloadavg()]}
    blas = {k: os.environ[k] for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
            if k in os.environ}
    info["blas_threads"] = blas or "default"
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    return info


def summary(metric: str, target: str, gradcli, floor, pytorch, met) -> dict:
    """One row of benchmarks/README.md: figures as display strings, `met` True/False/None."""
    return {"metric": metric, "target": target, "gradcli": gradcli, "floor": floor,
            "pytorch": pytorch, "met": met}


def report(name: str, headers: list[str], rows: list[list], summaries: list[dict],
           details: dict | None = None, notes: list[str] | None = None) -> None:
    """Print the table, the notes, then one JSON line (the last line of the output)."""
    print(f"== {name} ==")
    print(table(headers, rows))
    for note in notes or []:
        print(f"note: {note}")
    doc = {"benchmark": name, "summary": summaries, "details": details or {},
           "env": environment()}
    print(json.dumps(doc, default=_json_default))
    sys.stdout.flush()


def _json_default(o):
    try:
        import numpy as np

        if isinstance(o, np.generic):
            return o.item()
    except ImportError:  # pragma: no cover
        pass
    return str(o)


def which(name: str) -> str | None:
    return shutil.which(name)


def chain_forward(y, kinds, sin, c, d):
    """The chain benchmarks' forward (scalar_chain, deep_chain) on gradcli's or PyTorch's
    tensors: `y * c + d` for a step of kind 0, `sin(y * c)` for kind 1."""
    for kind in kinds:
        if kind == 0:
            y = y * c + d
        else:
            y = sin(y * c)
    return y


def dense_data(batch: int, width: int, layers: int):
    """Input, target and `layers` dense layers' weights and biases (float64, seed 0): the
    data of the mlp and nn_linear benchmarks, as [W1, b1, W2, b2, ...]."""
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, width))
    t = rng.standard_normal((batch, width))
    params = []
    for _ in range(layers):
        params.append(rng.standard_normal((width, width)) / np.sqrt(width))
        params.append(rng.standard_normal(width) * 0.1)
    return x, t, params


def chain_numpy_forward(y, kinds, c, d):
    """The chain's floor forward, by hand on numpy 0-d arrays: the result and what the
    backward needs (`y * c` before each sin, None for the other steps)."""
    import numpy as np

    saved = []
    for kind in kinds:
        if kind == 0:
            y = y * c + d
            saved.append(None)
        else:
            u = y * c
            saved.append(u)
            y = np.sin(u)
    return y, saved


def chain_numpy_backward(saved, c) -> float:
    """The chain's floor backward: the chain rule by hand over what the forward saved."""
    import numpy as np

    g = np.asarray(1.0)
    for u in reversed(saved):
        g = g * c if u is None else g * np.cos(u) * c
    return float(g)
