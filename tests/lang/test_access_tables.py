"""The sandbox's frozen tables (`lang/access.py`) against the engine: a Tensor method or an
op exported as a method reaches programs only when it is listed, and every listed name
exists (so the lists cannot go stale)."""
import pytest

from gradcli import ops
from gradcli._tensor import Tensor
from gradcli.errors import ProgramError
from gradcli.lang import access
from gradcli.lang.builtins import make_modules
from gradcli.lang.pymodules import TENSOR_MEMBERS
from gradcli.nn.modules import Linear, Module

# Op methods deliberately kept from programs (none today); a new op's method lands in
# access.TENSOR_METHODS or here, never silently in neither.
WITHHELD_METHODS = frozenset()

LISTED = access.TENSOR_METHODS | access.TENSOR_ATTRIBUTES | access.TENSOR_LANGUAGE_MEMBERS


def _reachable(name: str) -> bool:
    """Whether a program's `x.name` reads something on a tensor."""
    policy = access.policy(make_modules())
    try:
        policy.getattr(Tensor([[1.0, 2.0]]), name, None)  # 2-d: mT
    except ProgramError:
        return False
    return True


def _tensor_names() -> set:
    """Every name a Tensor answers to, its class's and its instances'."""
    return {name for name in dir(Tensor([1.0])) if not name.startswith("__")}


def test_every_op_method_is_listed_or_withheld():
    unlisted = sorted(set(ops.METHODS) - access.TENSOR_METHODS - WITHHELD_METHODS)
    assert not unlisted, (f"ops exported as Tensor methods but not in lang/access.py's "
                          f"TENSOR_METHODS: {unlisted}; list each one there (or withhold it)")


def test_withheld_methods_are_not_reachable():
    assert not WITHHELD_METHODS & LISTED
    assert not [name for name in WITHHELD_METHODS if _reachable(name)]


@pytest.mark.parametrize("source", ["ops.METHODS", "Tensor"])
def test_nothing_reachable_without_being_listed(source):
    names = set(ops.METHODS) if source == "ops.METHODS" else _tensor_names()
    leaked = sorted(name for name in names - LISTED if _reachable(name))
    assert not leaked, f"reachable by programs without being in lang/access.py: {leaked}"


def test_every_listed_name_is_reachable():
    assert not sorted(name for name in LISTED if not _reachable(name))


def test_every_listed_method_exists_on_tensor():
    missing = sorted(name for name in access.TENSOR_METHODS if not callable(getattr(Tensor, name, None)))
    assert not missing, f"access.TENSOR_METHODS lists names Tensor has not: {missing}"


def test_every_listed_attribute_exists_on_tensor():
    x = Tensor([[1.0]], requires_grad=True)  # 2-d: mT
    missing = sorted(name for name in access.TENSOR_ATTRIBUTES | access.SETTABLE_ATTRIBUTES
                     if not hasattr(x, name))
    assert not missing
    assert access.SETTABLE_ATTRIBUTES <= access.TENSOR_ATTRIBUTES


def test_language_members_match_pymodules():
    assert access.TENSOR_LANGUAGE_MEMBERS == frozenset(TENSOR_MEMBERS)


def test_every_module_method_exists():
    layer = Linear(2, 3)
    missing = sorted(name for name in access.MODULE_METHODS
                     if not callable(getattr(Module, name, None)) or not callable(getattr(layer, name)))
    assert not missing


def test_tables_are_frozen():
    for table in (access.TENSOR_METHODS, access.TENSOR_ATTRIBUTES, access.SETTABLE_ATTRIBUTES,
                  access.TENSOR_LANGUAGE_MEMBERS, access.MODULE_METHODS):
        assert isinstance(table, frozenset)
