# Least squares: fit y = a*x + b by gradient descent, then ask for the gradient at the fit.
# Try: gradcli run samples/least_squares.py
#      gradcli grad samples/least_squares.py --wrt a,b --of loss
import torch

x = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
y = torch.tensor([1.1, 2.9, 5.2, 7.1, 8.8])
a = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)

for step in range(200):
    loss = ((a * x + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        a -= 0.05 * a.grad
        b -= 0.05 * b.grad
    a.grad = None
    b.grad = None

print(f"a = {a:.4f}, b = {b:.4f}, loss = {loss:.6f}")
loss = ((a * x + b - y) ** 2).mean()
