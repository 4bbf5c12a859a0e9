# torch.optim's Adadelta, Adamax, NAdam and RAdam (issue 27): their defaults and repr,
# a few steps on a small least-squares problem with each option set, the state each keeps,
# and the argument checks' error texts.
import torch

torch.set_default_dtype(torch.float64)
X = torch.tensor([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.3], [2.0, 0.7]])
Y = torch.tensor([1.0, -0.5, 0.2, 1.7])


def run(make, steps=6):
    w = torch.tensor([0.3, -0.2], requires_grad=True)
    b = torch.tensor(0.1, requires_grad=True)
    opt = make([w, b])
    for _ in range(steps):
        opt.zero_grad()
        loss = ((X @ w + b - Y) ** 2).mean()
        loss.backward()
        opt.step()
    print(str(opt).split()[0], f"{loss.item():.10f}", [round(v, 10) for v in w.tolist()], round(b.item(), 10))
    return opt


for make in [lambda ps: torch.optim.Adadelta(ps),
             lambda ps: torch.optim.Adadelta(ps, lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1),
             lambda ps: torch.optim.Adadelta(ps, maximize=True),
             lambda ps: torch.optim.Adamax(ps),
             lambda ps: torch.optim.Adamax(ps, lr=0.05, betas=(0.8, 0.9), weight_decay=0.2),
             lambda ps: torch.optim.Adamax(ps, lr=0.01, maximize=True),
             lambda ps: torch.optim.NAdam(ps),
             lambda ps: torch.optim.NAdam(ps, lr=0.05, momentum_decay=0.01, weight_decay=0.1),
             lambda ps: torch.optim.NAdam(ps, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
             lambda ps: torch.optim.RAdam(ps),
             lambda ps: torch.optim.RAdam(ps, lr=0.05, betas=(0.5, 0.6), weight_decay=0.1),
             lambda ps: torch.optim.RAdam(ps, lr=0.05, betas=(0.5, 0.6), weight_decay=0.1,
                                          decoupled_weight_decay=True)]:
    run(make)

opt = run(lambda ps: torch.optim.NAdam(ps, lr=0.01), steps=3)
print(opt)
state = opt.state[opt.param_groups[0]['params'][0]]
print(sorted(state.keys()), state['step'], state['mu_product'].dtype)
print(torch.optim.Adadelta([torch.zeros(2, requires_grad=True)]))
print(torch.optim.Adamax([torch.zeros(2, requires_grad=True)]))
print(torch.optim.RAdam([torch.zeros(2, requires_grad=True)]))
opt = run(lambda ps: torch.optim.Adadelta(ps), steps=2)
print(sorted(opt.state[opt.param_groups[0]['params'][1]].keys()))
opt = run(lambda ps: torch.optim.Adamax(ps), steps=2)
print(sorted(opt.state[opt.param_groups[0]['params'][1]].keys()))

p = [torch.zeros(2, requires_grad=True)]
for make in [lambda: torch.optim.Adadelta(p, lr=-1.0), lambda: torch.optim.Adadelta(p, rho=1.5),
             lambda: torch.optim.Adadelta(p, eps=-1e-3), lambda: torch.optim.Adadelta(p, weight_decay=-0.5),
             lambda: torch.optim.Adamax(p, lr=-0.1), lambda: torch.optim.Adamax(p, betas=(1.0, 0.9)),
             lambda: torch.optim.Adamax(p, betas=(0.9, -0.1)), lambda: torch.optim.Adamax(p, eps=-1.0),
             lambda: torch.optim.NAdam(p, momentum_decay=-1.0), lambda: torch.optim.NAdam(p, weight_decay=-2.0),
             lambda: torch.optim.RAdam(p, betas=(0.9, 1.0)), lambda: torch.optim.RAdam(p, lr=-3.0)]:
    try:
        make()
    except ValueError as e:
        print("ValueError:", e)
