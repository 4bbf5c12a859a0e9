import torch
from torch.func import jacrev, jacfwd, vjp, jvp, hessian, vmap

# The torch.func tutorial "Jacobians, Hessians, hvp, vhp, and more" (fixed inputs instead of torch.randn)
D = 4
weight = torch.linspace(-1.0, 1.0, D * D).reshape(D, D)
bias = torch.linspace(0.5, -0.5, D)
x = torch.linspace(-0.8, 0.9, D)

def predict(weight, bias, x):
    return torch.nn.functional.linear(x, weight, bias).tanh()

jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print(jacobian.shape)
print(jacobian[0])

# jacrev and jacfwd agree
jacobian_fwd = jacfwd(predict, argnums=2)(weight, bias, x)
print(torch.allclose(jacobian, jacobian_fwd))

# Jacobians with respect to several arguments
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias.shape)
print(ft_jac_bias)

# vmap over a batch of inputs: batched Jacobians
batch = torch.linspace(-1.0, 1.0, 3 * D).reshape(3, D)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, batch)
print(batch_jacobian0.shape)
print(torch.allclose(batch_jacobian0[1], jacrev(predict, argnums=2)(weight, bias, batch[1])))

# Hessians: hessian is jacfwd(jacrev(f))
hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdrev = jacfwd(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
print(hess_api.shape)
print(torch.allclose(hess_api, hess_fwdrev), torch.allclose(hess_api, hess_revrev, atol=1e-6))
print(hess_api[1])

# Hessian-vector products: forward over reverse
def hvp(f, primals, tangents):
    return jvp(lambda x: torch.func.grad(f)(x), primals, tangents)[1]

def f(x):
    return x.sin().sum()

v = torch.linspace(0.1, 0.4, D)
print(hvp(f, (x,), (v,)))
print(torch.allclose(hvp(f, (x,), (v,)), -x.sin() * v))

# jvp and vjp
_, vjp_fn = vjp(torch.sin, x)
print(vjp_fn(v))
print(jvp(torch.sin, (x,), (v,)))
