"""The cross-terminal record on its own: one typed reader for whatever JSON is on disk, trust only
in the person's own private files, the atomic join, and a follower's next move."""

from __future__ import annotations

import json
import os
import time

import pytest
from hypothesis import given, strategies as st

from tests.conftest import needs_root
from tui.core.signin import follow, shown
from tui.core.signin.follow import (
    JOIN_SLACK,
    Joined,
    Lease,
    Record,
    Role,
    Watch,
    watch_step,
)
from tui.core.spec.regions import Region

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=20,
)
FIELDS = [
    "state",
    "region",
    "started_at",
    "attempt",
    "deadline",
    "ends_as",
    "device_code",
    "user_code",
    "verification_uri",
    "verification_uri_complete",
    "interval",
    "last_poll",
    "polls",
    "slow_downs",
    "poller_pid",
    "detached",
    "outcome",
    "identity",
    "detail",
    "seen",
    "ended_at",
]


@given(
    st.one_of(
        JSON,
        st.fixed_dictionaries({}, optional={name: JSON for name in FIELDS}),
        st.fixed_dictionaries(
            {
                "state": st.sampled_from(follow.STATES),
                "region": st.sampled_from(["cn", "global"]),
                "started_at": st.floats() | st.integers(),
            },
            optional={name: JSON for name in FIELDS[3:]},
        ),
    )
)
def test_any_json_is_a_typed_record_or_none(data):
    """Wrong-typed fields are dropped, never raised on: `polls: "x"` never reaches "unexpected error"."""
    record = Record.parse(data)
    if record is None:
        return
    assert isinstance(record.region, Region) and record.state in follow.STATES
    assert isinstance(record.polls, int) and isinstance(record.slow_downs, int)
    assert record.interval is None or (isinstance(record.interval, int) and record.interval > 0)
    assert isinstance(record.deadline, float) and isinstance(record.detached, bool)
    assert record.state != follow.PENDING or (record.device_code and record.user_code)
    json.dumps(record.to_json())  # what is read can be written back
    assert Record.parse(record.to_json()) is not None


def pending_record(**changes) -> Record:
    now = time.time()
    fields = dict(
        state=follow.PENDING,
        region=Region.CN,
        started_at=now,
        attempt="a1",
        deadline=now + 600,
        device_code="planted-device-code",
        user_code="PLAN-TED1",
        interval=5,
    )
    fields.update(changes)
    return Record(**fields)


def test_a_record_of_ours_is_read_back(home):
    follow.write(pending_record())
    record = follow.load(Region.CN)
    assert record is not None and record.is_live() and record.user_code == "PLAN-TED1"


def test_a_wrong_typed_field_is_ignored_like_interval(home):
    follow.write(pending_record())
    path = home / "signin" / "cn.json"
    data = json.loads(path.read_text())
    data["polls"], data["interval"] = "x", "five"
    path.write_text(json.dumps(data))
    record = follow.load(Region.CN)
    assert record is not None and record.polls == 0 and record.interval is None


@needs_root
def test_another_users_record_is_never_trusted(home):
    follow.write(pending_record())
    os.chown(home / "signin" / "cn.json", 65534, 65534)
    with pytest.raises(follow.RecordProblem, match="belongs to another user"):
        follow.load(Region.CN)
    assert follow.read(Region.CN) is None and shown.waiting() == []
    joined = follow.join(Lease(Region.CN))
    assert joined.role is Role.ALONE and "another user" in (joined.problem or "")


def test_a_record_in_a_directory_others_can_write_is_never_trusted(home):
    follow.write(pending_record())
    os.chmod(home / "signin", 0o777)
    with pytest.raises(follow.RecordProblem, match="writable by others"):
        follow.load(Region.CN)
    lease = Lease(Region.CN)
    joined = follow.join(lease)
    assert joined.role is Role.ALONE and not lease.held


def test_a_record_others_can_write_is_never_trusted(home):
    follow.write(pending_record())
    os.chmod(home / "signin" / "cn.json", 0o666)
    with pytest.raises(follow.RecordProblem, match="writable by others"):
        follow.load(Region.CN)


def test_a_link_for_a_lock_is_passed_over_and_the_lease_still_excludes(home, tmp_path):
    """A link at `cn.lock` is never followed; the lease is taken on `cn.lease` alone, and it still
    decides who leads. Only when neither name can hold it is the attempt alone."""
    (home / "signin").mkdir(parents=True, mode=0o700)
    (home / "signin" / "cn.lock").symlink_to(tmp_path / "elsewhere")
    first, second = Lease(Region.CN), Lease(Region.CN)
    assert follow.join(first).role is Role.LEAD
    assert follow.join(second).role is Role.FOLLOW
    assert not (tmp_path / "elsewhere").exists()
    first.release()
    (home / "signin" / "cn.lease").unlink()
    (home / "signin" / "cn.lease").symlink_to(tmp_path / "elsewhere")
    joined = follow.join(Lease(Region.CN))
    assert joined.role is Role.ALONE and "cn.lock" in (joined.problem or "") and "cn.lease" in (joined.problem or "")
    assert not (tmp_path / "elsewhere").exists()


def test_join_leads_takes_over_or_follows(home):
    first, second = Lease(Region.CN), Lease(Region.CN)
    assert follow.join(first).role is Role.LEAD
    assert follow.join(second).role is Role.FOLLOW  # the lease alone decides
    follow.write(pending_record())
    first.release()
    joined = follow.join(second)
    assert joined.role is Role.TAKE_OVER and joined.record.attempt == "a1"
    second.release()


def test_watch_step():
    joined = Joined(Role.FOLLOW, at=1000.0)
    live = pending_record()
    ended = Record(follow.ENDED, Region.CN, 1000.0, "a1", outcome="success")
    old = Record(follow.ENDED, Region.CN, 1000.0 - JOIN_SLACK - 60, "a0", outcome="success")
    assert watch_step(False, live, joined, "a1") is Watch.WAIT
    assert watch_step(True, live, joined, "a1") is Watch.TAKE_OVER
    assert watch_step(False, ended, joined, "a1") is Watch.ENDED
    assert watch_step(True, ended, joined, "a1") is Watch.ENDED
    assert watch_step(False, ended, joined, "") is Watch.ENDED  # ended after we joined, before we saw it
    assert watch_step(False, old, joined, "") is Watch.WAIT  # an earlier attempt's end: the new one is on its way
    assert watch_step(True, old, joined, "") is Watch.START
    assert watch_step(True, None, joined, "") is Watch.START  # the leader died before it had a code
