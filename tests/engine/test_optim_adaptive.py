"""Adam, AdamW, RMSprop, Adagrad, SGD's options and the lr schedulers: single steps by hand,
parameter groups, state, and the same from a program."""
import math

import pytest

import gradcli as g
from gradcli import optim
from gradcli.errors import ProgramValueError
from gradcli.lang import compile_program
from gradcli.optim.lr_scheduler import CosineAnnealingLR, ExponentialLR, LambdaLR, StepLR


def steps(make, n, grad=2.0, start=1.0):
    """Run `n` steps with d loss / d p = `grad` (loss = grad * p); the parameter after each."""
    p = g.tensor([start], requires_grad=True)
    opt = make([p])
    out = []
    for _ in range(n):
        opt.zero_grad()
        (p * grad).sum().backward()
        opt.step()
        out.append(p.item())
    return out, opt, p


def test_adam_two_steps_by_hand():
    # step 1: m = 0.1 * 2, v = 0.001 * 4; m / (1 - 0.9) = 2, v / (1 - 0.999) = 4: p -= 0.1 * 2 / (2 + eps)
    # step 2: m = 0.38, v = 0.007996; bias-corrected 2 and 4 again
    (first, second), opt, p = steps(lambda ps: optim.Adam(ps, lr=0.1), 2)
    assert first == pytest.approx(1 - 0.1 * 2 / (2 + 1e-8), rel=1e-14)
    assert second == pytest.approx(first - 0.1 * 2 / (2 + 1e-8), rel=1e-12)
    state = opt.state[p]
    assert state["step"].item() == 2.0
    assert state["exp_avg"].tolist() == pytest.approx([0.38])
    assert state["exp_avg_sq"].tolist() == pytest.approx([0.007996])


def test_adam_weight_decay_is_l2_and_adamw_decouples_it():
    # Adam: grad 2 + 0.5 * 1; normalised, the step is still lr
    (adam,), _, _ = steps(lambda ps: optim.Adam(ps, lr=0.1, weight_decay=0.5), 1)
    assert adam == pytest.approx(0.9, rel=1e-7)
    # AdamW: p * (1 - 0.1 * 0.5) first, then the step
    (adamw,), _, _ = steps(lambda ps: optim.AdamW(ps, lr=0.1, weight_decay=0.5), 1)
    assert adamw == pytest.approx(0.95 - 0.1, rel=1e-7)
    # maximize climbs
    (up,), _, _ = steps(lambda ps: optim.Adam(ps, lr=0.1, maximize=True), 1)
    assert up == pytest.approx(1.1, rel=1e-7)


def test_amsgrad_keeps_the_largest_second_moment():
    # gradients 2 then 0: v = 0.004 then 0.003996; max keeps 0.004
    p = g.tensor([1.0], requires_grad=True)
    opt = optim.Adam([p], lr=0.1, amsgrad=True)
    for grad in (2.0, 0.0):
        opt.zero_grad()
        (p * grad).sum().backward()
        opt.step()
    assert opt.state[p]["max_exp_avg_sq"].tolist() == pytest.approx([0.004])
    m_hat = (0.9 * 0.2) / (1 - 0.81)
    expected = 1 - 0.1 * 2 / (2 + 1e-8) - (0.1 * m_hat) / (math.sqrt(0.004) / math.sqrt(1 - 0.999 ** 2) + 1e-8)
    assert p.item() == pytest.approx(expected, rel=1e-12)


def test_rmsprop_plain_centered_and_with_momentum():
    (plain,), _, _ = steps(lambda ps: optim.RMSprop(ps, lr=0.01), 1)
    assert plain == pytest.approx(1 - 0.01 * 2 / (math.sqrt(0.04) + 1e-8), rel=1e-14)
    (centered,), _, _ = steps(lambda ps: optim.RMSprop(ps, lr=0.01, centered=True), 1)
    assert centered == pytest.approx(1 - 0.01 * 2 / (math.sqrt(0.04 - 0.02 ** 2) + 1e-8), rel=1e-14)
    (a, b), _, _ = steps(lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5), 2)
    buf = 2 / (0.2 + 1e-8)
    assert a == pytest.approx(1 - 0.01 * buf, rel=1e-14)
    buf = 0.5 * buf + 2 / (math.sqrt(0.99 * 0.04 + 0.04) + 1e-8)
    assert b == pytest.approx(a - 0.01 * buf, rel=1e-14)


