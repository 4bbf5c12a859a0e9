"""What the commands that run a program share: reading it, `--set`, `--points`, and
handing a result to its JSON or human renderer.

A command supplies one function `answer(run) -> result` and its two renderers;
`drive` does the rest, the same way for every command. A user error travels to
the one boundary, `commandset.guard`, which reports it against the program read here
(`Common.source`); only one item of a batch (`isolated`) fails alone.
"""
from __future__ import annotations

import gc
import json
import os
import sys
from typing import Callable, List, Optional

from ..errors import GradcliError, LimitError, UsageError
from ..answers.hints import complete
from ..render import jsonout, style
from ..render.errors import error_json, error_text
from . import progress
from .backstop import stdin_buffer
from .options import LIMIT_OPTIONS, Common

# Set by `cli.main` for a real gradcli process (not for a CliRunner in a test session, where
# frozen objects would stay for the whole session).
FREEZE_AFTER_COMPILE = [False]

# A run's young collections that find (almost) nothing are scanning the graph it is
# building, every object of which lives to the end: after one, the next waits 4x longer,
# up to this many objects (the 10^5-term program's 3 collections became 1); one that finds
# garbage brings the threshold back (`_young_threshold`, in a real gradcli process only).
# At most 4x the process's threshold, so that cyclic garbage waits at most 4x longer.
MAX_YOUNG_THRESHOLD = 400_000
RUN_YOUNG_THRESHOLD = [100_000]  # the process's own, as the run began (`drive` sets it)

MAX_SOURCE_BYTES = 50 * 2**20  # a larger program is refused before it is read whole
# One --points line: a point of 10^6 numbers fits; a longer line is reported and skipped
# unread, so a runaway producer cannot make gradcli hold a gigabyte line.
MAX_POINT_LINE_BYTES = 16 * 2**20
# An overlong line is skipped to its end (a 100 MB one is), for at most this much more:
# one that never ends (`--points /dev/zero`, a producer gone wrong) ends the input instead
# of reading forever.
MAX_POINT_SKIP_BYTES = 2**30
_ENDLESS = b"endless"  # the marker of such a line


class Source:
    """A program as read: its name (a path, `<expr>` or `<stdin>`) and its text."""

    __slots__ = ("filename", "text")

    def __init__(self, filename: str, text: str):
        self.filename = filename
        self.text = text


# -- reading ----------------------------------------------------------------------


