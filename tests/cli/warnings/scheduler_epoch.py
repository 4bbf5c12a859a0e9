# scheduler.step(epoch): deprecated in PyTorch, which warns and jumps to the epoch by the
# closed form where the scheduler has one (the chainable form otherwise).
import torch
from torch.optim import SGD
from torch.optim import lr_scheduler as L

w = torch.zeros(1, requires_grad=True)
makers = [("StepLR", lambda o: L.StepLR(o, step_size=2, gamma=0.5)),
          ("ExponentialLR", lambda o: L.ExponentialLR(o, gamma=0.9)),
          ("CosineAnnealingLR", lambda o: L.CosineAnnealingLR(o, T_max=10, eta_min=0.1)),
          ("MultiStepLR", lambda o: L.MultiStepLR(o, milestones=[2, 4], gamma=0.1)),
          ("ConstantLR", lambda o: L.ConstantLR(o, factor=0.5, total_iters=3)),
          ("LinearLR", lambda o: L.LinearLR(o, start_factor=0.25, total_iters=4)),
          ("LambdaLR", lambda o: L.LambdaLR(o, lr_lambda=lambda e: 1.0 / (e + 1)))]
for name, make in makers:
    opt = SGD([w], lr=1.0)
    s = make(opt)
    lrs = []
    for epoch in [1, 5, 3, 3, 7]:
        opt.step()
        s.step(epoch)
        lrs.append(round(s.get_last_lr()[0], 10))
    s.step()
    print(name, lrs, s.last_epoch, round(s.get_last_lr()[0], 10))
opt = SGD([w], lr=1.0)
s = L.ReduceLROnPlateau(opt, patience=0, factor=0.5)
for epoch, metric in [(1, 1.0), (5, 2.0), (6, 3.0)]:
    opt.step()
    s.step(metric, epoch)
    print("plateau", s.last_epoch, opt.param_groups[0]["lr"])
