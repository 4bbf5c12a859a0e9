"""A compiled program and the result of running it: the API the commands call.

`compile_program` parses once, tells the two kinds of file apart (SPEC 2.1: one
that imports torch is a PyTorch program, whose literals are Python numbers and
whose inputs are its leaves that require grad; any other is an expression) and
finds the assignments `--set` may replace (a top-level `x = <literal>`, or
`x = torch.tensor(<literal>, ...)`: in an expression, its inputs);
`Program.run` runs it with fresh scopes each time (one run per `--points`
line), with `--set` overrides, the limits of SPEC 2.5 and the output of
SPEC 2.4.
"""
from __future__ import annotations

import sys
from typing import Callable, Iterable

from gradcli._tensor import Tensor
from gradcli.errors import GradcliError, ProgramError, UsageError, close_matches
from gradcli.lang.exceptions import RaisedError, program_exit
from gradcli.lang import nodes as n
from gradcli.lang.builtins import CONSTANTS
from gradcli.lang.limits import MAX_SOURCE_LENGTH, recursion_headroom
from gradcli.limits import Limits, gc_paused, limited
from gradcli.lang.parser import parse


def compile_program(source: str, filename: str = "<expr>") -> "Program":
    """Parse `source`; raises ParseError (with its span) if it does not parse."""
    if len(source) > MAX_SOURCE_LENGTH:
        raise ProgramError(f"the program is {len(source)} characters long; the limit is "
                           f"{MAX_SOURCE_LENGTH}")
    with recursion_headroom(), gc_paused():
        module = parse(source)
    return Program(source, filename, module)


class Program:
    """A parsed program: run it any number of times."""

    def __init__(self, source: str, filename: str, module: n.Module):
        self.source = source
        self.filename = filename
        self.module = module
        self.input_sites, self.input_names = find_inputs(module)
        self.is_pytorch = imports_torch(module)
        self.warnings = None   # its warning channel (gradcli.warn), made at its first run

    def warning_channel(self):
        """The channel of this program's warnings (once per place over all its runs), with
        Python's default filters at the start of each run."""
        from gradcli.warn import Channel, write_plain

        if self.warnings is None:
            self.warnings = Channel(write_plain(self.filename), raise_as=RaisedError)
        self.warnings.reset()
        return self.warnings

    @property
    def kind(self) -> str:
        """"pytorch" (the file imports torch) or "expression" (SPEC 2.1)."""
        return "pytorch" if self.is_pytorch else "expression"

    def check_inputs(self, names, where: str = "--set") -> None:
        """Refuse a name that is not an input, saying where it was given (`--set`, a line of
        `--points`)."""
        for name in names:
            if name not in self.input_names:
                close = close_matches(name, self.input_names, n=1)
                if close:
                    hint = f"did you mean '{close[0]}'?"
                elif self.input_names:
                    hint = ("the names --set can replace (assigned a literal at the top level) are "
                            if self.is_pytorch else "the inputs are ") + ", ".join(self.input_names)
                else:
                    hint = "the program has no inputs (names assigned a literal at top level)"
                raise UsageError(f"{where}: no {'literal assignment' if self.is_pytorch else 'input'} "
                                 f"named '{name}'", hint=hint)

    def run(self, overrides: dict | None = None, requires_grad: Iterable[str] = (),
            stdout: Callable[[str], None] | None = None, limits: Limits | None = None,
            script: bool = False) -> "RunResult":
        """Run the program once, from fresh scopes.

        `overrides` replaces the literal of named inputs (--set); `requires_grad`
        names leaves to make require grad when assigned at top level (grad --wrt);
        `stdout` receives each printed line; `script` runs it as `gradcli run` does.
        A PyTorch program, or any program with `script`, has Python's literals
        (`lr = 0.01` is a float); an expression's literal assignment is an input leaf.
        Except with `script`, what the program's own backward calls free is kept
        (`autograd.kept`): the command may differentiate the output again.
        """
        from gradcli import _tensor as engine_tensor
        from gradcli.autograd import kept
        from gradcli.graph.nodes import set_current_source
        from gradcli.lang.interpreter import Interpreter

        overrides = dict(overrides or {})
        self.check_inputs(overrides)
        limits = limits or Limits()
        interpreter = Interpreter(self, overrides, requires_grad, stdout or _write_stdout,
                                  limits, script or self.is_pytorch)
        interpreter.run_command = script
        keeper = None if script else kept.Keeper()
        from gradcli.ops import dual

        depth = len(dual.LEVELS)
        try:
            with limited(limits) as budget, recursion_headroom(), engine_tensor.enable_grad():
                previous, kept.active[0] = kept.active[0], keeper
                try:
                    with self.warning_channel().active():
                        final, value = interpreter.run_module(self.module)
                except GradcliError as error:
                    ended = program_exit(error)
                    if ended is None or not ended.success:
                        raise ended or error
                    final, value = None, None   # sys.exit(0): the program ends there
                except RecursionError:
                    raise ProgramError("maximum recursion depth exceeded", interpreter.span,
                                       hint="the program nests calls or expressions too deeply") \
                        from None
                finally:
                    kept.active[0] = previous
                    interpreter.work = budget.work  # what the run charged (a figure for tests)
        finally:
            interpreter.printer.flush()
            set_current_source(None)
            dual.leave_levels(depth)   # a dual level a program entered and never left ends with it
        if keeper is not None:
            keeper.restore()
        return RunResult(interpreter, final, value, keeper.calls if keeper is not None else ())


