"""Views and in-place ops through them, as PyTorch does them.

A view shares its base's storage and version counter; an in-place op on a view
rebases the base onto CopySlices and regenerates the live views as
AsStridedBackward0. Gradients are checked against finite differences (first
and second order), node names and errors against PyTorch 2.13's.
"""
import numpy as np
import pytest

import gradcli as torch
from gradcli import autograd
from gradcli.errors import AutogradError
from gradcli._tensor import Tensor, no_grad


def t(data, requires_grad=False):
    return Tensor(data, requires_grad=requires_grad)


VIEWS = {
    "select": lambda x: x[0],
    "slice": lambda x: x[:, 1:],
    "step slice": lambda x: x[::2, ::2],
    "transpose": lambda x: x.t(),
    "permute": lambda x: x.permute(1, 0),
    "reshape": lambda x: x.reshape(-1),
    "view": lambda x: x.view(2, 2, 2)[1],
    "unsqueeze": lambda x: x.unsqueeze(0),
    "flatten then slice": lambda x: x.flatten()[2:5],
    "narrow": lambda x: x.narrow(1, 1, 2),
    "column of transpose": lambda x: x.t()[1],
    "select method": lambda x: x.select(1, 3),
}


@pytest.mark.parametrize("make_view", VIEWS.values(), ids=VIEWS.keys())
def test_a_view_shares_storage_and_version_with_its_base(make_view):
    x = t(np.arange(8.0).reshape(2, 4))
    v = make_view(x)
    before = x._data.copy()
    v.add_(10)
    assert x._version == v._version == 1
    changed = x._data != before
    assert changed.sum() == v.numel()
    assert np.allclose(x._data[changed], before[changed] + 10)


@pytest.mark.parametrize("make_view", VIEWS.values(), ids=VIEWS.keys())
def test_in_place_on_a_view_gradients_match_finite_differences(make_view):
    def f(a, w):
        x = a * a
        v = make_view(x)
        v.mul_(w.sum())          # in place on the view, with a second input
        return (x * x).sum() + v.sin().sum()

    a = t(np.random.default_rng(0).uniform(-1, 1, (2, 4)), True)
    w = t([0.7, -0.4], True)
    assert autograd.gradcheck(f, (a, w))
    assert autograd.gradgradcheck(f, (a, w))


def test_the_base_is_rebased_onto_copy_slices_and_the_view_onto_as_strided():
    a = t([1.0, 2.0, 3.0], True)
    x = a * 1
    v = x[0]
    v.mul_(2)
    assert x.grad_fn.name() == "CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert v.grad_fn.next_functions[0][0] is x.grad_fn
    assert x.grad_fn.next_functions[0][0].name() == "MulBackward0"
    x.sum().backward()
    assert a.grad.tolist() == [2.0, 1.0, 1.0]          # PyTorch's answer


def test_other_live_views_are_regenerated_on_the_new_base():
    a = t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], True)
    x = a * 2
    row, column, whole_t = x[0], x[:, 1], x.t()
    row.mul_(t([0.5, -1.0, 2.0], True))
    for view in (row, column, whole_t):
        assert view.grad_fn.name() == "AsStridedBackward0"
        assert view.grad_fn.next_functions[0][0] is x.grad_fn
    (column * 3).sum().backward()
    # column 1 holds 2a (row 1) and -2a (row 0): d/da of 3 * sum(column)
    assert a.grad.tolist() == [[0.0, -6.0, 0.0], [0.0, 6.0, 0.0]]


def test_in_place_on_the_base_regenerates_its_views():
    a = t([1.0, 2.0], True)
    x = a * 1
    v = x[1]
    x.mul_(3)
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.backward()
    assert a.grad.tolist() == [0.0, 3.0]


def test_a_constant_base_becomes_part_of_the_graph():
    b = t([1.0, 2.0, 3.0], True)
    z = torch.zeros(2, 3)
    z[1].add_(b * b)
    z[0, 1:].copy_(b[:2])
    assert z.requires_grad and not z.is_leaf and z.grad_fn.name() == "CopySlices"
    assert z.tolist() == [[0.0, 1.0, 2.0], [1.0, 4.0, 9.0]]
    z.sum().backward()
    assert b.grad.tolist() == [3.0, 5.0, 6.0]


def test_assignment_through_a_view_of_a_view():
    c = t([1.0, 2.0, 3.0, 4.0], True)
    m = c.clone()
    mv = m.view(2, 2)
    mv[0, 0] = 10.0
    mv.t().mul_(2)
    assert m.tolist() == [20.0, 4.0, 6.0, 8.0]
    (m * torch.arange(4.0)).sum().backward()
    assert c.grad.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_a_saved_value_changed_through_a_view_is_detected():
    leaf = t([1.0, 2.0], True)
    q = leaf.exp()
    first = q[0]
    q.mul_(3)             # ExpBackward0 saved q
    with pytest.raises(AutogradError) as err:
        first.backward()
    assert "which is output 0 of Exp, is at version 1; expected version 0" in str(err.value)


