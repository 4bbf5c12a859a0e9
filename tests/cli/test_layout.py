"""Issue 15's layout: the same bytes whatever $COLUMNS says, no trailing spaces, tables
that fit 80 columns or fold, tensors of several elements as blocks, colour with meaning."""
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

SAMPLES = sorted(str(p) for p in (Path(__file__).parents[2] / "samples").iterdir())
COMMANDS = ("eval", "backward", "grad", "jacobian", "hessian", "graph", "run")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def invoke(*args, env=None):
    return CliRunner().invoke(app, list(args), env=env or {}, catch_exceptions=False)


def at_widths(*args):
    """stdout and stderr of one command at COLUMNS=40, 80 and 200."""
    outs = []
    for columns in ("40", "80", "200"):
        result = invoke(*args, env={"COLUMNS": columns, "NO_COLOR": None})
        outs.append((result.exit_code, result.stdout, result.stderr))
    return outs


def assert_width_free(args):
    outs = at_widths(*args)
    assert outs[0] == outs[1] == outs[2], args
    code, out, err = outs[0]
    for line in (out + err).splitlines():
        assert line == line.rstrip(), (args, line)
    assert "…" not in out, args


@pytest.mark.parametrize("command", COMMANDS)
def test_piped_output_is_the_same_at_any_width_for_every_sample(command):
    for sample in SAMPLES:
        assert_width_free((command, sample))


@pytest.mark.parametrize("args", [("ops",), ("ops", "mul", "sin", "matmul"),
                                  ("gradcheck", "--no-sympy", "samples/e13_wrong_backward.py",
                                   "samples/quickstart.txt", "samples/two_layer_net.py")])
def test_ops_and_gradcheck_are_the_same_at_any_width(args):
    assert_width_free(args)


def test_a_6x6_hessian_is_a_block_under_its_label():
    program = "x = [1., 2., 3., 4., 5., 6.]\ny = (x * x).sum() * x.sum()\n"
    lines = invoke("hessian", "-e", program, "--wrt", "x").stdout.splitlines()
    at = lines.index("d²y/dx²  shape [6, 6]")
    block = lines[at + 1:at + 7]
    assert block[0].startswith("tensor([[46.,  6.,") and block[-1].endswith("66.]])")
    assert all(line.startswith("        [") for line in block[1:])


def test_a_12_element_gradient_is_a_block_under_its_label():
    program = "x = [1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.]\ny = (x * x).sum()\n"
    lines = invoke("backward", "-e", program).stdout.splitlines()
    at = lines.index("x.grad  shape [12]")
    assert lines[at + 1] == "tensor([ 2.,  4.,  6.,  8., 10., 12., 14., 16., 18., 20., 22., 24.])"


def test_tables_fit_80_columns_or_fold():
    program = "x = 2.0\ny = 3.0\nz = x * x * y\n"
    out = invoke("eval", "-e", program).stdout
    assert out.splitlines()[0].split() == ["name", "shape", "value", "grad_fn", "/", "requires_grad"]
    long_ops = invoke("ops").stdout.splitlines()
    assert any(len(line) > 80 for line in long_ops)  # a formula is never cut...
    assert not any(line.startswith(" ") and line.count("  ") > 3 for line in long_ops)  # ...nor padded


def test_gradcheck_never_breaks_a_file_name_or_a_number(tmp_path):
    deep = tmp_path / ("a_directory_with_a_rather_long_name_" * 2) / "and_a_long_file_name_for_it.py"
    deep.parent.mkdir(parents=True)
    deep.write_text("x = 0.123456789\ny = 3.0\nz = exp(x) * y * 1234.56789\n")
    as_json = json.loads(invoke("gradcheck", "--no-sympy", str(deep), "--json").stdout)
    errors = [f"{c['max_abs_error']:.6g}" for c in as_json["checks"]]
    for columns in ("40", "80"):
        lines = invoke("gradcheck", "--no-sympy", str(deep), "samples/quickstart.txt",
                       env={"COLUMNS": columns}).stdout.splitlines()
        assert str(deep) in lines and "samples/quickstart.txt" in lines
        rows = [line.split() for line in lines[lines.index(str(deep)) + 3:]][:len(errors)]
        assert [row[-1] for row in rows] == errors  # each number whole, at the end of its row


def test_gradcheck_counts_skipped_checks_as_skipped():
    # SymPy has no counterpart for this custom Function: its SymPy checks are skipped
    result = invoke("gradcheck", "samples/e12_custom_function.py", "--json")
    doc = json.loads(result.stdout)
    skipped = [c for c in doc["checks"] if c.get("skipped")]
    human = invoke("gradcheck", "samples/e12_custom_function.py").stdout
    if skipped:
        assert all(c["skipped"] is True and c["skip_reason"] for c in skipped)
        passed = len(doc["checks"]) - len(skipped)
        assert f"{passed} passed, {len(skipped)} skipped" in human
    else:
        assert f"{len(doc['checks'])} passed" in human


