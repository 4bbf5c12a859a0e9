"""Record what PyTorch prints for each program here (run by hand, never by the tests):

    <python with torch 2.13> tests/cli/warnings/record.py

Standard output goes to <name>.stdout, standard error (Python's warnings) to <name>.stderr,
which tests/cli/test_warnings.py compares with `gradcli run` of the same file.
"""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    for program in sorted(HERE.glob("*.py")):
        if program.stem == "record":
            continue
        done = subprocess.run([sys.executable, program.name], capture_output=True, text=True,
                              check=True, cwd=HERE)
        (HERE / f"{program.stem}.stdout").write_text(done.stdout)
        (HERE / f"{program.stem}.stderr").write_text(done.stderr.replace(f"{HERE}/", ""))
        print(program.stem, len(done.stdout.splitlines()), len(done.stderr.splitlines()))
