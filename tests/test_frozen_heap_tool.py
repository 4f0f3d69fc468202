"""The test processes' frozen heap (tests/frozen_heap.py): garbage is never frozen, what is kept is."""

from __future__ import annotations

import gc
import weakref

from tests.frozen_heap import LIMIT, FrozenHeap, freeze_what_is_kept


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_garbage_left_by_a_test_is_collected_not_frozen() -> None:
    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only the collector frees it
    gone = weakref.ref(a)
    del a, b
    freeze_what_is_kept()
    assert gone() is None


def test_what_is_kept_is_frozen_and_still_freed_when_dropped() -> None:
    kept = [Node() for _ in range(10)]
    before = gc.get_freeze_count()
    freeze_what_is_kept()
    assert gc.get_freeze_count() >= before + len(kept)
    assert not any(obj is kept[0] for obj in gc.get_objects(generation=2))  # out of the walked generations
    gone = weakref.ref(kept[0])
    del kept[0]  # no cycle: its reference count frees it, frozen or not
    assert gone() is None


def test_a_test_end_freezes_only_past_the_limit() -> None:
    freeze_what_is_kept()
    plugin = FrozenHeap()
    kept = [[] for _ in range(LIMIT // 2)]  # lists are tracked; they outlive a full collection
    gc.collect()
    plugin.pytest_runtest_logfinish()
    assert len(gc.get_objects(generation=2)) >= LIMIT // 2  # under the limit: left as it is
    kept += [[] for _ in range(LIMIT)]
    gc.collect()
    plugin.pytest_runtest_logfinish()
    assert len(gc.get_objects(generation=2)) < LIMIT // 2  # past it: frozen
    assert kept
