"""The binary operators' hot path, a part of `Interpreter` (its base class `BinOps`).

A term of a sum (`c * x`, `x * y`) and a chain of them (`a + b - c`) are most of what a
long expression costs to run: here a plain name or number operand is read inline, and a
Tensor operand's own operator is called, as Python would call it, without a number's
attempt first and `__radd__`'s frame. Everything else goes to `Interpreter.binary`.
"""
from __future__ import annotations

from gradcli import _tensor
from gradcli.errors import GradcliError
# the span every node made from now on records (`set_current_source`, without its call)
from gradcli.graph.nodes import _current_source
from gradcli.lang import nodes as n
from gradcli.lang.arithmetic import _BINARY
from gradcli.lang.calls import _MISSING, _PYTHON_ERRORS

Tensor = _tensor.Tensor
_PLAIN_OPERANDS = frozenset({Tensor, float, int})
_PLAIN_OPERATORS = frozenset({"+", "-", "*", "/"})
# The Tensor's own operators for `_PLAIN_OPERATORS` (what `tensor + x` calls), and those that
# `2.0 + tensor` reaches through `__radd__`/`__rmul__` (`ops.tensor_methods`: the same op,
# the Tensor first). Filled when the first Interpreter is made: `gradcli.ops` attaches them.
_TENSOR_LEFT: dict = {}
_TENSOR_RIGHT: dict = {}


def tensor_operators() -> None:
    """Fill the two tables, once."""
    if not _TENSOR_LEFT:
        _TENSOR_RIGHT.update({"+": Tensor.__add__, "*": Tensor.__mul__})
        _TENSOR_LEFT.update({"+": Tensor.__add__, "-": Tensor.__sub__, "*": Tensor.__mul__,
                             "/": Tensor.__truediv__})


class BinOps:
    """`_binop` and `_chain` of the interpreter (see the module's docstring)."""

    def _binop(self, node):
        left = node.left
        op = node.op
        if left.__class__ is n.BinOp and op != "**" and left.op != "**":
            return self._chain(node)
        # One operator (a term of a sum: `c * x`, `x * y`): a plain name or number operand is
        # read inline, as `_name` and `_num` read it (a call less per operand)
        cls = left.__class__
        if cls is n.Name:
            value = self.scope.vars.get(left.id, _MISSING)
            if value is _MISSING:
                value = self._name(left)
        elif cls is n.Num:
            value = left.value
            if value.__class__ is int and not self.script:
                value = float(value)
        else:
            value = self._eval[cls](left)
        right = node.right   # the same inline read, kept a copy: a shared helper is the call it saves
        cls = right.__class__
        if cls is n.Name:
            right = self.scope.vars.get(right.id, _MISSING)
            if right is _MISSING:
                right = self._name(node.right)
        elif cls is n.Num:
            right = right.value
            if right.__class__ is int and not self.script:
                right = float(right)
        else:
            right = self._eval[cls](right)
        if op in _PLAIN_OPERATORS and value.__class__ in _PLAIN_OPERANDS \
                and right.__class__ in _PLAIN_OPERANDS \
                and (value.__class__ is not int or right.__class__ is not int):
            # `_chain`'s fast path for one operator (`duplicates` lists the two)
            span = node.span
            self.span = span
            _current_source[0] = span
            try:
                if value.__class__ is Tensor:
                    return _TENSOR_LEFT[op](value, right)
                if right.__class__ is Tensor and op in _TENSOR_RIGHT:
                    return _TENSOR_RIGHT[op](right, value)
                return _BINARY[op](value, right)
            except GradcliError as error:
                raise error.at(span)
            except _PYTHON_ERRORS as exc:
                raise self.fail(exc, span) from None
        return self.binary(op, value, right, node.span)

    def _chain(self, node):
        """A left-associative chain (`a + b - c`, no `**`): a left-deep tree, its spine
        walked with a loop."""
        spine = [node]
        left = node.left
        while left.__class__ is n.BinOp and left.op != "**":
            spine.append(left)
            left = left.left
        value = self.eval(left)
        evaluate = self._eval
        for binop in reversed(spine):
            right = binop.right
            right = evaluate[right.__class__](right)
            op, span = binop.op, binop.span
            if op in _PLAIN_OPERATORS and value.__class__ in _PLAIN_OPERANDS \
                    and right.__class__ in _PLAIN_OPERANDS \
                    and (value.__class__ is not int or right.__class__ is not int):
                # What `binary` does for these operands, without its checks (the 10^5-term
                # chains of the parse benchmark spend most of their time here); a Tensor's
                # operator called as Python would call it, without the number's attempt
                # first and `__radd__`'s frame (`_TENSOR_LEFT`)
                self.span = span
                _current_source[0] = span
                try:
                    if value.__class__ is Tensor:
                        value = _TENSOR_LEFT[op](value, right)
                    elif right.__class__ is Tensor and op in _TENSOR_RIGHT:
                        value = _TENSOR_RIGHT[op](right, value)
                    else:
                        value = _BINARY[op](value, right)
                except GradcliError as error:
                    raise error.at(span)
                except _PYTHON_ERRORS as exc:
                    raise self.fail(exc, span) from None
            else:
                value = self.binary(op, value, right, span)
        return value
