"""`--points` in batches: the lines already read run as one program run on vectors
(`answers.batch`), each checked against the per-point path.

The lines of a file are read CHUNK at a time; those of a pipe or a terminal as long as
more are waiting, so a producer that writes one point and waits for its answer gets it.
In each batch the first point that fits runs alone, as every point did before, and its
answer must be byte for byte the batch's answer for it: else (or if the batch fails or
refuses) the batch's points run one by one, and after a difference, or MAX_FAILURES
failures, every later point does too. A point whose values are not numbers for the
program's inputs (a list, a name that is no input) always runs alone, so its error is
its own run's. GRADCLI_POINTS_ONE_BY_ONE=1 in the environment turns batches off (to
measure or rule them out).
"""
from __future__ import annotations

import os
import select
import stat
from typing import Callable

import numpy as np

from ..errors import GradcliError
from ..render import jsonout

CHUNK = 1024
MAX_FAILURES = 3


def ready(stream) -> Callable[[], bool]:
    """Whether another line can be read without waiting: always in a file; in a pipe or a
    terminal, when its descriptor holds data."""
    try:
        fd = stream.fileno()
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return lambda: True
    except (OSError, ValueError, AttributeError):  # not a descriptor (a test's BytesIO)
        return lambda: True

    def waiting() -> bool:
        try:
            return bool(select.select([fd], [], [], 0)[0])
        except (OSError, ValueError):
            return False
    return waiting


def chunks(lines, more: Callable[[], bool], batches) -> object:
    """The (line number, bytes) pairs in lists: one line each without batches, else up to
    CHUNK lines, ended early where no more are waiting."""
    chunk = []
    for item in lines:
        chunk.append(item)
        if batches is None or len(chunk) >= CHUNK or not more():
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _silent(line: str) -> None:
    """A batched program prints nothing (`batch.batchable` refuses print)."""


class Batches:
    """The batched answers of one --points stream."""

    def __init__(self, program, limits, requires_grad, batched, answer_point, to_json, defaults):
        self.program = program
        self.limits = limits
        self.requires_grad = requires_grad
        self.batched = batched
        self.answer_point = answer_point
        self.to_json = to_json
        self.defaults = defaults  # each input's number where a point does not set it
        self.inputs = frozenset(defaults)
        self.failures = 0
        self.off = False
        self.answered = 0  # points answered by a batch, besides each batch's own run

    @classmethod
    def make(cls, program, base: dict, limits, requires_grad, batched, answer_point, to_json):
        """The batches of a command that has a batched answer, for a program `batchable`
        with --set numbers; else None (every point runs alone)."""
        from ..answers.batch import batchable, input_defaults, point_number
        from ..limits import limited

        if batched is None or os.environ.get("GRADCLI_POINTS_ONE_BY_ONE") or not batchable(program) or \
                any(point_number(v) is None for v in base.values()):
            return None
        try:
            with limited(limits):
                run = program.run(base, requires_grad=requires_grad, stdout=_silent, limits=limits)
        except GradcliError:
            return None
        defaults = input_defaults(run, program)
        if defaults is None:
            return None
        defaults.update((k, point_number(v)) for k, v in base.items() if k in defaults)
        return cls(program, limits, requires_grad, batched, answer_point, to_json, defaults)

    def _fits(self, point: dict) -> bool:
        from ..answers.batch import point_number

        return all(k in self.inputs and point_number(v) is not None for k, v in point.items())

    def answer(self, parsed: list) -> dict:
        """{index in `parsed`: (JSON document, None) or (None, error)} of the points answered
        here; the others are left to run alone. `parsed` holds (line number, bytes, point,
        error) per line."""
        from ..answers.batch import Refused, nan_points, overrides, point_number, points_of
        from ..limits import limited

        if self.off:
            return {}
        fits = [(k, point) for k, (_, _, point, err) in enumerate(parsed)
                if err is None and point is not None and self._fits(point)]
        if len(fits) < 2:
            return {}
        first, point = fits[0]
        try:
            own = self.answer_point(point, parsed[first][0]), None
        except GradcliError as err:
            return {first: (None, err)}
        numbers = [{k: point_number(v) for k, v in p.items()} for _, p in fits]
        size = len(fits)
        try:
            with limited(self.limits):
                run = self.program.run(overrides(numbers, self.defaults), requires_grad=self.requires_grad,
                                       stdout=_silent, limits=self.limits)
                result = self.batched.compute(run, size)
                answers = points_of(result, size)
                if jsonout.dumps(self.to_json(answers[0]), compact=True) != jsonout.dumps(own[0], compact=True):
                    self.off = True
                    return {first: own}
                for i in np.flatnonzero(nan_points(result, size)[1:]) + 1:
                    self.batched.finish(answers[i])
                docs = [self.to_json(answer) for answer in answers[1:]]
        except (GradcliError, Refused):
            self.failures += 1
            self.off = self.failures >= MAX_FAILURES
            return {first: own}
        answered = {first: own}
        answered.update((k, (doc, None)) for (k, _), doc in zip(fits[1:], docs))
        self.answered += len(docs)
        return answered