def test_in_place_on_a_view_of_a_leaf_is_refused():
    a = t([1.0, 2.0], True)
    with pytest.raises(AutogradError, match="^a view of a leaf Variable that requires grad is being used"):
        a[0:1].mul_(2)
    with no_grad():
        a[0:1].mul_(2)    # allowed, as in PyTorch (an optimizer step)
    assert a.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("split, message", [
    (lambda x: x.unbind(0)[1], "Output 1 of Unbind is a view"),
    (lambda x: x.split(1)[1], "Output 1 of Split is a view"),
    (lambda x: x.chunk(2)[0], "Output 0 of Split is a view"),
    (lambda x: x.split([1, 1])[1], "Output 1 of SplitWithSizes is a view"),
])
def test_outputs_of_a_multi_view_op_are_not_modified_in_place(split, message):
    x = t([1.0, 2.0], True) * 1
    with pytest.raises(AutogradError, match=f"^{message} and is being modified inplace. This view is the "
                                            "output of a function that returns multiple views."):
        split(x).add_(1)


def test_multi_view_outputs_of_a_constant_may_be_modified():
    x = t([1.0, 2.0])
    x.unbind(0)[1].add_(1)
    assert x.tolist() == [1.0, 3.0]
    with pytest.raises(AutogradError, match="^A view was created in no_grad mode .* returns multiple views"):
        x.unbind(0)[1].add_(t(1.0, True))


def test_a_view_made_under_no_grad_is_not_modified_with_grad_enabled():
    x = t([1.0, 2.0], True) * 1
    with no_grad():
        v = x[0]
    with pytest.raises(AutogradError, match="^A view was created in no_grad mode and is being modified "
                                            "inplace with grad mode enabled. Given that"):
        v.add_(1)
    with no_grad():
        v.add_(1)
    assert x.tolist() == [2.0, 2.0]


def test_copies_are_not_views():
    x = t([[1.0, 2.0], [3.0, 4.0]])
    for copy in (x.clone(), x * 1, x[[0, 1]], x.abs()):
        copy.add_(10)
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]] and x._version == 0


def test_dead_views_do_not_stay_registered():
    x = t([1.0, 2.0, 3.0]) * 1
    for _ in range(100):
        x[0]
    assert x._views is None or len(x._views) <= 1


def test_views_of_a_leaf_that_requires_grad_are_not_registered():
    """A parameter is never rebased, so its views (W.t() each step) are not tracked."""
    w = t([[1.0, 2.0]], True)
    keep = [w.t() for _ in range(10)]
    assert w._views is None and all(v._base is w for v in keep)


def test_retain_grad_follows_the_tensor_through_an_in_place_op():
    a = t([1.0, 2.0], True)
    y = a * 2
    y.retain_grad()
    y.mul_(3)
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]            # the gradient of the new y, as in PyTorch
    assert a.grad.tolist() == [6.0, 6.0]


def test_retain_grad_on_a_rebased_base_and_an_unused_view():
    a = t([1.0, 2.0], True)
    x = a * 1
    v = x[0]
    v.retain_grad()
    x.retain_grad()
    v.mul_(5)
    (x * x).sum().backward()
    assert x.grad.tolist() == [10.0, 4.0]
    assert v.grad is None                            # v's new node is not on the path from x * x


def test_a_hook_registered_before_an_in_place_op_sees_the_old_value_gradient():
    a = t([1.0, 2.0], True)
    y = a * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.mul_(3)
    y.sum().backward()
    assert seen == [[3.0, 3.0]]


def test_views_of_a_zero_dim_base():
    a = t(2.0, True)
    x = a * 1
    v = x.unsqueeze(0)[None]
    v.mul_(a)
    x.unsqueeze(0)[0] = x * 3      # assignment through a view of a 0-d base
    x.backward()
    assert x.item() == 12.0 and a.grad.item() == 12.0   # x = 3 a^2


def test_in_place_through_a_view_of_a_base_that_is_not_c_contiguous():
    """clone() of a transpose keeps numpy's Fortran order: the region is found by address."""
    def f(a):
        m = a.t().clone()
        assert not m._data.flags.c_contiguous
        m[1:].mul_(a[0, :2].sum())
        m[:, 0].tanh_()
        return m * m

    a = t(np.random.default_rng(1).uniform(-1, 1, (2, 3)), True)
    assert autograd.gradcheck(f, (a,))
    assert autograd.gradgradcheck(f, (a,))


@pytest.mark.parametrize("expand", [lambda x: x.expand(2, 2), lambda x: x.expand_as(x),
                                    lambda x: x[0].expand(1, 2)])
def test_an_expand_that_repeats_nothing_can_be_modified_in_place(expand):
    a = t([[1.0, 2.0], [3.0, 4.0]], True)
    x = a * 1
    view = expand(x)
    view.mul_(10)
    assert x._version == 1 and x.grad_fn.name() == "CopySlices"
    x.sum().backward()
    changed = (a.grad._data == 10).sum()
    assert changed == view.numel()            # the region the view covers, as in PyTorch


def test_an_expand_that_repeats_elements_refuses_in_place():
    x = t([[1.0], [2.0]], True) * 1
    with pytest.raises(Exception, match="more than one element of the written-to tensor refers to a single"):
        x.expand(2, 3).mul_(10)
