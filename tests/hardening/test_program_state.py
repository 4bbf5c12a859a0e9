"""Issue 26, item 6: state a program can write into engine objects (an optimizer's
`param_groups` and `state`, a scheduler's `base_lrs`, a module's parameters and buffers)
is checked where the engine reads it: a wrong value is a program error (exit 3, PyTorch's
message or a plain one), never exit 70 or a traceback.

Each case runs as a real `python -m gradcli` process under a CPU and memory rlimit; the
broader sweep runs in this process through the CLI.
"""
from __future__ import annotations

import pytest

from hardening_helpers import invoke, program_error

W = ("w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
     "b = torch.tensor([3.0], requires_grad=True)\n")
BACKWARD = "y = (w * w).sum()\ny.backward()\n"


def optimizer_program(optimizer: str, edit: str, then: str = "opt.step()\n") -> str:
    return W + f"opt = torch.optim.{optimizer}\n" + BACKWARD + edit + then


@pytest.mark.parametrize("optimizer, edit, then, message", [
    ("SGD([w], lr=0.1)", "opt.param_groups[0]['params'] = [1, 'a', None]\n", "opt.step()\n",
     "optimizer can only optimize Tensors, but one of the params is int"),
    ("Adam([w])", "opt.param_groups[0]['params'] = [1, 'a', None]\n", "opt.zero_grad()\n",
     "optimizer can only optimize Tensors, but one of the params is int"),
    ("Adam([w])", "opt.param_groups[0] = 5\n", "opt.step()\n",
     "param_groups[0] must be a dict, not int"),
    ("Adam([w])", "opt.param_groups.append({'params': [b]})\n", "opt.step()\n",
     "the parameter group has no option 'lr'"),
    ("Adam([w])", "opt.param_groups[0]['betas'] = 5\n", "opt.step()\n",
     "the option 'betas' must be a pair of numbers, not int"),
    ("SGD([w], lr=0.1)", "opt.param_groups[0]['lr'] = 'a'\n", "opt.step()\n",
     "the option 'lr' must be a number, not str"),
    ("Adam([w])", "opt.step()\nopt.state[w]['exp_avg'] = torch.zeros(5)\n", "opt.step()\n",
     "the optimizer's state 'exp_avg' has shape [5], but its parameter has shape [2]"),
    ("RMSprop([w], centered=True)", "opt.step()\nopt.state[w]['grad_avg'] = None\n", "opt.step()\n",
     "the optimizer's state 'grad_avg' must be a Tensor, not NoneType"),
    ("Adagrad([w])", "opt.state[w]['step'] = 1.5\n", "opt.step()\n",
     "the optimizer's state 'step' must be a one-element Tensor, not float"),
    ("SGD([w], lr=0.1, momentum=0.9)", "opt.step()\nopt.state[w] = 5\n", "opt.step()\n",
     "the optimizer's state of a parameter must be a dict, not int"),
    ("SGD([w], lr=0.1)", "", "opt.add_param_group({'params': range(10**9)})\n",
     "optimizer can only optimize Tensors, but one of the params is int"),
])
def test_optimizer_state_written_by_the_program(optimizer, edit, then, message):
    program_error("run", "-e", optimizer_program(optimizer, edit, then), message=message)


def test_scheduler_base_lrs_and_lr_written_by_the_program():
    """LambdaLR multiplies each base lr by what the program's function returns: a string
    base lr times 10^9 was a 1 GB string."""
    source = (W + "opt = torch.optim.SGD([w], lr=0.1)\n"
              "s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 10**9)\n"
              "s.base_lrs[0] = 'x'\ns.step()\n")
    program_error("run", "-e", source, message="the scheduler's base_lrs must hold numbers, not str")


def test_optimizer_made_from_a_huge_range_is_refused_at_its_first_item():
    # (a range of 10**9 is charged by its length where a library call receives it: the
    # steps limit, exit 3 as well, ends it before the optimizer sees an item)
    program_error("run", "-e", "opt = torch.optim.SGD(range(10**8), lr=0.1)",
                  message="should be an iterable of Tensors or dicts, but got int")


