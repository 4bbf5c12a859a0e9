import torch

class SGD:
    """d2l's minibatch SGD."""
    count = 0

    def __init__(self, params, lr):
        self.params = params
        self.lr = lr
        SGD.count += 1

    def step(self):
        for p in self.params:
            p.data -= self.lr * p.grad

    @property
    def n(self):
        return len(self.params)

    @staticmethod
    def make(lr):
        return SGD([], lr)

    @classmethod
    def named(cls, lr):
        return cls([], lr)

class Momentum(SGD):
    def __init__(self, params, lr, beta=0.9):
        super().__init__(params, lr)
        self.beta = beta

    def __len__(self):
        return 3

    def __getitem__(self, i):
        if i >= 3:
            raise IndexError('out')
        return i * 10

    def __repr__(self):
        return 'Momentum(lr={})'.format(self.lr)

w = torch.tensor([1.0, 2.0], requires_grad=True)
(w * w).sum().backward()
opt = SGD([w], 0.1)
opt.step()
print(w, opt.n, SGD.count)
m = Momentum([w], 0.5)
print(len(m), m[1], list(m), m, isinstance(m, SGD), SGD.make(0.2).lr, Momentum.named(0.3).lr, SGD.count)
print(type(m) == Momentum, hasattr(m, 'beta'))
print(type(m) == Momentum, hasattr(m, 'beta'), hasattr(m, 'gamma'), getattr(m, 'lr'), getattr(m, 'zz', 5))
setattr(m, 'gamma', 2)
print(m.gamma, type(1) == int, type(w) == torch.Tensor, type(torch.nn.Linear(2, 2)) == torch.nn.Linear)
it = iter([1, 2, 3])
print(next(it), next(it), list(it), next(it, 'done'), list(map(lambda a: a * 2, [1, 2])), list(filter(None, [0, 1, 2])))
print([1, 2, 3, 4][slice(1, 3)], callable(m), callable(opt.step), callable(3))