def test_adagrad_with_lr_decay_and_initial_accumulator():
    (a, b), opt, p = steps(lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.5), 2)
    assert a == pytest.approx(1 - 0.1 * 2 / (2 + 1e-10), rel=1e-14)
    assert b == pytest.approx(a - 0.1 / 1.5 * 2 / (math.sqrt(8) + 1e-10), rel=1e-14)
    assert opt.state[p]["sum"].tolist() == [8.0]
    (c,), _, _ = steps(lambda ps: optim.Adagrad(ps, lr=0.1, initial_accumulator_value=5.0), 1)
    assert c == pytest.approx(1 - 0.1 * 2 / 3, rel=1e-9)


def test_parameter_groups_have_their_own_lr_and_lr_is_writable():
    a = g.tensor([1.0], requires_grad=True)
    b = g.tensor([1.0], requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    (a * 2 + b * 2).sum().backward()
    opt.step()
    assert (a.item(), b.item()) == (pytest.approx(0.8), pytest.approx(0.0))
    opt.param_groups[0]["lr"] = 1.0
    opt.step()
    assert a.item() == pytest.approx(-1.2)
    opt.zero_grad(set_to_none=True)
    assert a.grad is None


@pytest.mark.parametrize("make, lrs", [
    (lambda o: StepLR(o, step_size=2, gamma=0.5), [1.0, 1.0, 0.5, 0.5, 0.25]),
    (lambda o: ExponentialLR(o, gamma=0.5), [1.0, 0.5, 0.25, 0.125, 0.0625]),
    # cos form: (1 + cos(pi e / 2)) / (1 + cos(pi (e - 1) / 2)) * lr; at e = 3 the restart branch
    (lambda o: CosineAnnealingLR(o, T_max=2), [1.0, 0.5, 0.0, 0.5, 1.0]),
    (lambda o: LambdaLR(o, lambda e: 1 / (e + 1)), [1.0, 0.5, 1 / 3, 0.25, 0.2]),
])
def test_schedulers_set_each_epochs_lr(make, lrs):
    opt = optim.SGD([g.tensor([1.0], requires_grad=True)], lr=1.0)
    sched = make(opt)
    seen = [opt.param_groups[0]["lr"]]
    for _ in range(4):
        opt.step()
        sched.step()
        seen.append(sched.get_last_lr()[0])
    assert seen == pytest.approx(lrs, abs=1e-15)


def test_errors_are_pytorchs():
    p = [g.tensor([1.0], requires_grad=True)]
    with pytest.raises(ProgramValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam(p, betas=(0.9, 1.0))
    with pytest.raises(ProgramValueError, match="Invalid alpha value: -1.0"):
        optim.RMSprop(p, alpha=-1)
    with pytest.raises(ProgramValueError, match="Invalid lr_decay value: -1.0"):
        optim.Adagrad(p, lr_decay=-1)


def test_a_program_trains_with_adam_and_a_lambda_schedule():
    source = """
import torch
from torch.optim.lr_scheduler import LambdaLR
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.Adam([w], lr=0.1)
sched = LambdaLR(opt, lr_lambda=lambda e: 0.5 ** e)
loss_fn = torch.nn.SmoothL1Loss(beta=0.5)
for i in range(2):
    opt.zero_grad()
    loss = loss_fn(w, torch.zeros(2))
    loss.backward()
    opt.step()
    sched.step()
    print(round(loss.item(), 6), opt.param_groups[0]['lr'])
opt.param_groups[0]['lr'] = 0.01
print(opt.param_groups[0]['lr'], opt.state[w]['step'].item())
"""
    lines = []
    compile_program(source).run(stdout=lines.append, script=True)
    # loss: mean(|w| - beta / 2); Adam's first step moves each weight by lr toward 0
    assert lines == ["1.25 0.05", "1.15 0.025", "0.01 2.0"]
