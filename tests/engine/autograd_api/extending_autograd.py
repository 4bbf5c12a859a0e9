# PyTorch's "Extending torch.autograd" note: its Functions, as it writes them
import torch
from torch.autograd import Function, gradcheck


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


linear = LinearFunction.apply


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


input = (torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], dtype=torch.double, requires_grad=True),
         torch.tensor([[1.0, -1.0, 0.5], [0.25, 2.0, -0.5]], dtype=torch.double, requires_grad=True),
         torch.tensor([0.1, -0.2], dtype=torch.double, requires_grad=True))
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)
input = (torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True),
         torch.tensor([[1.0, -1.0, 0.5], [0.25, 2.0, -0.5]], requires_grad=True),
         torch.tensor([0.1, -0.2], requires_grad=True))
out = linear(*input)
print(out)
out.sum().backward()
print(input[0].grad, input[1].grad, input[2].grad)

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = MulConstant.apply(x, 5.0)
y.sum().backward()
print(x.grad)

x = torch.tensor(2.0, requires_grad=True)
g, = torch.autograd.grad(my_cube(x), x, create_graph=True)
gg, = torch.autograd.grad(g, x, create_graph=True)
ggg, = torch.autograd.grad(gg, x)
print(g, gg, ggg)
print(torch.autograd.gradgradcheck(my_cube, (torch.tensor([0.5, 1.5], dtype=torch.double, requires_grad=True),)))
