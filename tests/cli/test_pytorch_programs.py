"""Two kinds of file (issue 32, SPEC 2.1): a file that imports torch is a PyTorch program,
with Python's numbers and its leaves that require grad as inputs; any other file is an
expression, whose literal assignments are inputs."""
import json

from cli_helpers import as_json, invoke

TRAINING = """import torch
w = torch.tensor([1.0, -1.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
lr = 0.1
steps = 3
xs = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
ys = torch.tensor([1.0, 2.0])
print(lr * 2, steps)
print(7 // 2, isinstance(steps, int), 7 / 2)
for i in range(steps):
    loss = ((xs @ w + b - ys) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad = None
        b.grad = None
loss = ((xs @ w + b - ys) ** 2).mean()
"""

REASSIGNED = """import torch
n = 2
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for i in range(n):
    x = x * 2
y = x[1] + x.sum()
"""

NET = """import torch
import torch.nn as nn
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.fc2 = nn.Linear(3, 1)
    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))
net = Net()
scale = 2.0
out = (net(torch.tensor([[1.0, 2.0]])) * scale).sum()
"""


def test_grad_without_wrt_answers_for_the_parameters_only():
    doc = as_json(invoke("grad", "-e", TRAINING, "--json"))
    assert doc["wrt"] == ["w", "b"]
    assert set(doc["grads"]) == {"w", "b"}


def test_backward_lists_no_hyperparameter_as_an_input():
    doc = as_json(invoke("backward", "-e", TRAINING, "--json"))
    assert set(doc["grads"]) == {"w", "b"}
    assert "lr" not in doc.get("why_none", {}) and "steps" not in doc.get("why_none", {})


def test_print_lines_are_pytorchs_under_every_command():
    for command in ("grad", "backward", "eval", "graph"):
        result = invoke(command, "-e", TRAINING)
        assert result.exit_code == 0, (command, result.stderr)
        assert "0.2 3\n3 True 3.5\n" in result.stderr, command


def test_module_arguments_print_as_pytorch_does():
    program = ("import torch\nimport torch.nn as nn\npool = nn.MaxPool2d(2, 2)\nprint(pool)\n"
               "x = torch.ones(1, 1, 4, 4, requires_grad=True)\ny = pool(x).sum()\n")
    result = invoke("graph", "-e", program, "--tree")
    assert "MaxPool2d(kernel_size=2, stride=2," in result.stderr


def test_a_reassigned_leaf_is_reported_by_its_first_name_and_place():
    doc = as_json(invoke("backward", "-e", REASSIGNED, "--json"))
    assert doc["grads"] == {"x (3:1)": [4.0, 8.0, 4.0]}  # d/dx0 of 4*x0[1] + sum(4*x0)
    assert "n" not in doc["grads"]
    grad = as_json(invoke("grad", "-e", REASSIGNED, "--json"))
    assert grad["wrt"] == ["x (3:1)"] and grad["grads"]["x (3:1)"] == [4.0, 8.0, 4.0]
    graph = as_json(invoke("graph", "-e", REASSIGNED, "--format", "json"))
    assert [n["variable"] for n in graph["nodes"] if n["name"] == "AccumulateGrad"] == ["x (3:1)"]
    assert "variable x (3:1)" in invoke("graph", "-e", REASSIGNED, "--tree").stdout
    again = as_json(invoke("grad", "-e", REASSIGNED, "--wrt", "x (3:1)", "--json"))
    assert again["grads"] == grad["grads"]


def test_set_replaces_a_literal_and_sweeps_with_points():
    base = as_json(invoke("eval", "-e", TRAINING, "--json"))["values"]["loss"]
    changed = as_json(invoke("eval", "-e", TRAINING, "--set", "lr=0.0", "--json"))
    assert changed["values"]["lr"] == 0.0 and changed["values"]["loss"] != base
    untrained = as_json(invoke("eval", "-e", TRAINING, "--set", "steps=0", "--json"))["values"]["loss"]
    assert changed["values"]["loss"] == untrained  # lr 0: the steps change nothing
    lines = invoke("grad", "-e", TRAINING, "--points", "-", input='{"lr": 0.0}\n{"lr": 0.05}\n')
    assert lines.exit_code == 0
    docs = [json.loads(line) for line in lines.stdout.splitlines()]
    assert [d["point"] for d in docs] == [{"lr": 0.0}, {"lr": 0.05}]
    assert docs[0]["grads"] != docs[1]["grads"]


def test_set_of_an_unknown_name_says_what_can_be_set():
    result = invoke("grad", "-e", TRAINING, "--set", "lrr=0.2")
    assert result.exit_code == 2 and "did you mean 'lr'?" in result.stderr


def test_wrt_takes_parameter_paths_and_default_wrt_is_the_parameters():
    doc = as_json(invoke("grad", "-e", NET, "--wrt", "fc1.weight", "--json"))
    assert len(doc["grads"]["fc1.weight"]) == 3 and len(doc["grads"]["fc1.weight"][0]) == 2
    default = as_json(invoke("grad", "-e", NET, "--json"))
    assert default["wrt"] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]  # not `scale`
    backward = as_json(invoke("backward", "-e", NET, "--json"))
    assert list(backward["grads"]) == default["wrt"]


def test_an_expression_keeps_literal_inputs():
    expression = "n = 3\nx = 2.0\ny = x ** n\n"
    doc = as_json(invoke("grad", "-e", expression, "--json"))
    assert doc["wrt"] == ["n", "x"]
    assert doc["grads"]["x"] == 12.0
    # the same lines under `import torch`: n and x are Python numbers, y is no tensor
    result = invoke("grad", "-e", "import torch\n" + expression)
    assert result.exit_code != 0 and "no input that requires grad" in result.stderr
    assert "requires_grad=True" in result.stderr


def test_help_says_which_kind_a_file_is():
    for command in ("grad", "backward", "jacobian", "hessian", "gradcheck", "graph", "eval"):
        text = " ".join(invoke(command, "--help").stdout.split())
        assert "imports torch is a PyTorch program" in text, command
        assert "expression" in text, command


def test_the_side_by_side_samples_differ_as_the_readme_says():
    from pathlib import Path
    samples = Path(__file__).resolve().parents[2] / "samples"
    pytorch = as_json(invoke("backward", str(samples / "pytorch_program.py"), "--json"))
    expression = as_json(invoke("backward", str(samples / "expression.txt"), "--json"))
    assert pytorch["grads"] == {"w": 3.0, "b": 1.0}
    assert expression["grads"] == {"w": 3.0, "b": 1.0, "lr": None, "x": 2.0}
    readme = (samples.parent / "README.md").read_text()
    assert "samples/pytorch_program.py" in readme and "samples/expression.txt" in readme