def test_ops_name_shows_one_op_in_full():
    out = invoke("ops", "mul").stdout
    assert out.startswith("mul(self, other)\n")
    assert "node: MulBackward0" in out and "self: grad * other" in out
    assert "grad is the gradient of the result" in out
    doc = json.loads(invoke("ops", "sum", "--json").stdout)
    assert doc["ops"][0]["name"] == "sum" and doc["ops"][0]["node"] == "SumBackward0"
    wrong = invoke("ops", "mull")
    assert wrong.exit_code == 2 and "did you mean mul" in wrong.stderr


def test_colour_only_when_asked_or_in_a_terminal():
    wrong = ("gradcheck", "--no-sympy", "samples/e13_wrong_backward.py")
    plain = invoke(*wrong)
    assert not ANSI.search(plain.stdout) and not ANSI.search(plain.stderr)
    always = invoke(*wrong, "--color", "always")
    assert "\x1b[31mFAIL\x1b[0m" in always.stdout and "\x1b[32mok\x1b[0m" in always.stdout
    assert ANSI.sub("", always.stdout) == plain.stdout
    assert not ANSI.search(invoke(*wrong, "--color", "never").stdout)
    error = invoke("eval", "-e", "y = nosuch(1)\n", "--color", "always")
    assert "\x1b[1;31merror:\x1b[0m" in error.stderr
    assert invoke("eval", "-e", "x = 1.0", "--color", "sometimes").exit_code == 2


def test_no_color_wins_over_auto_but_not_over_always(monkeypatch):
    from gradcli.render import style

    class Tty:
        def isatty(self):
            return True

    monkeypatch.setenv("NO_COLOR", "1")
    assert not style.wanted("auto", Tty())
    assert style.wanted("always", Tty())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "xterm")
    assert style.wanted("auto", Tty()) and not style.wanted("never", Tty())


def test_version_and_completion():
    import os
    import subprocess
    import sys

    from gradcli import __version__

    assert invoke("--version").stdout == f"gradcli {__version__}\n"
    env = dict(os.environ, _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1")
    script = subprocess.run([sys.executable, "-m", "gradcli", "--show-completion", "bash"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert "_GRADCLI_COMPLETE=complete_bash" in script.stdout
    env.update(_GRADCLI_COMPLETE="complete_bash", COMP_WORDS="gradcli gra", COMP_CWORD="1")
    words = subprocess.run([sys.executable, "-m", "gradcli"], env=env, capture_output=True, text=True,
                           timeout=60).stdout.split()
    assert words == ["grad", "gradcheck", "graph"]


def test_top_level_help_has_three_examples_and_points_at_the_docs():
    out = invoke("--help").stdout
    examples = out[out.index("Examples:"):].splitlines()[1:4]
    assert all(line.strip().startswith("gradcli ") for line in examples)
    assert "docs/LANGUAGE.md" in out


def test_help_lists_the_commands_own_options_first_with_metavars():
    out = invoke("grad", "--help").stdout
    assert out.index("--order") < out.index("--expr") < out.index("--max-steps")
    assert "--set NAME=VALUE" in out and "--wrt NAMES" in out
    options = re.findall(r"^  (-[-\w, ]+?)(?:  |\n)", out, re.M)
    for command in ("eval", "backward", "grad", "jacobian", "hessian", "gradcheck", "run", "ops"):
        text = invoke(command, "--help").stdout
        body = text[text.index("Options:"):]
        for line in body.splitlines()[1:]:
            if line.startswith("  -"):  # an option line: its help starts on it or on the next
                assert len(line.split("  ")) > 2 or line.rstrip() != line.strip(), (command, line)


def test_json_is_compact_when_piped():
    out = invoke("eval", "-e", "x = 2.0\ny = x * 3\n", "--json").stdout
    assert out == '{"output":"y","values":{"x":2.0,"y":6.0}}\n'


def test_usage_errors_give_the_error_object_under_json(capsys):
    from gradcli.cli.app import run_app

    assert run_app(["grad", "--json", "--no-such-option"]) == 2
    out = capsys.readouterr().out
    assert json.loads(out) == {"error": {"code": 2, "message": "No such option: --no-such-option"}}


def test_symbolic_says_what_it_filled_in_or_stays_symbolic(capsys):
    from gradcli.cli.app import run_app

    program = "x = 2.0\ny = 3.0\nz = x * x * y\n"
    assert run_app(["grad", "-e", program, "--wrt", "x", "--symbolic"]) == 0
    filled = capsys.readouterr().out
    assert "6*x" in filled and "y = tensor(3.) filled in" in filled
    assert run_app(["grad", "-e", program, "--wrt", "x", "--symbolic=full"]) == 0
    full = capsys.readouterr().out
    assert "2*x*y" in full and "filled in" not in full
    assert run_app(["grad", "-e", program, "--wrt", "x", "--symbolic", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["symbolic_filled"] == {"y": 3.0}