@pytest.mark.parametrize("source, message", [
    ("m = nn.Conv2d(1, 2, 3)\nm.weight = None\ny = m(torch.ones(1, 1, 5, 5))",
     "conv2d(): argument 'weight' (position 2) must be Tensor, not NoneType"),
    ("m = nn.Embedding(5, 2)\nm.weight = None\ny = m(torch.tensor([1]))",
     "embedding(): argument 'weight' (position 2) must be Tensor, not NoneType"),
    ("m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))\n"
     "h = m[0].register_forward_hook(lambda mod, i, o: 'x')\ny = m(torch.ones(3, 2))",
     "BatchNorm1d: the input must be a Tensor, not str"),
])
def test_module_state_written_by_the_program(source, message):
    program_error("run", "-e", source, message=message)


def test_batchnorm_without_its_counter_runs_as_pytorch():
    """PyTorch counts batches only while `num_batches_tracked` is there."""
    result = invoke("run", "-e", "m = nn.BatchNorm1d(2)\nm.num_batches_tracked = None\n"
                    "y = m(torch.ones(4, 2))\nprint(sorted(m.state_dict().keys()))")
    assert result.exit_code == 0, result.stderr
    assert "num_batches_tracked" not in result.stdout


EDITS = {
    "params_junk": "opt.param_groups[0]['params'] = [1, 'a', None]\n",
    "params_int": "opt.param_groups[0]['params'] = 5\n",
    "group_int": "opt.param_groups[0] = 5\n",
    "group_append": "opt.param_groups.append(3)\n",
    "group_without_options": "opt.param_groups.append({'params': [b]})\n",
    "lr_str": "opt.param_groups[0]['lr'] = 'a'\n",
    "lr_tensor": "opt.param_groups[0]['lr'] = torch.tensor([1.0, 2.0])\n",
    "lr_huge": "opt.param_groups[0]['lr'] = 10**400\n",
    "betas_3": "opt.param_groups[0]['betas'] = (0.1, 0.2, 0.3)\n",
    "flag_list": "opt.param_groups[0]['maximize'] = [1]\n",
    "state_int": "opt.step()\nopt.state[w] = 5\n",
    "state_values": "opt.step()\nfor k in opt.state[w]:\n    opt.state[w][k] = 'x'\n",
    "state_shape": "opt.step()\nfor k in opt.state[w]:\n    opt.state[w][k] = torch.zeros(5)\n",
    "state_dtype": "opt.step()\nfor k in opt.state[w]:\n    opt.state[w][k] = torch.zeros(2, dtype=torch.float32)\n",
    "state_expanded": "opt.step()\nfor k in opt.state[w]:\n    opt.state[w][k] = torch.zeros(1).expand(2)\n",
    "state_none": "opt.step()\nfor k in opt.state[w]:\n    opt.state[w][k] = None\n",
    "defaults": "opt.defaults['lr'] = 'x'\nopt.add_param_group({'params': [b]})\n",
}


@pytest.mark.parametrize("optimizer", ["SGD([w], lr=0.1, momentum=0.9)", "Adam([w], amsgrad=True)",
                                       "AdamW([w])", "RMSprop([w], momentum=0.5, centered=True)",
                                       "Adagrad([w])", "Adadelta([w])", "Adamax([w])", "NAdam([w])",
                                       "RAdam([w], decoupled_weight_decay=True)", "LBFGS([w])"])
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_every_optimizer_survives_every_edit(optimizer, edit):
    source = optimizer_program(optimizer, EDITS[edit], "opt.step()\nopt.zero_grad()\nprint(opt)\n")
    result = invoke("run", "-e", source)
    assert result.exit_code in (0, 3), result.stderr
    assert "bug in gradcli" not in result.stderr
