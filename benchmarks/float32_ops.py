"""How many float32 results of the ops that round differently from PyTorch's kernels have
PyTorch's last bit (needs PyTorch): var/std, softmax and friends, norm, prod, the
activations, det, matrix products, conv2d, on standard normal inputs.

    PYTHONPATH=. <python with torch 2.13> benchmarks/float32_ops.py

Prints, per op, the elements compared, the share identical to PyTorch's, the share
within 1 ulp, and the largest difference in ulp (large where results are near 0).
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as TF

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import gradcli as g  # noqa: E402
from gradcli import dtypes  # noqa: E402

dtypes.set_default_dtype(dtypes.float32)
rng = np.random.default_rng(0)

def ulp(a, b):
    """Elementwise distance in float32 steps."""
    a = np.asarray(a, np.float32).reshape(-1); b = np.asarray(b, np.float32).reshape(-1)
    ai = a.view(np.int32).astype(np.int64); bi = b.view(np.int32).astype(np.int64)
    ai = np.where(ai < 0, -(ai & 0x7fffffff), ai); bi = np.where(bi < 0, -(bi & 0x7fffffff), bi)
    return np.abs(ai - bi)
cases = {
 'var(dim=1)': (lambda T, x: T.var(x, 1), (50, 2000)),
 'std(dim=1)': (lambda T, x: T.std(x, 1), (50, 2000)),
 'var(all)': (lambda T, x: T.var(x), (100, 300)),
 'softmax(dim=1)': (lambda T, x: T.softmax(x, 1), (50, 300)),
 'log_softmax(dim=1)': (lambda T, x: T.log_softmax(x, 1), (50, 300)),
 'logsumexp(dim=1)': (lambda T, x: T.logsumexp(x, 1), (50, 300)),
 'norm(dim=1)': (lambda T, x: T.norm(x, dim=1), (50, 300)),
 'prod(dim=1)': (lambda T, x: T.prod(x * 0.1 + 1, 1), (50, 30)),
 'cumprod(dim=1)': (lambda T, x: T.cumprod(x * 0.1 + 1, 1), (50, 30)),
 'gelu': (lambda T, x: (TF if T is torch else g).gelu(x), (100000,)),
 'silu': (lambda T, x: (TF if T is torch else g).silu(x), (100000,)),
 'elu': (lambda T, x: (TF if T is torch else g).elu(x), (100000,)),
 'logsigmoid': (lambda T, x: (TF if T is torch else g).logsigmoid(x), (100000,)),
 'softplus': (lambda T, x: (TF if T is torch else g).softplus(x), (100000,)),
 'det': (lambda T, x: T.det(x), (200, 4, 4)),
 'matmul 64x64': (lambda T, x: x @ x.transpose(0, 1) if x.dim() == 2 else x, (64, 64)),
 'matmul 300x300': (lambda T, x: x @ x.transpose(0, 1), (300, 300)),
 'mv': (lambda T, x: T.mv(x, x[0]), (300, 300)),
 'conv2d': (lambda T, x: (TF if T is torch else g).conv2d(x.reshape(4, 3, 16, 16),
                                                        x.reshape(-1)[:3 * 3 * 3 * 8].reshape(8, 3, 3, 3)),
            (4 * 3 * 16 * 16,)),
 'sum then div (mean)': (lambda T, x: T.mean(x, 0), (300, 200)),
 'layer_norm(300)': (lambda T, x: (TF if T is torch else g).layer_norm(x, (300,)), (50, 300)),
 'layer_norm(300) affine': (lambda T, x: (TF if T is torch else g).layer_norm(
     x, (300,), x[0] * 0.5 + 1, x[1] * 0.1), (50, 300)),
 'batch_norm train': (lambda T, x: (TF if T is torch else g).batch_norm(
     x, None, None, training=True), (50, 300)),
}
print(f"{'op':22} {'elements':>8} {'exact':>8} {'<=1ulp':>8} {'max ulp':>8}")
for name, (fn, shape) in cases.items():
    x = (rng.standard_normal(shape)).astype(np.float32)
    try:
        r = fn(torch, torch.from_numpy(x)).numpy()
        o = np.asarray(fn(g, g.tensor(x))._data)
    except Exception as e:
        print(name, 'error', e); continue
    u = ulp(o, r)
    print(f"{name:22} {u.size:8d} {np.mean(u == 0)*100:7.2f}% {np.mean(u <= 1)*100:7.2f}% {u.max():8d}")
