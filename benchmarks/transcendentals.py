"""How often gradcli's float32 elementwise functions differ from PyTorch's (needs PyTorch).

PyTorch's CPU kernels compute float32 sin, exp, log... with SLEEF or MKL's vector math,
within 1 ulp but not correctly rounded; numpy's float32 loops are other approximations.
For each function this samples 10^5 float32 inputs over a typical domain and counts the
results that differ from PyTorch's: numpy in float32, numpy in float64 rounded once to
float32 (a correctly rounded result but for rare double roundings), and what gradcli
computes now. Run with the venv that has torch:

    <python with torch 2.13> benchmarks/transcendentals.py
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

N = 100_000

# (torch name, domain, numpy float32 way, gradcli op name)
FUNCTIONS = [
    ("sin", (-10, 10), np.sin), ("cos", (-10, 10), np.cos), ("tan", (-1.5, 1.5), np.tan),
    ("exp", (-20, 20), np.exp), ("log", (1e-3, 1e3), np.log), ("log1p", (-0.9, 100), np.log1p),
    ("expm1", (-5, 5), np.expm1), ("tanh", (-5, 5), np.tanh), ("sinh", (-5, 5), np.sinh),
    ("cosh", (-5, 5), np.cosh), ("asin", (-1, 1), np.arcsin), ("acos", (-1, 1), np.arccos),
    ("atan", (-10, 10), np.arctan), ("sqrt", (0, 1e4), np.sqrt),
    ("rsqrt", (1e-3, 1e4), lambda x: np.float32(1) / np.sqrt(x)),
    ("sigmoid", (-10, 10), lambda x: np.float32(1) / (np.float32(1) + np.exp(-x))),
    ("erf", (-3, 3), None),
]


def ulp_distance(a, b):
    """|a - b| in float32 units in the last place (same-sign ordering of the bit patterns)."""
    def ordered(v):
        i = v.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return np.abs(ordered(a) - ordered(b))


def main():
    import torch

    import gradcli as g

    rng = np.random.default_rng(0)
    rows = []
    for name, (lo, hi), np32 in FUNCTIONS:
        x = rng.uniform(lo, hi, N).astype(np.float32)
        ref = getattr(torch, name)(torch.from_numpy(x)).numpy()
        x64 = x.astype(np.float64)
        if name == "erf":
            wide = np.array([math.erf(v) for v in x64.tolist()]).astype(np.float32)
        elif name in ("rsqrt", "sigmoid"):
            wide = np32(x64).astype(np.float32)
        else:
            wide = np32(x64).astype(np.float32)
        narrow = np32(x) if np32 is not None else wide
        ours = getattr(g, name)(g.tensor(x))._data
        rows.append((name, narrow, wide, ours, ref))
    print(f"{'function':10} {'numpy f32 differs':>18} {'> 1 ulp':>8} {'f64 rounded differs':>20} "
          f"{'> 1 ulp':>8} {'gradcli differs':>16} {'> 1 ulp':>8}")
    for name, narrow, wide, ours, ref in rows:
        cells = []
        for v in (narrow, wide, ours):
            cells += [f"{np.mean(v != ref) * 100:.2f}%", f"{np.mean(ulp_distance(v, ref) > 1) * 100:.3f}%"]
        print(f"{name:10} {cells[0]:>18} {cells[1]:>8} {cells[2]:>20} {cells[3]:>8} {cells[4]:>16} {cells[5]:>8}")


if __name__ == "__main__":
    main()
