# torch.optim.lr_scheduler's MultiStepLR, ConstantLR, LinearLR, SequentialLR, OneCycleLR,
# ReduceLROnPlateau and CosineAnnealingWarmRestarts (issue 27): the lr each gives epoch by
# epoch (get_last_lr and the group's lr), their state_dict, a load_state_dict round trip and
# the argument checks' error texts.
import torch
from torch.optim import lr_scheduler as L


def make_opt(kind='sgd'):
    w = torch.nn.Parameter(torch.zeros(2))
    b = torch.nn.Parameter(torch.zeros(1))
    groups = [{'params': [w]}, {'params': [b], 'lr': 0.05}]
    if kind == 'adam':
        return torch.optim.Adam(groups, lr=0.1)
    return torch.optim.SGD(groups, lr=0.1, momentum=0.9)


def trace(name, opt, sched, epochs=8):
    lrs = []
    for _ in range(epochs):
        opt.step()
        sched.step()
        lrs.append([round(v, 10) for v in sched.get_last_lr()])
    print(name, lrs)
    print(' ', round(opt.param_groups[0]['lr'], 10), sched.last_epoch)


opt = make_opt()
s = L.MultiStepLR(opt, milestones=[2, 5, 5], gamma=0.5)
print(s.get_last_lr())
trace('MultiStepLR', opt, s)
print(s.state_dict())
opt = make_opt()
trace('ConstantLR', opt, L.ConstantLR(opt, factor=0.5, total_iters=3))
opt = make_opt()
s = L.LinearLR(opt, start_factor=0.25, end_factor=0.75, total_iters=4)
print(s.get_last_lr())
trace('LinearLR', opt, s)
print(s.state_dict())
opt = make_opt()
s = L.SequentialLR(opt, [L.LinearLR(opt, start_factor=0.1, total_iters=3),
                         L.StepLR(opt, step_size=2, gamma=0.5),
                         L.ExponentialLR(opt, gamma=0.9)], milestones=[3, 6])
print(s.get_last_lr())
trace('SequentialLR', opt, s, epochs=10)
print(s.state_dict()['_milestones'], s.state_dict()['last_epoch'], len(s.state_dict()['_schedulers']))
opt = make_opt()
s = L.SequentialLR(opt, [L.ConstantLR(opt, factor=0.2, total_iters=2),
                         L.CosineAnnealingLR(opt, T_max=4, eta_min=0.001)], milestones=[2])
trace('SequentialLR cosine', opt, s)

opt = make_opt()
s = L.OneCycleLR(opt, max_lr=1.0, total_steps=10)
print(s.get_last_lr(), opt.param_groups[0]['momentum'])
lrs, moms = [], []
for _ in range(9):
    opt.step()
    s.step()
    lrs.append(round(s.get_last_lr()[0], 10))
    moms.append(round(opt.param_groups[0]['momentum'], 10))
print('OneCycleLR', lrs)
print('momentum', moms)
print(s.state_dict())
try:
    s.step()
    s.step()
except ValueError as e:
    print("ValueError:", e)
opt = make_opt('adam')
s = L.OneCycleLR(opt, max_lr=[0.5, 0.2], epochs=2, steps_per_epoch=4, pct_start=0.25,
                 anneal_strategy='linear', three_phase=True)
lrs = []
for _ in range(7):
    opt.step()
    s.step()
    lrs.append([round(v, 10) for v in s.get_last_lr()])
print('OneCycleLR linear', lrs, opt.param_groups[1]['betas'])
print(sorted(opt.param_groups[0].keys()))

opt = make_opt()
s = L.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1, min_lr=[0.02, 0.0])
for loss in [1.0, 0.9, 0.95, 0.91, 0.92, 0.93, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1]:
    s.step(loss)
    print(round(loss, 2), s.get_last_lr(), s.num_bad_epochs, s.best, s.in_cooldown)
print(s.state_dict())
opt = make_opt()
s = L.ReduceLROnPlateau(opt, mode='max', threshold=0.1, threshold_mode='abs', patience=0)
for acc in [0.5, 0.55, 0.7, 0.65]:
    s.step(torch.tensor(acc))
    print(acc, [round(v, 10) for v in s.get_last_lr()])

opt = make_opt()
s = L.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)
trace('CosineAnnealingWarmRestarts', opt, s, epochs=10)
print(s.state_dict())
opt = make_opt()
s = L.CosineAnnealingWarmRestarts(opt, T_0=4)
lrs = []
for epoch in range(2):
    for i in range(4):
        s.step(epoch + i / 4)
        lrs.append(round(s.get_last_lr()[0], 10))
print('fractional epochs', lrs, s.T_cur, s.last_epoch)

opt = make_opt()
s = L.MultiStepLR(opt, milestones=[1, 3])
for _ in range(2):
    opt.step()
    s.step()
saved = s.state_dict()
opt2 = make_opt()
s2 = L.MultiStepLR(opt2, milestones=[1, 3])
s2.load_state_dict(saved)
print(s2.last_epoch, s2.get_last_lr(), s2.state_dict() == saved)

p = [torch.nn.Parameter(torch.zeros(1))]
opt = torch.optim.SGD(p, lr=0.1)
for make in [lambda: L.ConstantLR(torch.optim.SGD(p, lr=0.1), factor=1.5),
             lambda: L.LinearLR(torch.optim.SGD(p, lr=0.1), start_factor=0),
             lambda: L.LinearLR(torch.optim.SGD(p, lr=0.1), end_factor=2.0),
             lambda: L.ReduceLROnPlateau(torch.optim.SGD(p, lr=0.1), factor=1.0),
             lambda: L.ReduceLROnPlateau(torch.optim.SGD(p, lr=0.1), mode='avg'),
             lambda: L.ReduceLROnPlateau(torch.optim.SGD(p, lr=0.1), threshold_mode='pct'),
             lambda: L.CosineAnnealingWarmRestarts(torch.optim.SGD(p, lr=0.1), T_0=0),
             lambda: L.CosineAnnealingWarmRestarts(torch.optim.SGD(p, lr=0.1), T_0=2, T_mult=0),
             lambda: L.OneCycleLR(torch.optim.SGD(p, lr=0.1), max_lr=0.1),
             lambda: L.OneCycleLR(torch.optim.SGD(p, lr=0.1), max_lr=0.1, total_steps=0),
             lambda: L.OneCycleLR(torch.optim.SGD(p, lr=0.1), max_lr=0.1, total_steps=5, pct_start=1),
             lambda: L.OneCycleLR(torch.optim.SGD(p, lr=0.1), max_lr=0.1, total_steps=5, anneal_strategy='exp'),
             lambda: L.OneCycleLR(torch.optim.Adagrad(p, lr=0.1), max_lr=0.1, total_steps=5),
             lambda: L.OneCycleLR(torch.optim.SGD(p, lr=0.1), max_lr=[0.1, 0.2], total_steps=5),
             lambda: L.SequentialLR(torch.optim.SGD(p, lr=0.1), [], milestones=[]),
             lambda: L.SequentialLR(opt, [L.ConstantLR(opt)], milestones=[2])]:
    try:
        make()
    except ValueError as e:
        print("ValueError:", e)
