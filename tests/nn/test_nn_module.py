"""nn.Module from the language: registration, traversal order, modes, state, hooks, repr."""
from __future__ import annotations

import pytest

from nn_helpers import fails, run

NET = """
class Net(nn.Module):
    def __init__(self, hidden=2):
        super().__init__()
        self.fc1 = nn.Linear(3, hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(hidden, 1)
        self.register_buffer("count", torch.zeros(1))
        self.scale = 2.0

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale

net = Net()
for p in net.parameters():
    nn.init.constant_(p, 0.5)
"""


def test_forward_runs_the_program_method_with_registered_layers():
    # fc1: 0.5*(1+2+3) + 0.5 = 3.5 per unit; fc2: 0.5*(3.5+3.5) + 0.5 = 4; * scale 2 = 8
    assert run(NET + "print(net(torch.tensor([[1.0, 2.0, 3.0]])).item())") == ["8.0"]


def test_names_and_order_are_pytorchs():
    lines = run(NET + """
print([n for n, p in net.named_parameters()])
print([n for n, m in net.named_modules()])
print([n for n, m in net.named_children()])
print([n for n, b in net.named_buffers()])
print(list(net.state_dict().keys()))
print(len(net.parameters()), len(net.modules()), len(net.children()), len(net.buffers()))
""")
    assert lines == [
        "['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']",
        "['', 'fc1', 'act', 'fc2']",
        "['fc1', 'act', 'fc2']",
        "['count']",
        "['count', 'fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']",
        "4 4 3 1",
    ]


def test_repr_is_pytorchs_nested():
    lines = run(NET + "print(nn.Sequential(net, nn.Tanh()))")
    assert lines == [
        "Sequential(",
        "  (0): Net(",
        "    (fc1): Linear(in_features=3, out_features=2, bias=True)",
        "    (act): ReLU()",
        "    (fc2): Linear(in_features=2, out_features=1, bias=True)",
        "  )",
        "  (1): Tanh()",
        ")",
    ]


def test_extra_repr_is_the_programs():
    lines = run("class M(nn.Module):\n    def extra_repr(self):\n        return 'k=3'\nprint(M())")
    assert lines == ["M(k=3)"]


def test_backward_reaches_the_parameters_and_zero_grad_clears_them():
    lines = run(NET + """
net(torch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
print(net.fc2.weight.grad.tolist(), net.fc1.bias.grad.tolist())
net.zero_grad()
print(net.fc2.weight.grad)
""")
    # d/dw2 = scale * h = 2 * 3.5; d/db1 = scale * w2 = 2 * 0.5
    assert lines == ["[[7.0, 7.0]] [1.0, 1.0]", "None"]


def test_zero_grad_set_to_none_false_keeps_zeros():
    lines = run(NET + """
net(torch.ones(1, 3)).sum().backward()
net.zero_grad(set_to_none=False)
print(net.fc2.bias.grad.tolist())
""")
    assert lines == ["[0.0]"]


def test_train_eval_reach_every_submodule_and_dropout_follows():
    lines = run("""
model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.99))
print(model.training, model[1].training)
model.eval()
print(model.training, model[1].training)
x = torch.ones(1, 2)
print(model[1](x).tolist())
model.train()
print(model[1].training)
""")
    assert lines == ["True True", "False False", "[[1.0, 1.0]]", "True"]


def test_requires_grad_and_apply():
    lines = run(NET + """
net.requires_grad_(False)
print([p.requires_grad for p in net.parameters()])
names = []
def visit(m):
    names.append(type_name(m))
""".replace("type_name(m)", "str(m)[:3]") + """
net.apply(visit)
print(names)
""")
    assert lines == ["[False, False, False, False]", "['Lin', 'ReL', 'Lin', 'Net']"]


def test_state_dict_round_trip_and_errors():
    lines = run(NET + """
other = Net()
print(other.load_state_dict(net.state_dict()))
print(other.fc1.weight.tolist()[0])
""")
    assert lines == ["<All keys matched successfully>", "[0.5, 0.5, 0.5]"]
    error = fails(NET + "Net(hidden=3).load_state_dict(net.state_dict())")
    assert "size mismatch for fc1.weight" in error.message


def test_setting_a_non_parameter_tensor_on_a_parameter_name_is_refused():
    error = fails(NET + "net.fc1.weight = torch.ones(2, 3)")
    assert "as parameter 'weight' (torch.nn.Parameter or None expected)" in error.message


def test_parameter_before_init_is_refused():
    error = fails("class M(nn.Module):\n    def __init__(self):\n"
                  "        self.w = nn.Parameter(torch.ones(1))\nM()")
    assert "before Module.__init__() call" in error.message


def test_parameters_assigned_as_attributes_are_registered():
    lines = run("""
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([2.0]))
        self.layers = nn.ModuleList([nn.Linear(1, 1) for _ in range(2)])
    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * self.w
m = M()
print([n for n, p in m.named_parameters()])
print(len(m.layers), isinstance(m.w, nn.Parameter), isinstance(m, M), isinstance(m.layers[0], nn.Linear))
""")
    assert lines == ["['w', 'layers.0.weight', 'layers.0.bias', 'layers.1.weight', 'layers.1.bias']",
                     "2 True True True"]


def test_super_forward_and_inheritance_between_program_classes():
    lines = run("""
class Base(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
    def forward(self, x):
        return x * self.k
class Child(Base):
    def __init__(self):
        super().__init__(3)
    def forward(self, x):
        return super().forward(x) + 1
c = Child()
print(c(torch.tensor(2.0)).item(), isinstance(c, Base))
""")
    assert lines == ["7.0 True"]


def test_hooks_forward_pre_and_forward():
    lines = run("""
lin = nn.Linear(1, 1)
nn.init.constant_(lin.weight, 2.0)
nn.init.zeros_(lin.bias)
def pre(m, args):
    return (args[0] + 1,)
def post(m, args, out):
    print('out', out.item())
    return out * 10
h1 = lin.register_forward_pre_hook(pre)
h2 = lin.register_forward_hook(post)
print(lin(torch.tensor([1.0])).item())
h1.remove()
h2.remove()
print(lin(torch.tensor([1.0])).item())
""")
    # pre: x = 2; lin: 4; post prints 4 and gives 40
    assert lines == ["out 4.0", "40.0", "2.0"]


def test_full_backward_hook_sees_grad_input_and_grad_output():
    lines = run("""
lin = nn.Linear(2, 1)
nn.init.constant_(lin.weight, 3.0)
def hook(m, grad_input, grad_output):
    print('gin', grad_input[0].tolist(), 'gout', grad_output[0].tolist())
lin.register_full_backward_hook(hook)
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
(lin(x) * 5).sum().backward()
print(x.grad.tolist())
""")
    # grad_output = 5; grad_input = 5 * w = [15, 15]
    assert lines == ["gin [[15.0, 15.0]] gout [[5.0]]", "[[15.0, 15.0]]"]


def test_to_double_keeps_parameter_identity():
    lines = run("""
lin = nn.Linear(2, 2)
w = lin.weight
lin.double()
print(lin.weight is w, lin.weight.dtype)
lin.to(torch.float64)
print(lin.weight.dtype)
""")
    assert lines == ["True torch.float64", "torch.float64"]
