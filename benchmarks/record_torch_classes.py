"""Record PyTorch's class names for gradcli (run by hand with a PyTorch venv, never by tests):

    <python with torch 2.13> benchmarks/record_torch_classes.py

Writes gradcli/lang/data/torch_classes.json: each public class of torch, torch.nn,
torch.optim, torch.optim.lr_scheduler, torch.utils.data and torch.autograd by its name,
with the module path PyTorch prints for it (`<class 'torch.nn.modules.linear.Linear'>`).
"""
import inspect
import json
from pathlib import Path

import torch
import torch.nn.utils.rnn
import torch.utils.data

OUT = Path(__file__).resolve().parent.parent / "gradcli" / "lang" / "data" / "torch_classes.json"

if __name__ == "__main__":
    names: dict = {}
    for module in (torch.nn, torch.optim, torch.optim.lr_scheduler, torch.utils.data, torch.autograd,
                   torch.nn.utils.rnn, torch):
        for name in sorted(dir(module)):
            value = getattr(module, name)
            if not name.startswith("_") and inspect.isclass(value):
                names.setdefault(name, f"{value.__module__}.{value.__qualname__}")   # nn's before torch's
    names["Tensor"] = "torch.Tensor"   # (torch.Tensor's __module__ is torch._tensor; PyTorch prints torch.Tensor)
    doc = {"about": "PyTorch 2.13's class names as it prints them (type(m), print(nn.Linear)), by the "
                    "class's short name; recorded by benchmarks/record_torch_classes.py",
           "torch_version": torch.__version__, "classes": dict(sorted(names.items()))}
    OUT.write_text(json.dumps(doc, indent=0) + "\n")
    print(f"{len(names)} classes")
