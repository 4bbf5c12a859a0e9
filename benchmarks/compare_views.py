"""Views and in-place ops against PyTorch: random programs, run by both, compared.

    /tmp/torchenv/bin/python benchmarks/compare_views.py [--seed S] [--programs N]

Each program takes views of `x = a * 1` (indexing, slicing, transpose, reshape,
diagonal, movedim...), changes them in place (mul_, exp_, copy_, assignment...),
keeps some views and ends in a loss. Both PyTorch and gradcli run it; the loss,
`a.grad` and `w.grad` must agree, or both must fail with the same message.
Needs PyTorch (never a dependency of gradcli): a script, not a test.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gradcli  # noqa: E402

VIEWS = ["[0]", "[1:]", "[:, 1]", "[::2]", "[:, 1:3]", ".t()", ".transpose(0, 1)[1]", ".reshape(-1)[2:7]",
         ".view(2, 6)[1]", ".unsqueeze(0)[0, 1]", ".narrow(1, 1, 2)", ".select(1, 2)", "[1, 2:]",
         ".diagonal()", ".movedim(0, 1)[0]", ".mT[1:]", ".flatten()[::3]", ".expand(3, 4)"]
CHANGES = [".mul_(1.5)", ".add_(0.3)", ".tanh_()", ".sin_()", ".sigmoid_()", ".mul_(w)", ".add_(w * 2)",
           ".exp_()", ".clamp_min_(0.1)", ".neg_()", ".copy_(w.expand_as(V) * 0.5)", ".zero_()",
           ".fill_(0.7)", ".div_(w + 2)"]


def program(rng: random.Random) -> str:
    lines = ["x = a * 1", "keep = []"]
    for _ in range(rng.randint(1, 5)):
        kind = rng.random()
        view = rng.choice(VIEWS)
        if kind < 0.15:
            lines.append(f"keep.append(x{view})")
        elif kind < 0.3:
            target = rng.choice(["[0]", "[1:]", "[:, 2]", "[1, 1]"])
            lines.append(f"x{target} = w * 0.5 + x{rng.choice(['[2]', '[0]'])}.sum() * 0.1")
        elif kind < 0.4:
            lines.append(f"x{rng.choice(CHANGES).replace('V', 'x')}")
        else:
            lines.append(f"x{view}{rng.choice(CHANGES).replace('V', f'x{view}')}")
    lines.append("loss = (x * c).sum() + sum((k * k).sum() for k in keep)")
    return "\n".join(lines)


def run(module, source: str, a0, w0, c0):
    a = module.tensor(a0, requires_grad=True)
    w = module.tensor(w0, requires_grad=True)
    env = {"a": a, "w": w, "c": module.tensor(c0), "sum": sum}
    try:
        exec(source, env)  # noqa: S102 - our own generated test programs, run by PyTorch and the library
        env["loss"].backward()
    except Exception as exc:  # both must fail alike
        return "error", str(exc).split("\n")[0]
    grads = [None if t.grad is None else np.array(t.grad.tolist()) for t in (a, w)]
    return "ok", env["loss"].item(), *grads


def agree(ours, theirs) -> bool:
    if ours[0] != theirs[0]:
        return False
    if ours[0] == "error":
        return ours[1] == theirs[1]
    if not np.isclose(ours[1], theirs[1], rtol=1e-9, atol=1e-12):
        return False
    for mine, ref in zip(ours[2:], theirs[2:]):
        if ref is None:
            if mine is not None and not np.allclose(mine, 0):
                return False
        elif mine is None or not np.allclose(mine, ref, rtol=1e-9, atol=1e-12):
            return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--programs", type=int, default=1000)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("needs PyTorch (e.g. /tmp/torchenv/bin/python)")
        return 2
    torch.set_default_dtype(torch.float64)
    rng = random.Random(args.seed)
    differ = errors = 0
    for i in range(args.programs):
        source = program(rng)
        values = np.random.default_rng(i)
        a0 = values.uniform(-1, 1, (3, 4))
        w0 = float(values.uniform(0.2, 1))
        c0 = values.uniform(-1, 1, (3, 4))
        theirs = run(torch, source, a0, w0, c0)
        ours = run(gradcli, source, a0.tolist(), w0, c0.tolist())
        errors += theirs[0] == "error"
        if not agree(ours, theirs):
            differ += 1
            if differ <= 5:
                print(f"--- program {i}\n{source}\n  PyTorch: {theirs}\n  gradcli: {ours}")
    print(f"{args.programs} programs: {differ} differ from PyTorch ({errors} fail in PyTorch, alike or not)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