class RunResult:
    """What a run left: the top-level values, the output (SPEC 2.4), the printed lines."""

    def __init__(self, interpreter, final: n.ExprStmt | None, final_value, calls=()):
        variables = interpreter.module_scope.vars
        self.interpreter = interpreter
        self.program = interpreter.program
        self.calls = calls  # the program's own backward/autograd.grad calls (autograd.kept)
        # every leaf tensor bound to a top-level name: (name first bound to, its span, tensor)
        self.first_bindings = interpreter.first_bindings
        self.values = {name: value for name, value in variables.items() if is_data(value)}
        from gradcli.nn.modules.module import Module

        # the nn modules at the top level: their parameters are named by path (`fc1.weight`)
        self.modules = {name: value for name, value in variables.items() if isinstance(value, Module)}
        self.printed = interpreter.printer.lines
        if final is not None and final_value is not None:
            self.output_name, self.output = final.text, final_value
        elif interpreter.last_assigned in self.values:
            self.output_name = interpreter.last_assigned
            self.output = self.values[self.output_name]
        else:
            self.output_name, self.output = None, None
        self.output_note = None
        if calls and not (isinstance(self.output, Tensor) and self.output.requires_grad):
            self._output_of_calls(calls)

    def _output_of_calls(self, calls) -> None:
        """A snippet that ends `y.backward(v)` or `g, = autograd.grad(y, x)` and then assigns
        something without a graph (`v`, `g`): its output is the tensor it differentiated last,
        when a top-level name holds it (issue 28.1); a note says so."""
        for call in reversed(calls):
            for root in call.roots:
                name = next((k for k, v in self.values.items() if v is root), None)
                if name is not None and isinstance(root, Tensor) and root.requires_grad:
                    line = f" (line {call.source[0]})" if call.source is not None else ""
                    self.output_note = (f"the output is {name!r}, which the program's own "
                                        f"{'backward' if call.accumulate else 'autograd.grad'} call"
                                        f"{line} differentiated: {self.output_name!r}, the last "
                                        "value assigned, has no graph (--of NAME picks another)")
                    self.output_name, self.output = name, root
                    return

    def select_output(self, name: str) -> tuple:
        """(name, value) of the top-level value `name` (--of NAME)."""
        if name in self.values:
            return name, self.values[name]
        close = close_matches(name, list(self.values), n=1)
        hint = f"did you mean '{close[0]}'?" if close else \
            ("the program defines " + ", ".join(self.values) if self.values else None)
        raise UsageError(f"--of: no value named '{name}' at the top level of the program", hint=hint)


def is_data(value) -> bool:
    """A value the commands report (tensors, numbers, strings and containers of them),
    not a function, class, module or engine object."""
    return value is None or isinstance(value, _DATA_TYPES)


_DATA_TYPES = (Tensor, bool, int, float, str, tuple, list, dict)


def _write_stdout(line: str) -> None:
    sys.stdout.write(line + "\n")


# --- inputs -----------------------------------------------------------------


def imports_torch(module: n.Module) -> bool:
    """Whether the file imports torch anywhere (`import torch`, `import torch.nn as nn`,
    `from torch import ...`): then it is a PyTorch program (SPEC 2.1)."""
    blocks = [module.body]
    while blocks:
        for stmt in blocks.pop():
            cls = stmt.__class__
            if cls is n.Import:
                if any(alias.name.split(".")[0] == "torch" for alias in stmt.names):
                    return True
            elif cls is n.ImportFrom:
                if (getattr(stmt, "module", None) or "").split(".")[0] == "torch":
                    return True
            elif cls is n.If:
                blocks.extend(body for _, body in stmt.branches)
                blocks.append(stmt.orelse)
            elif cls in (n.While, n.For):
                blocks.extend((stmt.body, stmt.orelse))
            elif cls is n.With:
                blocks.append(stmt.body)
            elif cls is n.Try:
                blocks.extend(h.body for h in stmt.handlers)
                blocks.extend((stmt.body, stmt.orelse, stmt.finalbody))
    return False


