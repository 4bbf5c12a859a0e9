"""Record what PyTorch prints for each program here (run by hand, never by the tests):

    <python with torch 2.13> tests/nn/tail/record.py [name ...]

Each program is plain PyTorch; its standard output goes to torch_output/<name>.txt,
which tests/nn/test_tail_layers.py compares with `gradcli run` of the same file.
"""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    names = sys.argv[1:] or sorted(p.stem for p in HERE.glob("*.py") if p.stem != "record")
    for name in names:
        out = subprocess.run([sys.executable, str(HERE / f"{name}.py")], capture_output=True, text=True,
                             check=True, cwd=HERE).stdout
        (HERE / "torch_output" / f"{name}.txt").write_text(out)
        print(f"{name}: {len(out.splitlines())} lines")
