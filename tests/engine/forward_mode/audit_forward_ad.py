import torch
import torch.autograd.forward_ad as fwAD

# torch.autograd.forward_ad: make_dual, unpack_dual, a module's parameters made dual
primal = torch.tensor([1.0, 2.0, 3.0])
tangent = torch.tensor([1.0, 0.0, -1.0])
with fwAD.dual_level():
    dual = fwAD.make_dual(primal, tangent)
    out = (dual.exp() * dual.cos()).sum()
    p, t = fwAD.unpack_dual(out)
    print(p, t)
    print(fwAD.unpack_dual(out).tangent)
    print(fwAD.unpack_dual(primal).tangent)
model = torch.nn.Linear(3, 2)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.3, 0.2, -0.1]]))
    model.bias.copy_(torch.tensor([0.5, -0.5]))
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.ones_like(p) for name, p in params.items()}
with fwAD.dual_level():
    dual_params = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
    out = torch.func.functional_call(model, dual_params, (primal,))
    jvp = fwAD.unpack_dual(out).tangent
print(jvp.detach())   # (PyTorch's keeps a graph to the parameters here: docs/LANGUAGE.md)
with fwAD.dual_level():
    d = fwAD.make_dual(primal, torch.ones(3))
    print(fwAD.unpack_dual(model(d)).tangent)
    print(fwAD.unpack_dual(torch.nn.functional.softmax(d, 0)).tangent)
