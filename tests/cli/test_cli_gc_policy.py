"""The young-generation threshold during a run (`cli.common._young_threshold`): it grows
while young collections find nothing (they are scanning the graph being built) and comes
back as soon as one finds garbage."""
from __future__ import annotations

import gc

import pytest

from gradcli.cli import GC_THRESHOLDS
from gradcli.cli import common
from gradcli.cli.common import MAX_YOUNG_THRESHOLD, _young_threshold


@pytest.fixture
def thresholds(monkeypatch):
    saved = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    monkeypatch.setattr(common, "RUN_YOUNG_THRESHOLD", [GC_THRESHOLDS[0]])
    yield
    gc.set_threshold(*saved)


def stop(collected: int, generation: int = 0) -> None:
    _young_threshold("stop", {"generation": generation, "collected": collected, "uncollectable": 0})


def test_fruitless_collections_raise_it_up_to_the_cap(thresholds):
    stop(0)
    assert gc.get_threshold() == (min(GC_THRESHOLDS[0] * 4, MAX_YOUNG_THRESHOLD), *GC_THRESHOLDS[1:])
    for _ in range(5):
        stop(0)
    assert gc.get_threshold()[0] == MAX_YOUNG_THRESHOLD


def test_a_collection_that_finds_garbage_brings_it_back(thresholds):
    stop(0)
    assert gc.get_threshold()[0] > GC_THRESHOLDS[0]
    stop(gc.get_threshold()[0] // 10)  # 10% of what it scanned was garbage
    assert gc.get_threshold() == GC_THRESHOLDS


def test_only_the_end_of_a_young_collection_counts(thresholds):
    _young_threshold("start", {"generation": 0, "collected": 0, "uncollectable": 0})
    stop(0, generation=1)
    stop(0, generation=2)
    assert gc.get_threshold() == GC_THRESHOLDS
