"""Record what PyTorch prints for each program here (run with the torch venv, not in CI):

    <python with torch 2.13> tests/lang/pytail/record.py

Each `<name>.py` is run by PyTorch 2.13's Python; its stdout is written to
`torch_output/<name>.txt`, which test_pytail.py compares with `gradcli run`'s.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

for program in sorted(HERE.glob("*.py")):
    if program.name in ("record.py", "test_pytail.py", "__init__.py"):
        continue
    out = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                         check=True, cwd=HERE)
    (HERE / "torch_output" / (program.stem + ".txt")).write_text(out.stdout)
    print("recorded", program.stem)