def find_inputs(module: n.Module) -> tuple:
    """The input assignments of SPEC 2.1: {id(statement): (kind, name)} and the names in order.

    kind "literal": `x = 2.0`, `x = [1., 2.]`, `x = -2 * pi` (a constant expression of
    numbers and list literals); kind "tensor": `x = torch.tensor(<literal>, ...)`.
    Only statements directly at the top level count.
    """
    bound = module_bindings(module)
    constants = frozenset(CONSTANTS) - bound
    sites, names = {}, {}
    for stmt in module.body:
        if stmt.__class__ is not n.Assign or len(stmt.targets) != 1 \
                or stmt.targets[0].__class__ is not n.Name:
            continue
        name = stmt.targets[0].id
        if is_literal(stmt.value, constants):
            kind = "literal"
        elif _is_tensor_call(stmt.value, constants):
            kind = "tensor"
        else:
            continue
        sites[id(stmt)] = (kind, name)
        names.setdefault(name, None)
    return sites, list(names)


def all_accepted(node: n.Node, children: Callable) -> bool:
    """Whether every node reached from `node` is accepted, walked without recursion (a deep
    expression does not reach Python's limit): `children(node)` gives the nodes to check next
    (none for an accepted leaf), or None where `node` is refused."""
    stack = [node]
    while stack:
        more = children(stack.pop())
        if more is None:
            return False
        stack.extend(more)
    return True


def is_literal(node: n.Node, constants: frozenset) -> bool:
    """A number, a non-empty (nested) list literal, or a constant expression of them."""
    def children(node):
        cls = node.__class__
        if cls is n.Num or (cls is n.Name and node.id in constants):
            return ()
        if cls is n.UnaryOp and node.op in ("-", "+"):
            return (node.operand,)
        if cls is n.BinOp:
            return (node.left, node.right)
        if cls is n.ListExpr and node.elts:
            return node.elts
        return None
    return all_accepted(node, children)


def _is_tensor_call(node: n.Node, constants: frozenset) -> bool:
    if node.__class__ is not n.Call or not node.args or node.args[0].__class__ is n.Starred:
        return False
    func = node.func
    named = (func.__class__ is n.Name and func.id == "tensor") or (
        func.__class__ is n.Attribute and func.attr == "tensor"
        and func.value.__class__ is n.Name and func.value.id == "torch")
    return named and is_literal(node.args[0], constants)


def module_bindings(module: n.Module) -> frozenset:
    """Every name the program binds at module level (assignments, loops, defs, imports)."""
    bound = set()
    blocks = [module.body]
    while blocks:
        for stmt in blocks.pop():
            cls = stmt.__class__
            if cls is n.Assign:
                for target in stmt.targets:
                    _target_names(target, bound)
            elif cls is n.AugAssign or cls is n.For:
                _target_names(stmt.target, bound)
            elif cls is n.FunctionDef or cls is n.ClassDef:
                bound.add(stmt.name)
            elif cls is n.Import or cls is n.ImportFrom:
                for alias in stmt.names:
                    bound.add(alias.asname or alias.name.split(".")[0])
            elif cls is n.With:
                for item in stmt.items:
                    if item.target is not None:
                        _target_names(item.target, bound)
            if cls is n.If:
                blocks.extend(body for _, body in stmt.branches)
                blocks.append(stmt.orelse)
            elif cls in (n.While, n.For):
                blocks.append(stmt.body)
                blocks.append(stmt.orelse)
            elif cls is n.With:
                blocks.append(stmt.body)
            elif cls is n.Try:
                bound.update(h.name for h in stmt.handlers if h.name is not None)
                blocks.extend(h.body for h in stmt.handlers)
                blocks.extend((stmt.body, stmt.orelse, stmt.finalbody))
    return frozenset(bound)


def _target_names(target: n.Node, bound: set) -> None:
    if target.__class__ is n.Name:
        bound.add(target.id)
    elif target.__class__ in (n.TupleExpr, n.ListExpr):
        for element in target.elts:
            _target_names(element, bound)
