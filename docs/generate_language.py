"""Write the generated sections of docs/LANGUAGE.md from the op table and the language's
namespaces, so the reference lists exactly what gradcli has.

Run from the repository root: `python docs/generate_language.py` (rewrites the file);
`--check` exits 1 if the file is out of date (tests/docs/test_docs.py runs it).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent / "LANGUAGE.md"
SECTION = re.compile(r"(<!-- BEGIN GENERATED: (\w+) -->\n)(.*?)(<!-- END GENERATED -->)", re.S)


def _names(names) -> str:
    return " ".join(f"`{n}`" for n in sorted(names))


def ops_section() -> str:
    from gradcli.answers.optable import tangent_text
    from gradcli.ops import OPS

    lines = ["| op | backward node | derivative per input | tangent (forward mode) |", "|---|---|---|---|"]
    for op in OPS.values():
        if op.differentiable:
            parts = [f"{i}: `{f}`" for i, f, r in zip(op.inputs, op.formulas, op.rules) if r is not None]
            rule = "; ".join(parts).replace("|", "\\|") or "—"
        else:
            rule = "not differentiable"
        tangent = tangent_text(op)
        tangent = "—" if tangent is None else f"{tangent['kind'].split(' (')[0]}: `{tangent['formula']}`"
        lines.append(f"| `{op.name}` | {op.node or '—'} | {rule} | {tangent.replace('|', chr(92) + '|')} |")
    return "\n".join(lines) + "\n"


def names_section() -> str:
    from gradcli.lang import access
    from gradcli.lang.builtins import make_builtins, make_modules

    modules = make_modules()
    builtins = make_builtins(modules, print)
    torch = modules["torch"].members
    plain = [n for n in builtins if n not in torch and n not in modules["torch.nn.functional"].members]
    lines = [f"- Python builtins and names without a prefix: {_names(plain)}",
             "- Every `torch.` function below is also a plain name (`sin(x)` is `torch.sin(x)`)."]
    for name, namespace in modules.items():
        members = [m for m, v in namespace.members.items() if v is not None]
        lines.append(f"- `{name}`: {_names(members)}")
    lines.append(f"- Tensor attributes: {_names(access.TENSOR_ATTRIBUTES)}")
    lines.append(f"- Tensor methods: {_names(access.TENSOR_METHODS)}")
    for what, names in (("a `grad_fn` node", access.GRAPH_NODE_ATTRIBUTES),
                        ("an `AccumulateGrad` node", access.ACCUMULATE_GRAD_ATTRIBUTES),
                        ("`ctx` in a custom Function", access.CTX_ATTRIBUTES),
                        ("a custom Function class", access.FUNCTION_CLASS_ATTRIBUTES),
                        ("a hook's handle", access.HANDLE_ATTRIBUTES),
                        ("an optimizer", access.OPTIMIZER_ATTRIBUTES),
                        ("a learning-rate scheduler", access.SCHEDULER_ATTRIBUTES),
                        ("a list", access.LIST_METHODS), ("a dict", access.DICT_METHODS)):
        lines.append(f"- On {what}: {_names(names)}")
    for name, names in sorted(access.CLASS_STATIC_METHODS.items()):
        lines.append(f"- On the class `nn.{name}` itself: {_names(names)}")
    for name, names in sorted(access.SCHEDULER_OWN_ATTRIBUTES.items()):
        lines.append(f"- On `{name}`, besides: {_names(names)}")
    return "\n".join(lines) + "\n"


GENERATORS = {"ops": ops_section, "names": names_section}


def generate(text: str) -> str:
    return SECTION.sub(lambda m: m.group(1) + GENERATORS[m.group(2)]() + m.group(4), text)


def main(argv: list[str]) -> int:
    text = DOC.read_text()
    new = generate(text)
    if "--check" in argv:
        if new != text:
            sys.stderr.write("docs/LANGUAGE.md is out of date: run python docs/generate_language.py\n")
            return 1
        return 0
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(DOC.parent.parent))
    sys.exit(main(sys.argv[1:]))
