"""gradcli's language (SPEC 2): a Python subset parsed and interpreted by gradcli alone.

    program = compile_program(source, filename)      # ParseError with a span
    result = program.run(overrides={"x": 5.0})       # values, output, printed lines

Layers: `lexer` (text to token arrays), `parser` with `expressions` (tokens to
`nodes`), `interpreter` (nodes to values on the engine), `builtins` (the names a
program can reach), `program` (the API above), `limits` (the budgets). Parsing needs no engine;
the engine is imported on the first run.
"""
from gradcli.lang.limits import Limits
from gradcli.lang.program import Program, RunResult, compile_program

__all__ = ["Limits", "Program", "RunResult", "compile_program"]
