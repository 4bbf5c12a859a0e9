"""Target 2, scalar-graph overhead.

Chain: 10^5 primitive scalar ops, forward then backward. The steps alternate
`y = y * c + d` and `y = sin(y * c)` (two ops each, 25,000 of each kind), with
c and d plain numbers. Target: at most 20x the same arithmetic written by hand
on numpy 0-d arrays (forward, keeping what the backward needs, then the
backward by the chain rule) [PyTorch eager: about 20x].

Wide DAG: one input fanned out to 10^4 products `x * c_i`, summed by a chain of
additions (2 x 10^4 nodes; the input's gradient is accumulated 10^4 times).
Target: no slower than PyTorch.

gradcli is measured under both GC modes (see _common): `library` is what a
program importing gradcli gets, `cli` what the gradcli command runs with.
"""
from __future__ import annotations

import sys

import numpy as np

from _common import (best, chain_forward, chain_numpy_backward, chain_numpy_forward, compare,
                     fmt_s, fmt_x, import_torch, repeats, report, summary)

N_OPS = 100_000          # primitive ops in the chain
N_WIDE = 10_000          # fan-out of the wide DAG
C, D = 1.0001, 0.0001
TARGET_CHAIN = 20.0
REPEAT_CHAIN = 3
REPEAT_WIDE = repeats(11)


