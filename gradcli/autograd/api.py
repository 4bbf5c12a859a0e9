"""The names of torch.autograd's wider API as the language exposes them, by namespace.

`gradcli.lang.builtins` merges these tables into `torch`, `torch.autograd`,
`torch.autograd.functional`, `torch.autograd.graph`, `torch.autograd.function`
and `torch.func`: one place lists what issue 13 added.
"""
from __future__ import annotations

from . import anomaly, forward_ad, func, func_forward, functional_call, multi_grad_hook, products, vmap
from ..graph import saved_hooks
from .function import Function, once_differentiable
from ..graph.nodes import Node

FUNCTIONAL = {"vjp": products.vjp, "jvp": products.jvp, "vhp": products.vhp, "hvp": products.hvp}

GRAPH = {
    "Node": Node,
    "saved_tensors_hooks": saved_hooks.saved_tensors_hooks,
    "save_on_cpu": saved_hooks.save_on_cpu,
    "disable_saved_tensors_hooks": saved_hooks.disable_saved_tensors_hooks,
    "register_multi_grad_hook": multi_grad_hook.register_multi_grad_hook,
}

FUNCTION = {"Function": Function, "once_differentiable": once_differentiable}

FUNC = {
    "grad": func.grad, "grad_and_value": func.grad_and_value, "vjp": func.vjp, "jacrev": func.jacrev,
    "hessian": func_forward.hessian, "jacfwd": func_forward.jacfwd, "jvp": func_forward.jvp,
    "linearize": func_forward.linearize, "vmap": vmap.vmap,
    "functional_call": functional_call.functional_call, "stack_module_state": functional_call.stack_module_state,
}

FORWARD_AD = forward_ad.NAMESPACE   # torch.autograd.forward_ad

AUTOGRAD = {
    "detect_anomaly": anomaly.detect_anomaly,
    "set_detect_anomaly": anomaly.set_detect_anomaly,
}

TORCH = {"is_anomaly_enabled": anomaly.is_anomaly_enabled}

# Engine objects a program may use in a `with` statement besides the grad-mode switches.
CONTEXT_MANAGERS = (saved_hooks.saved_tensors_hooks, saved_hooks.disable_saved_tensors_hooks,
                    anomaly.detect_anomaly, anomaly.set_detect_anomaly, forward_ad.dual_level)

# Attributes a program may read on a backward node (grad_fn), beyond next_functions and name().
NODE_ATTRIBUTES = frozenset({"register_hook", "register_prehook", "metadata"})
CTX_ATTRIBUTES = frozenset({"mark_dirty"})
FUNCTION_METHODS = frozenset({"setup_context", "vjp", "jvp"})
