"""What a program may write into the optimizers and schedulers of issue 27 is checked where
it is read: NAdam's `mu_product`, LBFGS's counters, a scheduler's load_state_dict. (Their
numbers against PyTorch's: tests/nn/tail/optimizers.py, lbfgs.py, schedulers.py.)"""
import pytest

from gradcli.errors import ProgramError
from gradcli.lang import compile_program

TRAIN = """
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.{make}
def closure():
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    return loss
"""


def run(source: str) -> list:
    lines = []
    compile_program(source).run(stdout=lines.append, script=True)
    return lines


@pytest.mark.parametrize("value, message", [
    ("'a'", "'mu_product' must be a one-element Tensor, not str"),
    ("torch.zeros(3)", "'mu_product' must be a one-element Tensor, not a Tensor of 3 elements"),
    ("torch.tensor(1)", "'mu_product' must be a floating Tensor"),
])
def test_nadam_refuses_a_written_mu_product(value, message):
    source = TRAIN.format(make="NAdam([w])") + f"""
closure(); opt.step()
opt.state[w]['mu_product'] = {value}
closure(); opt.step()
"""
    with pytest.raises(ProgramError, match=message):
        run(source)


@pytest.mark.parametrize("make", ["Adadelta([w])", "Adamax([w])", "RAdam([w])", "NAdam([w])"])
def test_a_state_tensor_of_another_shape_is_refused(make):
    key = {"Adadelta": "square_avg", "Adamax": "exp_inf"}.get(make.split("(")[0], "exp_avg")
    source = TRAIN.format(make=make) + f"""
closure(); opt.step()
opt.state[w]['{key}'] = torch.zeros(5)
closure(); opt.step()
"""
    with pytest.raises(ProgramError, match=f"'{key}' has shape \\[5\\]"):
        run(source)


def test_lbfgs_counters_are_checked_and_n_iter_zero_restarts():
    source = TRAIN.format(make="LBFGS([w], max_iter=3)") + """
opt.step(closure)
print(opt.state[w]['n_iter'], opt.state[w]['func_evals'], len(opt.state[w]['old_dirs']))
opt.state[w]['n_iter'] = 0
opt.step(closure)
print(opt.state[w]['n_iter'], len(opt.state[w]['old_dirs']))
opt.state[w]['n_iter'] = 'x'
opt.step(closure)
"""
    lines = []
    with pytest.raises(ProgramError, match="'n_iter' must be an int, not str"):
        compile_program(source).run(stdout=lines.append, script=True)
    # a quadratic: the first iteration's step is exact, so each step stops early
    assert lines[0].split()[0] != "0" and lines[1].split()[1] in ("0", "1")


@pytest.mark.parametrize("state, message", [
    ("{'optimizer': 1}", "unexpected key 'optimizer'"),
    ("{'__dict__': {}}", "unexpected key '__dict__'"),
    ("{'last_epoch': 'a'}", "'last_epoch' must be int, not str"),
    ("{'base_lrs': [print]}", "'base_lrs' must be float"),
    ("{'milestones': {'a': 1}}", None),
    ("[1, 2]", "state_dict must be a dict, not list"),
])
def test_scheduler_load_state_dict_takes_back_only_its_own_kinds(state, message):
    source = f"""
import torch
opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
s = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 2])
s.load_state_dict({state})
print(s.state_dict()['milestones'])
"""
    if message is None:  # a str key is a milestone no epoch reaches, as in PyTorch
        assert run(source) == ["Counter({'a': 1})"]
        return
    with pytest.raises(ProgramError, match=message):
        run(source)


def test_scheduler_step_epoch_takes_numbers_only():
    """step(epoch) goes to the epoch as PyTorch does (tests/cli/warnings/scheduler_epoch.py);
    CosineAnnealingWarmRestarts takes a fraction; an epoch that is no number is refused."""
    source = """
import torch
opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
s.step(2.5)
print(s.T_cur, s.last_epoch)
torch.optim.lr_scheduler.StepLR(opt, 2).step('3')
"""
    lines = []
    with pytest.raises(ProgramError, match="epoch must be a number, not str"):
        compile_program(source).run(stdout=lines.append, script=True)
    assert lines == ["0.5 2"]


@pytest.mark.parametrize("edit, message", [
    ("opt.param_groups[0]['max_iter'] = 'a'", "'max_iter' must be a number, not str"),
    ("opt.param_groups[0]['line_search_fn'] = 5", "only 'strong_wolfe' is supported"),
    ("opt.param_groups[0]['history_size'] = 0", "history_size must be at least 1"),
    ("opt.param_groups.append({'params': []})", "Expected exactly one param_group, but got 2"),
    ("opt.step(closure)\nopt.state[w]['func_evals'] = [1]", "'func_evals' must be an int, not list"),
    ("opt.param_groups[0]['max_iter'] = 10 ** 9\nopt.param_groups[0]['max_eval'] = 10 ** 9\n"
     "opt.param_groups[0]['tolerance_grad'] = -1.0\nopt.param_groups[0]['tolerance_change'] = -1.0",
     "the program ran more than"),
])
def test_lbfgs_reads_its_group_checked(edit, message):
    source = TRAIN.format(make="LBFGS([w])") + edit + "\nopt.step(closure)\n"
    with pytest.raises(ProgramError, match=message):
        run(source)
