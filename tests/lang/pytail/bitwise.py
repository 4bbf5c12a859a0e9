import torch
print(3 & 1, 5 | 2, 6 ^ 3, ~5, 1 << 4, 256 >> 2, True & False, True | False, 1 | 2 ^ 3 & 4)
a = 6
a &= 3
a |= 8
print(a)
x = torch.tensor([-1.0, 0.5, 2.0, 3.0])
m = (x > 0) & (x < 2.5)
print(m, (x > 0) | (x < -0.5), (x > 0) ^ (x > 1), ~m, x[~m])
i = torch.tensor([1, 2, 3])
print(i & 1, i | 4, i ^ i, ~i, 1 & i, torch.bitwise_and(i, torch.tensor([3, 3, 3])), (x > 0) & torch.tensor([1, 0, 1, 1]))
try:
    x & x
except RuntimeError as e:
    print(e)
m &= torch.tensor([True, True, False, True])
print(m)