def steps():
    """The chain as a list of step kinds: 0 is y * c + d, 1 is sin(y * c)."""
    return [i % 2 for i in range(N_OPS // 2)]


def _dtype(name="float64") -> dict:
    """`dtype=` for gradcli.tensor (a tree from before real dtypes had float64 only)."""
    import gradcli

    return {"dtype": getattr(gradcli, name)} if hasattr(gradcli, "dtype") else {}


def chain_gradcli(dtype="float64"):
    import gradcli

    x = gradcli.tensor(0.5, requires_grad=True, **_dtype(dtype))
    chain_forward(x, steps(), gradcli.sin, C, D).backward()
    return x.grad.item()


def chain_numpy():
    """The floor: the same arithmetic by hand on 0-d arrays, then the chain rule by hand."""
    c = np.asarray(C)
    _, saved = chain_numpy_forward(np.asarray(0.5), steps(), c, np.asarray(D))
    return chain_numpy_backward(saved, c)


def chain_torch(torch):
    def run():
        x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
        chain_forward(x, steps(), torch.sin, C, D).backward()
        return x.grad.item()
    return run


def chain_gradcli_float32():
    return chain_gradcli("float32")


def wide_gradcli():
    import gradcli

    x = gradcli.tensor(0.5, requires_grad=True, **_dtype())
    s = x * 1.0
    for i in range(1, N_WIDE):
        s = s + x * (1.0 + i * 1e-4)
    s.backward()
    return x.grad.item()


def wide_numpy():
    x = np.asarray(0.5)
    coefs = [np.asarray(1.0 + i * 1e-4) for i in range(N_WIDE)]
    s = x * coefs[0]
    for i in range(1, N_WIDE):
        s = s + x * coefs[i]
    g = np.asarray(1.0)
    gx = np.asarray(0.0)
    for i in reversed(range(N_WIDE)):
        gx = gx + g * coefs[i]
    return float(gx)


def wide_torch(torch):
    def run():
        x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
        s = x * 1.0
        for i in range(1, N_WIDE):
            s = s + x * (1.0 + i * 1e-4)
        s.backward()
        return x.grad.item()
    return run


def main() -> None:
    torch = import_torch()
    # the three compute the same gradient
    ref = chain_numpy()
    assert np.isclose(chain_gradcli(), ref, rtol=1e-9, atol=0), "gradcli's chain gradient is wrong"
    assert np.isclose(wide_gradcli(), wide_numpy(), rtol=1e-9), "gradcli's wide gradient is wrong"

    sides = {"numpy 0-d (floor)": chain_numpy,
             "gradcli, library GC": (chain_gradcli, "library"),
             "gradcli, cli GC": (chain_gradcli, "cli")}
    if hasattr(__import__("gradcli"), "dtype"):
        # issue 12: float32 no slower than float64 (a looser check: float32 rounding)
        assert np.isclose(chain_gradcli_float32(), ref, rtol=1e-2), "gradcli's float32 chain is wrong"
        sides["gradcli float32, library GC"] = (chain_gradcli_float32, "library")
    if torch is not None:
        sides["pytorch"] = chain_torch(torch)
    chain = {k: best(v) for k, v in compare(sides, REPEAT_CHAIN, warmup=0).items()}

    wsides = {"numpy 0-d (floor)": wide_numpy,
              "gradcli, library GC": (wide_gradcli, "library"),
              "gradcli, cli GC": (wide_gradcli, "cli")}
    if torch is not None:
        wsides["pytorch"] = wide_torch(torch)
    wide = {k: best(v) for k, v in compare(wsides, REPEAT_WIDE).items()}

    rows = []
    for label, res, n_nodes in (("chain 10^5 ops", chain, N_OPS), ("wide DAG 10^4", wide, 2 * N_WIDE)):
        floor = res["numpy 0-d (floor)"]
        for side, t in res.items():
            rows.append([label, side, fmt_s(t), f"{t / n_nodes * 1e6:.2f}", fmt_x(t / floor),
                         fmt_x(t / res["pytorch"]) if "pytorch" in res else None])
    floor = chain["numpy 0-d (floor)"]
    r_lib = chain["gradcli, library GC"] / floor
    r_cli = chain["gradcli, cli GC"] / floor
    pt = chain.get("pytorch")
    w_lib, w_cli, w_pt = wide["gradcli, library GC"], wide["gradcli, cli GC"], wide.get("pytorch")
    summaries = [
        summary("scalar chain 10^5 ops, fwd+bwd (library GC)", f"<= {TARGET_CHAIN:g}x numpy 0-d",
                f"{fmt_s(chain['gradcli, library GC'])} = {fmt_x(r_lib)}", fmt_s(floor),
                f"{fmt_s(pt)} = {fmt_x(pt / floor)}" if pt else None, r_lib <= TARGET_CHAIN),
        summary("scalar chain 10^5 ops, fwd+bwd (cli GC)", f"<= {TARGET_CHAIN:g}x numpy 0-d",
                f"{fmt_s(chain['gradcli, cli GC'])} = {fmt_x(r_cli)}", fmt_s(floor),
                f"{fmt_s(pt)} = {fmt_x(pt / floor)}" if pt else None, r_cli <= TARGET_CHAIN),
        # issue 18: the library's own default GC (a Python user's) against PyTorch
        summary("scalar chain 10^5 ops, library GC, vs PyTorch", "<= 1x PyTorch",
                f"{fmt_s(chain['gradcli, library GC'])}"
                + (f" = {fmt_x(chain['gradcli, library GC'] / pt)} PyTorch" if pt else ""),
                fmt_s(floor), fmt_s(pt) if pt else None,
                (chain["gradcli, library GC"] <= pt) if pt else None),
        summary("wide DAG 10^4 fan-out (library GC)", "<= 1x PyTorch",
                f"{fmt_s(w_lib)}" + (f" = {fmt_x(w_lib / w_pt)} PyTorch" if w_pt else ""),
                fmt_s(wide["numpy 0-d (floor)"]), fmt_s(w_pt) if w_pt else None,
                (w_lib <= w_pt) if w_pt else None),
        summary("wide DAG 10^4 fan-out (cli GC)", "<= 1x PyTorch",
                f"{fmt_s(w_cli)}" + (f" = {fmt_x(w_cli / w_pt)} PyTorch" if w_pt else ""),
                fmt_s(wide["numpy 0-d (floor)"]), fmt_s(w_pt) if w_pt else None,
                (w_cli <= w_pt) if w_pt else None),
    ]
    report("scalar_chain", ["graph", "side", "best", "us/node", "vs floor", "vs pytorch"], rows,
           summaries, details={"chain_s": chain, "wide_s": wide, "n_ops": N_OPS, "n_wide": N_WIDE},
           notes=["fwd+bwd per run; best of %d (chain) and %d (wide) interleaved runs"
                  % (REPEAT_CHAIN, REPEAT_WIDE)])


if __name__ == "__main__":
    sys.exit(main())
