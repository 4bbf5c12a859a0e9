"""The docs match gradcli (issue 15): docs/LANGUAGE.md lists every op and name the
language has, no text points at a SPEC.md users do not have, every `Example:` line of
the help runs as written from the repository root, and every README console example
prints what the README shows.

README examples are ```console blocks: `$ command` lines, each followed by its
standard output. They run in bash from the repository root with `gradcli` and `jq`
on PATH as small shims (gradcli: this checkout; jq: `-c` with a `.a.b` path, so the
result does not depend on jq's version), with $COLUMNS, $LINES and colour unset.
`python tests/docs/test_docs_examples.py --update` rewrites the README's outputs
(after a deliberate change of layout: then review the diff).
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LANGUAGE = ROOT / "docs" / "LANGUAGE.md"
sys.path.insert(0, str(ROOT / "docs"))

import generate_language  # noqa: E402

from gradcli.cli.app import COMMANDS, app  # noqa: E402

# -- docs/LANGUAGE.md ------------------------------------------------------------------


def test_language_reference_is_generated_from_the_current_tables():
    text = LANGUAGE.read_text()
    assert generate_language.generate(text) == text, "run: python docs/generate_language.py"


def test_language_reference_mentions_every_op_and_name():
    from gradcli.lang.builtins import make_builtins, make_modules
    from gradcli.ops import OPS

    text = LANGUAGE.read_text()
    modules = make_modules()
    names = set(OPS) | set(make_builtins(modules, print))
    for namespace in modules.values():
        names |= {m for m, v in namespace.members.items() if v is not None}
    missing = sorted(n for n in names if f"`{n}`" not in text)
    assert not missing


def test_language_reference_has_the_exit_codes_limits_and_json():
    text = LANGUAGE.read_text()
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 4 |", "| 70 |", "| 130 |"):
        assert code in text
    for option in ("--max-elements", "--max-steps"):
        assert option in text
    for command in list(COMMANDS) + ["an error"]:
        if command != "ops":
            assert f"| {command} |" in text


def help_text(command=None) -> str:
    args = [command, "--help"] if command else ["--help"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0
    return result.stdout


def test_no_text_points_at_spec_md():
    texts = {"README.md": README.read_text(), "help": help_text()}
    texts.update({str(p): p.read_text() for p in (ROOT / "docs").glob("*.md")})
    texts.update({f"{c} --help": help_text(c) for c in COMMANDS})
    assert [where for where, text in texts.items() if "SPEC" in text] == []
    assert "docs/LANGUAGE.md" in texts["README.md"]


# -- running examples --------------------------------------------------------------------

_JQ = """import json, sys
args = [a for a in sys.argv[1:] if a != "-c"]
value = json.loads(sys.stdin.read())
for key in [p for p in (args[0] if args else ".").split(".") if p]:
    value = value[key]
print(json.dumps(value, separators=(",", ":")) if "-c" in sys.argv else json.dumps(value, indent=2))
"""


def make_shell_env(bin_dir: Path) -> dict:
    """The environment examples run in: the shims first on PATH, no $COLUMNS, no colour."""
    shims = {"gradcli": f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m gradcli "$@"\n',
             "jq": f"#!{sys.executable}\n{_JQ}"}
    for name, text in shims.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(ROOT), NO_COLOR="1",
               TERM="dumb")
    # Examples run from a directory that looks like the repository root (samples/, docs/) but
    # is not it, so `-o docs/graph.png` or `-o walk.html` never overwrite committed files.
    work = bin_dir / "root"
    (work / "docs").mkdir(parents=True, exist_ok=True)
    if not (work / "samples").exists():
        (work / "samples").symlink_to(ROOT / "samples")
    env["GRADCLI_EXAMPLES_ROOT"] = str(work)
    return env


@pytest.fixture(scope="module")
def shell_env(tmp_path_factory):
    return make_shell_env(tmp_path_factory.mktemp("bin"))


def run_shell(command: str, env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=env["GRADCLI_EXAMPLES_ROOT"], env=env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def help_examples() -> list:
    """(command or None for the top-level help, example) of every `Example:` line."""
    found = []
    for command in [None, *COMMANDS]:
        found += [(command, line.split("Example:", 1)[1].strip())
                  for line in help_text(command).splitlines() if "Example:" in line]
    return found


def test_every_command_has_a_help_example():
    assert {command for command, _ in help_examples()} >= set(COMMANDS)


@pytest.mark.parametrize("example", [e for _, e in help_examples()])
def test_help_example_runs_as_written(example, shell_env):
    result = run_shell(example, shell_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    assert "error" not in result.stderr


# -- README ---------------------------------------------------------------------------------

_BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def readme_examples(text: str) -> list:
    """[(command, expected output, (start, end) of the output in text)] of every console block."""
    found = []
    for block in _BLOCK.finditer(text):
        body, base = block.group(1), block.start(1)
        commands = [m for m in re.finditer(r"^\$ (.*)\n", body, re.M)]
        for i, m in enumerate(commands):
            end = commands[i + 1].start() if i + 1 < len(commands) else len(body)
            found.append((m.group(1), body[m.end():end], (base + m.end(), base + end)))
    return found


def _lines(text: str) -> list:
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


@pytest.mark.parametrize("command", [c for c, _, _ in readme_examples(README.read_text())])
def test_readme_console_example(command, shell_env):
    expected = {c: out for c, out, _ in readme_examples(README.read_text())}[command]
    result = run_shell(command, shell_env)
    assert "Traceback" not in result.stderr
    assert _lines(result.stdout) == _lines(expected)


def test_readme_has_console_examples_for_every_command():
    commands = " ".join(c for c, _, _ in readme_examples(README.read_text()))
    for name in COMMANDS:
        assert f"gradcli {name}" in commands


def update_readme(env) -> None:
    """Rewrite each README example's output with what the command prints now."""
    text = README.read_text()
    for command, _, (start, end) in reversed(readme_examples(text)):
        out = run_shell(command, env).stdout
        lines = _lines(out)
        text = text[:start] + "".join(line + "\n" for line in lines) + text[end:]
    README.write_text(text)


if __name__ == "__main__" and "--update" in sys.argv:
    import tempfile

    update_readme(make_shell_env(Path(tempfile.mkdtemp(prefix="gradcli-shims"))))
