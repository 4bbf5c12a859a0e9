# register_full_backward_hook prints the gradients flowing through each layer;
# a forward hook prints each layer's output.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.Sigmoid(), nn.Linear(2, 1)).double()
for p in model.parameters():
    nn.init.constant_(p, 0.5)


def show_grads(module, grad_input, grad_output):
    gin = [None if g is None else [round(v, 8) for v in g.flatten().tolist()] for g in grad_input]
    gout = [[round(v, 8) for v in g.flatten().tolist()] for g in grad_output]
    print(f"{module}: grad_input {gin} grad_output {gout}")


def show_output(module, inputs, output):
    print(f"{module} -> {[round(v, 8) for v in output.flatten().tolist()]}")


for layer in model:
    layer.register_full_backward_hook(show_grads)
    layer.register_forward_hook(show_output)

x = torch.tensor([[1.0, -2.0]], dtype=torch.float64, requires_grad=True)
out = model(x)
out.sum().backward()
print([round(v, 8) for v in x.grad.flatten().tolist()])
