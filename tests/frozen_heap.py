"""What a test process keeps from test to test is frozen out of the garbage collector's way.

A pytest worker lives for hundreds of tests and keeps what they load: the modules, hypothesis's
state, and Textual's caches of rendered lines (a quarter of a million objects after a few app
tests). CPython's collector walks every object it tracks at each full collection, so a worker's
full collections grew with what it had kept, not with what its tests made: measured over one run,
a fifth of the workers' CPU went to collecting (63 of 455 CPU-seconds in full collections alone),
and pytest's five collections at the end of each worker's session cost 2 s more.

`gc.freeze()` moves every tracked object to a generation the collector never walks: what a worker
keeps is collected once (`gc.collect()`: nothing a test left as garbage is frozen with it) and
frozen after collection, and again after a test whenever what has outlived collections since has
grown past `LIMIT` objects. Each test's own garbage is collected as before, by the same
collector, with the same thresholds; a frozen object that becomes garbage is still freed when
nothing refers to it (an evicted cache entry). A program runs one app per process and never
freezes: nothing of the product changes."""

from __future__ import annotations

import gc

import pytest

# objects outliving collections since the last freeze, past which the next test's end collects
# and freezes them (a collection of this many costs about 20 ms; on three heavy files, limits of
# 5,000, 20,000 and 60,000 saved alike, 150,000 less)
LIMIT = 20_000


def freeze_what_is_kept() -> None:
    gc.collect()
    gc.freeze()


class FrozenHeap:
    """The plugin: freeze after collection, then after any test past which the heap grew."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self) -> None:
        freeze_what_is_kept()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self) -> None:  # after the test's teardown
        if len(gc.get_objects(generation=2)) > LIMIT:
            freeze_what_is_kept()
