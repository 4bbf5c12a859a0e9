"""Records PyTorch's float32/float16 sums, means, nansums and cumsums of seeded inputs into
sums.json, for tests/engine/test_torch_digits.py (which never imports torch).

    <python with torch 2.13> tests/engine/torch_digits/record.py

Each case names its input (shape, dtype, seed, view), the reduction and its dims; the
result is kept as the sha256 of its bytes, its shape and its first values.
"""
import hashlib
import json
from pathlib import Path

import numpy as np
import torch

from cases import CASES, make_input


def result(kind, t, dims, keepdim):
    if kind == "cumsum":
        return t.cumsum(dims)
    fn = getattr(t, kind)
    return fn() if dims is None else fn(dims, keepdim)


def main():
    out = {}
    for case in CASES:
        x = make_input(case)
        r = result(case["kind"], torch.from_numpy(np.ascontiguousarray(x) if case.get("view") == "neg" else x),
                   case["dims"], case.get("keepdim", False)).numpy()
        out[case["name"]] = {"sha256": hashlib.sha256(np.ascontiguousarray(r).tobytes()).hexdigest(),
                             "shape": list(r.shape), "first": [float(v) for v in r.reshape(-1)[:4]]}
    path = Path(__file__).with_name("sums.json")
    path.write_text(json.dumps({"torch": torch.__version__, "cases": out}, indent=1) + "\n")
    print(f"{len(out)} cases -> {path}")


if __name__ == "__main__":
    main()
