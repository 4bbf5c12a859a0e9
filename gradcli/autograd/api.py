"""The names of torch.autograd's wider API as the language exposes them, by namespace.

`gradcli.lang.builtins` merges these tables into `torch`, `torch.autograd`,
`torch.autograd.functional`, `torch.autograd.graph`, `torch.autograd.function`
and `torch.func`: one place lists what issue 13 added. The tables of torch.func,
torch.autograd.functional and torch.autograd.graph are functions, so that their modules
(vmap, jacrev, jvp, multi-grad hooks...) are imported when a program first reads one of
those namespaces, not at every start.
"""
from __future__ import annotations

from . import anomaly, forward_ad
from ..graph import saved_hooks
from .function import Function, once_differentiable


def functional_members() -> dict:
    """torch.autograd.functional's products (beside jacobian and hessian)."""
    from . import products

    return {"vjp": products.vjp, "jvp": products.jvp, "vhp": products.vhp, "hvp": products.hvp}


def graph_members() -> dict:
    """torch.autograd.graph."""
    from . import multi_grad_hook
    from ..graph.nodes import Node

    return {
        "Node": Node,
        "saved_tensors_hooks": saved_hooks.saved_tensors_hooks,
        "save_on_cpu": saved_hooks.save_on_cpu,
        "disable_saved_tensors_hooks": saved_hooks.disable_saved_tensors_hooks,
        "register_multi_grad_hook": multi_grad_hook.register_multi_grad_hook,
    }


FUNCTION = {"Function": Function, "once_differentiable": once_differentiable}


def func_members() -> dict:
    """torch.func."""
    from . import func, func_forward, functional_call, vmap

    return {
        "grad": func.grad, "grad_and_value": func.grad_and_value, "vjp": func.vjp, "jacrev": func.jacrev,
        "hessian": func_forward.hessian, "jacfwd": func_forward.jacfwd, "jvp": func_forward.jvp,
        "linearize": func_forward.linearize, "vmap": vmap.vmap,
        "functional_call": functional_call.functional_call,
        "stack_module_state": functional_call.stack_module_state,
    }


FORWARD_AD = forward_ad.NAMESPACE   # torch.autograd.forward_ad

AUTOGRAD = {
    "detect_anomaly": anomaly.detect_anomaly,
    "set_detect_anomaly": anomaly.set_detect_anomaly,
}

TORCH = {"is_anomaly_enabled": anomaly.is_anomaly_enabled}
