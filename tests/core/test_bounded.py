"""`within` (tui.core.bounded) bounds a wait and never loses the caller's cancel.

Found as a suite flake: a `login --no-tui` sent SIGTERM did not end. SIGTERM cancels the sign-in's
task; when the poll's answer arrived in the same turn of the event loop, Python 3.10/3.11's
`asyncio.wait_for` returned the answer and dropped the cancel, and the sign-in polled on until its
code expired. The cancels here arrive exactly so: from inside the request, as it is answered."""

from __future__ import annotations

import ast
import asyncio
import gc
import pathlib

import httpx
import pytest

from tests.source_tree import nodes_of
from tui.core.bounded import within
from tui.core.http import post_form

URL = "https://auth.example/api/oauth/token"
PROGRAM = pathlib.Path(__file__).resolve().parents[2] / "tui"


async def test_a_cancel_that_comes_with_the_answer_cancels_the_request():
    task: asyncio.Task | None = None

    def answer(request: httpx.Request) -> httpx.Response:
        assert task is not None
        task.cancel()  # the signal's cancel, in the same turn as the answer
        return httpx.Response(400, json={"error": "authorization_pending"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        task = asyncio.ensure_future(post_form(client, URL, {"grant_type": "x"}, None, "Token polling request failed"))
        with pytest.raises(asyncio.CancelledError):
            await task
    assert task.cancelled()


async def test_a_cancel_that_comes_with_the_result_is_raised_not_swallowed():
    outer: asyncio.Task | None = None

    async def work() -> str:
        assert outer is not None
        outer.cancel()
        return "done"

    outer = asyncio.ensure_future(within(work(), 10))
    with pytest.raises(asyncio.CancelledError):
        await outer


async def test_a_cancel_while_waiting_cancels_the_work_and_waits_for_it_to_end():
    started, ended = asyncio.Event(), asyncio.Event()

    async def work() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            await asyncio.sleep(0)  # its own clean-up takes a turn of the loop
            ended.set()

    outer = asyncio.ensure_future(within(work(), 3600))
    await started.wait()
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert ended.is_set()  # never left running after the caller was told


async def test_past_its_seconds_the_work_is_cancelled_and_timeout_is_raised():
    ended = asyncio.Event()

    async def work() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            ended.set()

    with pytest.raises(asyncio.TimeoutError):
        await within(work(), 0.01)
    assert ended.is_set()


async def test_the_result_and_the_works_own_error_come_through():
    async def value() -> int:
        return 7

    async def fails() -> None:
        raise ValueError("bad line")

    assert await within(value(), 10) == 7
    assert await within(value(), None) == 7
    with pytest.raises(ValueError, match="bad line"):
        await within(fails(), 10)


async def test_an_error_of_the_cancelled_work_is_retrieved(caplog):
    """A timeout whose work then fails on its way out: no "exception was never retrieved"."""

    async def work() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            raise RuntimeError("while cancelled")  # noqa: B012 - the point of the test

    with pytest.raises(asyncio.TimeoutError):
        await within(work(), 0.01)
    gc.collect()
    await asyncio.sleep(0)
    assert "never retrieved" not in caplog.text


def test_the_program_never_calls_wait_for():
    """Every bounded wait in `tui` goes through `within`: 3.10/3.11's wait_for can lose a cancel."""
    calls = []
    for path in sorted(PROGRAM.rglob("*.py")):
        for node in nodes_of(path):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "wait_for"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "asyncio"
            ):
                calls.append(f"{path}:{node.lineno}")
    assert calls == []
