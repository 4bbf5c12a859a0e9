"""Issue 26, item 8: no injection. A program's text (a source line, a ModuleDict key)
cannot end the walk-through's <script> blocks, and its control characters reach no
terminal raw: they are escaped as error messages escape them (`\\x1b`).

The HTML is read by the standard library's HTML parser; the commands run as real
processes under a CPU and memory rlimit (`limited_run`).
"""
from __future__ import annotations

import html.parser
import json

import pytest

from hardening_helpers import cpu_bound, limited_run

from gradcli.render import picture
from gradcli.render.graph import to_tree
from gradcli.render.style import terminal_safe

# A source line that, copied raw into a <script>, ends it (`</script>`) or puts the
# tokenizer in its "double escaped" state (`<!--<script>`), which swallows the page.
HOSTILE_LINE = "y = (x * 2.0).sum()  # <!--<script> </script> %DATA% &amp; -->"
HOSTILE_PROGRAM = "x = torch.ones(2, requires_grad=True)\n" + HOSTILE_LINE + "\n"

RAW = ("\x1b", "\x07", "\u202e", "\x9b")
KEY = "\\x1b[2J\\x1b]0;owned\\x07\\u202e\\x9b"  # as a string literal in the program
MODULE_PROGRAM = (f'md = nn.ModuleDict({{"{KEY}": nn.Linear(2, 1)}})\n'
                  "x = torch.ones(2, requires_grad=True)\n"
                  f'y = md["{KEY}"](x).sum()\n'
                  "z = y + 1.0  # \x1b[2J a comment \x07\n")


class _Page(html.parser.HTMLParser):
    """The scripts' raw text, and every start tag seen, in order."""

    def __init__(self):
        super().__init__()
        self.tags, self.scripts, self._in = [], {}, None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "script":
            self._in = dict(attrs).get("id") or f"script{len(self.scripts)}"
            self.scripts[self._in] = ""

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self.scripts[self._in] += data


def _has_graphviz() -> bool:
    try:
        picture.find_dot()
    except Exception:
        return False
    return True


needs_graphviz = pytest.mark.skipif(not _has_graphviz(), reason="no Graphviz (dot or the graphviz-pure wheel)")


def _picture(tmp_path, source: str, name: str):
    """`graph -o NAME` of the program `source`, in a real process: the file written."""
    program = tmp_path / "program.py"
    program.write_text(source)
    out = tmp_path / name
    ran = limited_run("graph", "-o", str(out), str(program))
    assert ran.code == 0, ran.stderr
    assert ran.cpu_seconds < cpu_bound(5)
    return out


@needs_graphviz
def test_walkthrough_script_blocks_hold_no_markup(tmp_path):
    text = _picture(tmp_path, HOSTILE_PROGRAM, "walk.html").read_text()
    parser = _Page()
    parser.feed(text)
    parser.close()
    # every block is there, and the page's own script came after the data
    # (the backward walk's data, its leaves' grads, the forward walk's data, and two scripts)
    assert {"walk-data", "leaf-grads", "forward-data"} <= set(parser.scripts)
    assert parser.tags.count("script") == 5 and parser.tags[-1] == "script"
    for name, body in parser.scripts.items():
        if name in ("walk-data", "leaf-grads", "forward-data"):
            for char in "<>&\u2028":
                assert char not in body, (name, char)
    data = json.loads(parser.scripts["walk-data"])
    lines = [n.get("line") for n in data["nodes"]]
    assert HOSTILE_LINE in lines  # read back as written
    # the one-pass template: the `%DATA%` of the source line stayed as written
    assert text.count('id="walk-data"') == 1


@pytest.mark.parametrize("command", [
    ["eval"], ["backward"], ["graph"], ["graph", "--tree"], ["graph", "--format", "list"],
    ["graph", "--format", "dot"], ["graph", "--format", "mermaid"], ["gradcheck"],
    ["grad", "--wrt", "x"],
])
def test_control_characters_of_a_program_are_escaped(tmp_path, command):
    program = tmp_path / "keys.py"
    program.write_text(MODULE_PROGRAM)
    ran = limited_run(*command, str(program))
    assert ran.code in (0, 1), ran.stderr
    for char in RAW:
        assert char not in ran.stdout and char not in ran.stderr, (command, repr(char))
    if command[0] not in ("grad", "eval"):  # these show no module
        assert "\\x1b[2J" in ran.stdout, ran.stdout


@needs_graphviz
def test_svg_of_a_program_with_control_characters_is_xml(tmp_path):
    """XML has no ESC: a raw one made an SVG no viewer opens."""
    import xml.etree.ElementTree as ET

    out = _picture(tmp_path, MODULE_PROGRAM, "g.svg")
    ET.parse(out)  # well-formed
    assert "\\x1b[2J" in out.read_text()


def test_coloured_output_keeps_its_colours_and_escapes_the_program():
    painted = "\x1b[1;36mAddBackward0\x1b[0m variable \x1b[2Jname\x1b]0;t\x07"
    safe = terminal_safe(painted, colored=True)
    assert safe.startswith("\x1b[1;36mAddBackward0\x1b[0m")
    assert "\\x1b[2J" in safe and "\\x07" in safe and "\x07" not in safe
    assert "\x1b" not in terminal_safe(painted, colored=False)


def test_tree_in_colour_escapes_a_variable_name():
    class Node:
        def __init__(self, id, name, variable=None, edges=()):
            self.id, self.name, self.variable, self.edges = id, name, variable, list(edges)
            self.tensor = self.shape = self.source = self.value = self.saved = None
            self.reached_from = (0, 0)

    class Model:
        root = 0
        with_values = with_saved = False
        nodes = [Node(0, "SumBackward0", edges=[(1, 0)]), Node(1, "AccumulateGrad", "w\x1b[2J")]

        def is_shared(self, i):
            return False

    text = terminal_safe("\n".join(to_tree(Model(), color=True)), colored=True)
    assert "\x1b[2J" not in text and "w\\x1b[2J" in text and "\x1b[33m" in text
