# torch.optim.LBFGS (issue 27): the Rosenbrock function and a least-squares fit, with the
# fixed step (line_search_fn=None) and the strong-Wolfe line search; the closure's calls
# counted, the loss step() returns, the state's counters, repr and argument checks.
import torch

torch.set_default_dtype(torch.float64)


def rosenbrock(xy):
    return (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2


for search in [None, 'strong_wolfe']:
    xy = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = torch.optim.LBFGS([xy], lr=1, max_iter=20, history_size=10, line_search_fn=search)
    calls = [0]

    def closure():
        calls[0] += 1
        opt.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        return loss

    for i in range(4):
        loss = opt.step(closure)
        print(search, i, f"{loss.item():.8f}", [round(v, 8) for v in xy.tolist()], calls[0])
    state = opt.state[xy]
    print(state['func_evals'], state['n_iter'], len(state['old_dirs']), round(float(state['t']), 8))

X = torch.tensor([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.3], [2.0, 0.7], [0.1, 0.2]])
Y = torch.tensor([[1.0], [-0.5], [0.2], [1.7], [0.0]])
model = torch.nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.3, -0.2]]))
    model.bias.fill_(0.1)
opt = torch.optim.LBFGS(model.parameters(), line_search_fn='strong_wolfe')


def fit():
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(X), Y)
    loss.backward()
    return loss


for i in range(3):
    print(f"{opt.step(fit).item():.10f}")
print(model.weight.data, model.bias.data)
print(opt)
opt = torch.optim.LBFGS([torch.zeros(3, requires_grad=True)], lr=0.5, max_iter=7)
print(opt.param_groups[0]['max_eval'], opt.param_groups[0]['tolerance_grad'])
try:
    torch.optim.LBFGS([torch.zeros(1, requires_grad=True)], lr=-1)
except ValueError as e:
    print("ValueError:", e)
try:
    a, b = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    torch.optim.LBFGS([{'params': [a]}, {'params': [b], 'lr': 0.1}])
except ValueError as e:
    print("ValueError:", e)
w = torch.ones(2, requires_grad=True)
opt = torch.optim.LBFGS([w], line_search_fn='backtracking')


def quad():
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    return loss


try:
    opt.step(quad)
except RuntimeError as e:
    print("RuntimeError:", e)
