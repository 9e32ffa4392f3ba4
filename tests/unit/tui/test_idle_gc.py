"""Full garbage collections wait for a pause in the person's input (``tui.idle_gc``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from reviewtui.tui.idle_gc import IDLE, MAX_DEFER, NEVER, PENDING, IdleCollector


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def collector() -> Iterator[tuple[IdleCollector, Clock]]:
    clock = Clock()
    idle = IdleCollector(clock)
    thresholds = gc.get_threshold()
    enabled = gc.isenabled()
    gc.enable()
    idle.start()
    yield idle, clock
    idle.stop()
    assert gc.get_threshold() == thresholds  # the interpreter's own, given back
    if not enabled:
        gc.disable()


def _pending() -> None:
    """Young collections as a busy app makes them: a full one becomes due."""
    gc.collect()
    for _ in range(PENDING):
        gc.collect(1)


def test_no_automatic_full_collection_while_started(
        collector: tuple[IdleCollector, Clock]) -> None:
    young, middle, full = gc.get_threshold()
    assert full == NEVER
    assert young > 0 and middle > 0  # young garbage is still collected as usual


def test_the_waiting_collection_runs_in_a_pause(collector: tuple[IdleCollector, Clock]) -> None:
    idle, clock = collector
    _pending()
    idle.touched()  # a key now
    clock.now += IDLE / 2
    assert not idle.tick()  # still typing: it waits
    assert gc.get_count()[2] >= PENDING
    clock.now += IDLE
    assert idle.tick()  # the person paused: it runs
    assert gc.get_count()[2] == 0
    assert not idle.tick()  # nothing waits now


def test_steady_input_does_not_hold_it_back_for_ever(
        collector: tuple[IdleCollector, Clock]) -> None:
    idle, clock = collector
    _pending()
    for _ in range(int(MAX_DEFER / (IDLE / 2)) + 1):
        clock.now += IDLE / 2
        idle.touched()  # a key every half pause
        if idle.tick():
            break
    else:
        pytest.fail("the full collection never ran under steady input")
    assert clock.now - 100.0 >= MAX_DEFER


def test_little_waiting_is_left_for_later(collector: tuple[IdleCollector, Clock]) -> None:
    idle, clock = collector
    gc.collect()
    gc.collect(1)  # one middle collection: not worth a full one yet
    clock.now += 10 * IDLE
    assert not idle.tick()


def test_a_second_collector_gives_back_the_usual_thresholds() -> None:
    thresholds = gc.get_threshold()
    first, second = IdleCollector(), IdleCollector()
    first.start()
    second.start()  # two workbenches in one process (tests do that)
    first.stop()
    second.stop()
    assert gc.get_threshold()[2] != NEVER
    gc.set_threshold(*thresholds)
