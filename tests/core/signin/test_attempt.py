"""The sign-in attempt as a state machine: every allowed transition is taken, every other one is
refused; one deadline (the code's own lifetime) ends every wait with "expired"."""

from __future__ import annotations

import httpx
import pytest
import respx

from tests.conftest import CN_HOST
from tests.core.signin.test_protocol import DEVICE_URL, TOKEN_URL, TOKENS, FakeTime, err
from tui.core.signin import follow
from tui.core.signin.attempt import TRANSITIONS, InvalidTransition, Phase, SignIn
from tui.core.spec.regions import Region

PAIRS = [(a, b) for a in Phase for b in Phase]


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{a.value}->{b.value}" for a, b in PAIRS])
def test_every_transition_is_in_the_table_or_refused(source, target):
    attempt = SignIn(Region.CN)
    attempt.phase = source
    if target in TRANSITIONS[source]:
        attempt._to(target)
        assert attempt.phase is target
    else:
        with pytest.raises(InvalidTransition, match=f"{source.value} -> {target.value}"):
            attempt._to(target)
        assert attempt.phase is source


def test_the_table_names_every_phase_and_nothing_leaves_a_dead_end():
    assert set(TRANSITIONS) == set(Phase)
    reachable = {Phase.NEW}
    for _ in Phase:
        reachable |= {t for s in reachable for t in TRANSITIONS[s]}
    assert reachable == set(Phase)
    assert Phase.NEW not in {t for targets in TRANSITIONS.values() for t in targets}  # nothing goes back to new


def code(expires_in=900, interval=1):
    return httpx.Response(
        200,
        json={
            "user_code": "ABCD-EFGH",
            "device_code": "dc-1",
            "verification_uri": "https://v.test",
            "expires_in": expires_in,
            "interval": interval,
        },
    )


@respx.mock
async def test_an_approved_attempt_walks_the_phases_in_order(home):
    respx.post(DEVICE_URL).mock(return_value=code())
    respx.post(TOKEN_URL).mock(side_effect=[err("authorization_pending"), httpx.Response(200, json=TOKENS)])
    t = FakeTime()
    attempt = SignIn(Region.CN, client=None, clock=t.clock, sleep=t.sleep, detachable=False)
    phases = []
    original = attempt._to

    def spy(phase):
        original(phase)
        phases.append(phase)

    attempt._to = spy
    outcome = await attempt.run()
    assert outcome.success
    assert phases == [
        Phase.REQUESTING,
        Phase.WAITING,
        Phase.POLLING,
        Phase.WAITING,
        Phase.POLLING,
        Phase.SAVING,
        Phase.ENDED,
    ]
    assert not attempt.shared.lease.held  # the lease goes with the end
    record = follow.read(Region.CN)
    assert record is not None and record.state == follow.ENDED and record.outcome == "success"


@respx.mock
async def test_the_codes_own_lifetime_ends_the_wait_as_expired(home):
    """A server that keeps saying authorization_pending past the code's life: polling stops at
    the code's deadline (4 s), not 15 minutes after the first poll, and the outcome is "expired"."""
    respx.post(DEVICE_URL).mock(return_value=code(expires_in=4))
    polls = respx.post(TOKEN_URL).mock(return_value=err("authorization_pending"))
    t = FakeTime()
    attempt = SignIn(Region.CN, clock=t.clock, sleep=t.sleep, detachable=False)
    outcome = await attempt.run()
    assert outcome.kind == "expired"
    assert polls.call_count <= 4 and t.now - 1000.0 <= 4
    assert follow.read(Region.CN).outcome == "expired"


@respx.mock
async def test_without_a_lifetime_the_specs_budget_ends_it_as_timeout(home):
    respx.post(DEVICE_URL).mock(
        return_value=httpx.Response(200, json={"user_code": "U", "device_code": "dc", "interval": 60})
    )
    respx.post(TOKEN_URL).mock(return_value=err("authorization_pending"))
    t = FakeTime()
    outcome = await SignIn(Region.CN, clock=t.clock, sleep=t.sleep, detachable=False).run()
    assert outcome.kind == "timeout" and t.now - 1000.0 <= 15 * 60


@respx.mock
async def test_a_detached_attempt_retrying_trouble_stops_at_the_codes_deadline(home):
    """Without a terminal, network trouble is retried until the deadline, then "expired" (never
    "did not complete: Token polling request failed")."""
    respx.post(DEVICE_URL).mock(return_value=code(expires_in=4))
    respx.post(TOKEN_URL).mock(side_effect=httpx.ConnectError("down"))
    t = FakeTime()
    attempt = SignIn(Region.CN, clock=t.clock, sleep=t.sleep, detachable=True)
    attempt.BACK_OFF = 1.0
    await attempt.request_code()
    assert attempt.detach()
    outcome = await attempt.carry_on()
    assert t.now - 1000.0 <= 5
    assert outcome.kind == "expired"
    assert follow.read(Region.CN).outcome == "expired"


@pytest.mark.parametrize(
    "error",
    [RuntimeError("cannot schedule new futures after interpreter shutdown"), KeyError("dc-1"), AttributeError("?")],
    ids=["executor-shut-down", "key-error", "attribute-error"],
)
@respx.mock
async def test_an_unexpected_error_ends_a_detached_attempt_with_an_outcome(home, error):
    """An error no step expects (the resolver's executor refusing work while the interpreter
    shuts down, a bug) ends an attempt without a terminal as "error" on its record, the lease let
    go: never "pending" with nobody polling. The line carries no secret."""
    respx.post(DEVICE_URL).mock(return_value=code())
    respx.post(TOKEN_URL).mock(side_effect=[err("authorization_pending"), error])
    t = FakeTime()
    attempt = SignIn(Region.CN, clock=t.clock, sleep=t.sleep, detachable=True)
    await attempt.request_code()
    assert attempt.detach()
    outcome = await attempt.carry_on()
    assert outcome.kind == "error" and type(error).__name__ in outcome.error
    ended = follow.read(Region.CN)
    assert ended.state == follow.ENDED and ended.outcome == "error" and "unexpected error" in ended.detail
    assert "dc-1" not in (home / "signin" / "cn.json").read_text()
    assert not attempt.shared.lease.held


@respx.mock
async def test_an_unexpected_error_with_a_terminal_is_the_faces_to_report(home):
    """Attached, the face's error boundary reports it (and the lease goes with the process)."""
    respx.post(DEVICE_URL).mock(return_value=code())
    respx.post(TOKEN_URL).mock(side_effect=RuntimeError("boom"))
    t = FakeTime()
    attempt = SignIn(Region.CN, clock=t.clock, sleep=t.sleep, detachable=True)
    await attempt.request_code()
    with pytest.raises(RuntimeError):
        await attempt.poll()


@respx.mock
async def test_a_recorded_attempt_past_its_deadline_is_not_followed(home):
    respx.post(DEVICE_URL).mock(return_value=code(expires_in=4))
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json=TOKENS))
    first = SignIn(Region.CN)
    await first.request_code()
    first.shared.lease.release()  # its poller died
    record = follow.read(Region.CN)
    follow.write(follow.Record(**{**record.__dict__, "deadline": record.deadline - 10}))
    second = SignIn(Region.CN)
    outcome = await second.run()
    assert outcome.success and second.started_here  # a fresh attempt, not the dead one's code
    assert respx.calls.call_count == 3 and str(respx.calls[0].request.url).startswith(CN_HOST)
