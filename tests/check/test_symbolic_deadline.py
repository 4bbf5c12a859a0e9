"""The symbolic budget's timer never raises inside a weakref callback (Python prints such an
exception as "Exception ignored" and loses it): found by the 30-minute fuzz, where the timer
fired while a batched tensor's side-table entry was being dropped."""
from __future__ import annotations

import sys

import numpy as np

from gradcli import tensor
from gradcli.check.symbolic import _in_finalizer
from gradcli.ops import batching


def frame_of_call(fn, *args):
    """The frame `fn` runs in, as a signal handler would see it."""
    frames = []

    def profiler(frame, event, arg):
        if event == "call" and not frames:
            frames.append(frame)

    sys.setprofile(profiler)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return frames[0]


def test_a_side_table_callback_is_a_finalizer():
    level = batching.enter(3)
    try:
        t = batching.wrap(tensor(np.ones((3, 2))), (level,))
        ref = batching._TABLE[id(t)][0]
        frame = frame_of_call(ref.__callback__, ref)
    finally:
        batching.exit(level)
    assert frame.f_code.co_name == "gone" and _in_finalizer(frame)


def test_other_code_is_not():
    def gone(ref):   # the name alone is not enough: a program's or a test's function
        return ref

    assert not _in_finalizer(sys._getframe())
    assert not _in_finalizer(frame_of_call(gone, None))