def read_source(file: Optional[str], expr: Optional[str]) -> Source:
    if expr is not None:
        if file is not None:
            raise UsageError("give the program either as FILE or with -e/--expr, not both")
        return Source("<expr>", expr)
    if file is None:
        raise UsageError("missing FILE (or -e/--expr TEXT)", hint="gradcli COMMAND --help shows an example")
    if file == "-":
        stdin = stdin_buffer()  # exit 2 when standard input is closed
        if sys.stdin is not None and sys.stdin.isatty():  # a person who may not know gradcli waits
            sys.stderr.write("gradcli: reading the program from standard input (end it with Ctrl-D)\n")
        data = stdin.read(MAX_SOURCE_BYTES + 1)
        name = "<stdin>"
    else:
        name = file
        try:
            with open(file, "rb") as fh:
                if os.fstat(fh.fileno()).st_size > MAX_SOURCE_BYTES:  # a regular file: not read
                    raise LimitError(f"{file}: the program is larger than "
                                     f"{MAX_SOURCE_BYTES // 2**20} MiB", hint="the limit is fixed")
                data = fh.read(MAX_SOURCE_BYTES + 1)
        except IsADirectoryError:
            raise UsageError(f"cannot read {file}: it is a directory") from None
        except OSError as exc:
            raise UsageError(f"cannot read {file}: {exc.strerror or exc}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise LimitError(f"{name}: the program is larger than {MAX_SOURCE_BYTES // 2**20} MiB",
                         hint="the limit is fixed")
    if b"\0" in data:
        raise UsageError(f"cannot read {name}: it is a binary file, not a program")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {name}: not UTF-8 text (byte {exc.start})") from None
    return Source(name, text)


def parse_value(text: str, what: str):
    """A number or a (nested) list of numbers, as given to --set and in --points."""
    text = text.strip()
    try:
        value = json.loads(text)
    except RecursionError:
        raise UsageError(f"{what}: the value is nested too deeply") from None
    except ValueError:
        lowered = text.lower()
        if lowered in ("nan", "inf", "+inf", "-inf", "infinity", "-infinity"):
            return float(lowered.replace("infinity", "inf"))
        raise UsageError(f"{what}: {text!r} is not a number or a list of numbers") from None
    if not _numeric(value):
        raise UsageError(f"{what}: {text!r} is not a number or a list of numbers")
    return value


def _numeric(v) -> bool:
    """A number or a (nested) list of numbers; a loop, so any depth json accepts is safe."""
    stack = [v]
    while stack:
        v = stack.pop()
        if isinstance(v, bool):
            return False
        if isinstance(v, list):
            stack.extend(v)
        elif not isinstance(v, (int, float)):
            return False
    return True


def parse_sets(sets: Optional[List[str]]) -> dict:
    out = {}
    for item in sets or []:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise UsageError(f"--set {item!r}: expected NAME=VALUE")
        out[name.strip()] = parse_value(value, f"--set {name.strip()}")
    return out


def names(text: Optional[str], option: str) -> list[str]:
    items = [n.strip() for n in (text or "").split(",") if n.strip()]
    if not items:
        raise UsageError(f"{option} needs at least one name")
    return items


def wrt_names(wrt: Optional[str]) -> list[str]:
    """The names of --wrt; none given: [] (every input, `default_wrt`, once the program ran)."""
    if wrt is None:
        return []
    return names(wrt, "--wrt")


def default_wrt(run) -> list[str]:
    """Every input of a run that requires grad: what --wrt means when it is not given."""
    from ..check.program import default_inputs

    found = [name for name, _ in default_inputs(run)]
    if not found and run.output_name is None and run.output is None:
        from ..lang.runs import no_output

        raise no_output()
    if not found:
        pytorch = getattr(getattr(run, "program", None), "is_pytorch", False)
        raise UsageError("the program has no input that requires grad",
                         hint="a PyTorch program's inputs are its tensors made with "
                              "requires_grad=True (or .requires_grad_()) and its modules' parameters"
                              if pytorch else
                              "assign an input a literal (x = 2.0) or name one with --wrt")
    return found


# -- output -------------------------------------------------------------------------

def emit(text: str) -> None:
    sys.stdout.write(text + "\n")


def stderr_print(line: str) -> None:
    sys.stderr.write(style.terminal_safe(line, "stderr") + "\n")


class Failed(Exception):
    """A user error already reported: the exit code is all that is left to return
    (to `app.run_app`; Click lets it through, as it is none of its exceptions)."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class PipeClosed(Exception):
    """Standard output was closed by its reader (`gradcli ... | head -1`).

    Not an OSError, so that click does not turn it into its own exit 1 on the way
    to the boundary in `app.run_app`."""


def report(err: GradcliError, source: Optional[Source], as_json: bool) -> int:
    """Print a user error (stderr, and stdout with --json); return its exit code."""
    complete(err)
    text = error_text(err, source.filename if source else None, source.text if source else None)
    if text:   # (sys.exit(2) ends a program with nothing to say)
        sys.stderr.write(style.error_report(text) + "\n")
    if as_json:
        emit(jsonout.dumps({"error": error_json(err)}))
    return int(err.exit_code)


def isolated(work: Callable):
    """(work(), None), or (None, the user error it raised).

    Besides the boundary (`commandset.guard`), the one place the CLI catches a user error:
    one item of a batch (a --points line, one of gradcheck's programs) fails alone,
    and the batch goes on.
    """
    try:
        return work(), None
    except GradcliError as err:
        return None, err


# -- the driver ------------------------------------------------------------------------


def load(opts: Common, file: Optional[str], expr: Optional[str]):
    """Read and compile a program; from here on errors are reported against it."""
    from ..lang import compile_program

    opts.source = read_source(file, expr)
    program = compile_program(opts.source.text, opts.source.filename)
    program.warnings = _warning_channel(opts.source)
    return program


def _warning_channel(source):
    """The program's warnings on stderr, as its errors are shown (after what it printed so far)."""
    from ..render.errors import warning_text
    from ..lang.exceptions import RaisedError
    from ..warn import Channel

    def write(category, text, span) -> None:
        sys.stdout.flush()
        report = warning_text(category.__name__, text, span, source.filename, source.text)
        if style.coloured("stderr"):
            report = report.replace("warning:", style.paint("warning:", "warn", "stderr"), 1)
        sys.stderr.write(style.terminal_safe(report, "stderr") + "\n")

    return Channel(write, raise_as=RaisedError)


class Batched:
    """How a command answers --points in one run (`answers.batch`): `compute(run, size)`, the
    answer of a run on vectors of `size` points (or `batch.Refused`), and `finish(result)`,
    what the command does with one point's answer that holds a NaN (its hint, on standard
    error) before its JSON."""

    __slots__ = ("compute", "finish")

    def __init__(self, compute: Callable, finish: Callable = lambda result: result):
        self.compute = compute
        self.finish = finish


def _young_threshold(phase: str, info: dict) -> None:
    """After a young collection: wait 4x longer for the next if it found under 1% of what
    it scanned to be garbage, back to the process's threshold if it found more (up to
    MAX_YOUNG_THRESHOLD, 4x the CLI's GC_THRESHOLDS)."""
    if phase != "stop" or info["generation"] != 0:
        return
    young, *older = gc.get_threshold()
    if info["collected"] * 100 < young:
        if young < MAX_YOUNG_THRESHOLD:
            gc.set_threshold(min(young * 4, MAX_YOUNG_THRESHOLD), *older)
    elif young != RUN_YOUNG_THRESHOLD[0]:
        gc.set_threshold(RUN_YOUNG_THRESHOLD[0], *older)


def drive(opts: Common, answer: Callable, to_json: Callable, human: Callable,
          requires_grad: tuple = (), script: bool = False, printer: Callable | None = None,
          batched: Batched | None = None) -> None:
    """Load the program, run it (once, or once per point), answer, and print the answer."""
    from ..graph.nodes import set_current_source
    from ..limits import command_total, limited

    if FREEZE_AFTER_COMPILE[0]:
        # the program's tree lives as long as the process: out of every later collection.
        # Frozen before the collector runs again: `compile_program` pauses it while parsing,
        # and re-enabled there, it would walk the whole new tree at once (950,000 objects
        # for the 10^5-term program)
        gc.disable()
        try:
            program = load(opts, opts.file, opts.expr)
        finally:
            gc.freeze()
            gc.enable()
    else:
        program = load(opts, opts.file, opts.expr)
    base = parse_sets(opts.sets)
    for name in LIMIT_OPTIONS:
        value = getattr(opts, name)
        if value < 0:
            raise UsageError(f"--{name.replace('_', '-')} {value}: a limit cannot be negative")
    limits = opts.limits()
    if opts.points is not None:
        with command_total(limits):   # every line's run together
            _drive_points(opts, program, base, limits, answer, to_json, requires_grad, script, batched)
        return
    adaptive = FREEZE_AFTER_COMPILE[0]
    if adaptive:
        thresholds = gc.get_threshold()
        RUN_YOUNG_THRESHOLD[0] = thresholds[0]
        gc.callbacks.append(_young_threshold)
    with progress.after(f"running {opts.source.filename}"), command_total(limits), \
            limited(limits):
        # one budget for the run and what the command computes after it
        try:
            run = program.run(base, requires_grad=requires_grad, stdout=printer or stderr_print,
                              limits=limits, script=script)
            if getattr(run, "output_note", None) and opts.of is None and not script:
                stderr_print(style.paint(f"note: {run.output_note}", "hint", "stderr"))
            result = answer(run)
            if adaptive:
                # what the run made lives to the end of the process: frozen, so that the
                # threshold's return below does not collect it at once (after an error, it may)
                gc.freeze()
        finally:  # a program's own backward (a custom Function) may have run: its places end here
            set_current_source(None)
            if adaptive:
                gc.callbacks.remove(_young_threshold)
                gc.set_threshold(*thresholds)
    if opts.json:
        emit(jsonout.dumps(to_json(result)))
    else:
        human(result)


def _drive_points(opts, program, base, limits, answer, to_json, requires_grad, script, batched=None):
    """One run per JSON line; a failing line prints its error and the run goes on, until the
    command's total is spent (the rest of the input is not read). Lines already read together
    run as one batch when the program allows (`points.Batches`)."""
    from ..limits import CommandLimitError, limited
    from .points import Batches, chunks, ready

    def answer_point(point, lineno):
        program.check_inputs(point, f"--points line {lineno}")
        overrides = dict(base)
        for key, value in point.items():
            if not _numeric(value):
                raise UsageError(f"--points line {lineno}: {key!r} is not a number or a list of numbers")
            overrides[key] = value
        with limited(limits):
            run = program.run(overrides, requires_grad=requires_grad, stdout=stderr_print,
                              limits=limits, script=script)
            return to_json(answer(run))

    stdin = stdin_buffer() if opts.points == "-" else None
    stream = stdin
    try:
        if stream is None:
            try:
                stream = open(opts.points, "rb")
            except OSError as exc:
                raise Failed(report(UsageError(f"cannot read --points {opts.points}: {exc.strerror or exc}"),
                                    None, True)) from None
        batches = Batches.make(program, base, limits, requires_grad, batched, answer_point, to_json)
        worst = 0
        with progress.steps("points", _count_lines(opts.points) if stdin is None else None) as advance:
            spent = False
            for chunk in chunks(_point_lines(stream), ready(stream), batches):
                parsed = [(lineno, line, *(isolated(lambda: _parse_point(lineno, line))
                                           if line is None or line.strip() else (None, None)))
                          for lineno, line in chunk]
                answered = batches.answer(parsed) if batches is not None else {}
                for k, (lineno, line, point, err) in enumerate(parsed):
                    advance()
                    if line is not None and not line.strip():
                        continue
                    if err is None:
                        doc, err = answered[k] if k in answered else \
                            isolated(lambda: answer_point(point, lineno))
                    if err is not None:
                        worst = worst or int(err.exit_code)
                        complete(err)
                        sys.stderr.write(style.error_report(error_text(err, opts.source.filename,
                                                                       opts.source.text)) + "\n")
                        doc = {"error": error_json(err)}
                    emit(jsonout.dumps({"point": jsonout.value(point), **doc}, compact=True))
                    if isinstance(err, CommandLimitError):
                        spent = True
                        break
                if spent:
                    break
        if worst:
            raise Failed(worst)
    finally:
        if stream is not None and stream is not stdin:
            stream.close()


def _count_lines(path: str) -> int | None:
    """The lines of a --points file, for its progress bar (only counted when one is shown)."""
    if not progress.shown():
        return None
    count = 0
    with open(path, "rb") as fh:
        for read, chunk in enumerate(iter(lambda: fh.read(2**20), b"")):
            if read > 1024:  # past 1 GiB (or /dev/zero): no bar is worth the reading
                return None
            count += chunk.count(b"\n")
    return count


def _parse_point(lineno: int, line: bytes | None) -> dict:
    """One --points line as a JSON object."""
    if line is _ENDLESS:
        raise LimitError(f"--points line {lineno} does not end within "
                         f"{(MAX_POINT_LINE_BYTES + MAX_POINT_SKIP_BYTES) // 2**20} MiB: the rest of "
                         "the input is not read", hint="the limit is fixed")
    if line is None:
        raise LimitError(f"--points line {lineno} is longer than "
                         f"{MAX_POINT_LINE_BYTES // 2**20} MiB", hint="the limit is fixed")
    try:
        text = line.decode("utf-8-sig" if lineno == 1 else "utf-8")  # a BOM on the first
    except UnicodeDecodeError as exc:
        raise UsageError(f"--points line {lineno}: not UTF-8 text (byte {exc.start})") from None
    try:
        point = json.loads(text)
    except (ValueError, RecursionError):
        raise UsageError(f"--points line {lineno}: not a JSON object") from None
    if not isinstance(point, dict):
        raise UsageError(f"--points line {lineno}: not a JSON object")
    return point


def _point_lines(stream):
    """(line number, bytes) for each line of a binary stream; (number, None) for a line
    longer than MAX_POINT_LINE_BYTES, which is skipped without being held in memory."""
    lineno = 0
    while True:
        line = stream.readline(MAX_POINT_LINE_BYTES + 1)
        if not line:
            return
        lineno += 1
        if len(line) > MAX_POINT_LINE_BYTES:
            skipped = 0
            while line and not line.endswith(b"\n"):
                if skipped > MAX_POINT_SKIP_BYTES:
                    yield lineno, _ENDLESS
                    return
                line = stream.readline(2**20)
                skipped += len(line)
            yield lineno, None
        else:
            yield lineno, line
