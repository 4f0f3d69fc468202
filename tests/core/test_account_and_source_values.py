"""#59's values, attacked over their whole input space (hypothesis): an account as a value
(`AccountRef`), the one account-selection rule (`account_region`), where tokens come from as an
enum (`Source`, from an agent's `ping` of any shape: never this machine's own agent unless it names
this home), and the one `token --json` record (`Granted.record`: the fields of its schema, never
a refresh token)."""

from __future__ import annotations

import pickle
import string

from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import write_creds
from tui.core.agent.client import trouble
from tui.core.agent.served import Source, source_of
from tui.core.credentials.issued import from_answer, from_files
from tui.core.errors import Problem
from tui.core.slots.lookup import account_region
from tui.core.spec import paths
from tui.core.spec.keys import DEFAULT_ACCOUNT, AccountRef, account_of_slot, account_slot, valid_account_name
from tui.core.spec.settings import REGIONS

names = st.text(alphabet=string.ascii_lowercase + string.digits + "-_", min_size=1, max_size=32).filter(
    valid_account_name
)
regions = st.sampled_from(REGIONS)
# `home` only points the settings and paths at a temporary directory: nothing an example changes
ONE_HOME = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@ONE_HOME
@given(regions, names)
def test_an_account_is_its_slot_and_its_slot_is_the_account(home, region, name):
    account = account_of_slot(account_slot(region, name))
    assert account == AccountRef(region, name) == (region, name)
    assert account.region == region and account.name == name and account.slot == account_slot(region, name)
    assert account.label == f"{name} ({region})"
    assert pickle.loads(pickle.dumps(account)) == account  # noqa: S301 - our own bytes, made on the line
    region_word, its_name = account  # still unpacks as the pair it was
    assert (region_word, its_name) == (region, name)
    if name == DEFAULT_ACCOUNT:
        assert account.is_default and "--account" not in account.login_command
    else:
        assert account.login_command == f"assistant-auth login --account {name} --region {region}"


@ONE_HOME
@given(st.text(max_size=60))
def test_any_slot_name_is_an_account_or_none_never_an_error(home, storage_name):
    account = account_of_slot(storage_name)
    assert account is None or (account.region in REGIONS and account.slot == storage_name)


@given(st.lists(regions, unique=True), st.none() | regions)
def test_the_account_rule_is_the_one_both_sides_had(where, region):
    """The files' rule and the listing's, as each was written before they became one."""
    found, problem = account_region(where, region)
    narrowed = [r for r in where if region in (None, r)]
    if len(narrowed) == 1:
        assert (found, problem) == (narrowed[0], None)
    else:
        expected = Problem.AMBIGUOUS_ACCOUNT if narrowed else Problem.UNKNOWN_ACCOUNT
        assert (found, problem) == (None, expected)


@ONE_HOME
@given(st.dictionaries(st.sampled_from(["asked_from", "home", "pid", "v"]), anything, max_size=4))
def test_a_ping_of_any_shape_is_this_homes_agent_only_when_it_names_this_home(home, ping):
    source = source_of(ping, trouble._serves_this_home(ping))
    assert isinstance(source, Source)
    if source is Source.AGENT_HERE:
        assert ping.get("asked_from") != "forwarded" and ping.get("home") == paths.config_dir_str()
    assert source.elsewhere == (source is not Source.AGENT_HERE)


def test_this_homes_agent_asked_here_is_here(home):
    ping = {"home": paths.config_dir_str(), "asked_from": "local"}
    assert source_of(ping, trouble._serves_this_home(ping)) is Source.AGENT_HERE
    assert source_of({**ping, "asked_from": "forwarded"}, True) is Source.FORWARDED


SCHEMA = ("schema_version", "access_token", "expires_at", "expires_in", "region", "slot", "account", "identity")


@ONE_HOME
@given(st.dictionaries(st.text(max_size=15), anything, max_size=6), st.floats(0, 2e9) | st.none())
def test_a_record_has_its_schema_and_never_a_refresh_token(home, answer, now):
    answer = {**answer, "refresh_token": "RT-never-shown"}
    record = from_answer(answer, "AT-token").record(now)
    assert tuple(record) == (*SCHEMA, "agent") and record["agent"] is True
    assert "RT-never-shown" not in repr(record)
    assert record["expires_at"] is None or isinstance(record["expires_at"], int)


def test_a_grant_from_the_files_names_its_account(home):
    slot = account_slot("global", "work")
    write_creds(home, {"access_token": "AT", "refresh_token": "RT", "expires_at": 2_000_000_000}, name=slot)
    record = from_files("AT", slot).record(now=1_999_999_000.0)
    assert tuple(record) == SCHEMA and "RT" not in repr(record)
    assert (record["region"], record["account"], record["expires_in"]) == ("global", "work", 1000)
    assert from_files("another token", slot).record()["expires_at"] is None  # the file holds another one


def test_a_grant_from_an_agent_keeps_what_the_agent_said():
    """The region and identity as the agent's side said them (its settings may differ from this
    machine's); anything of another type is unknown, never a crash."""
    answer = {"slot": "assistant-code-env-0123456789abcdef", "region": "global", "identity": "alice", "expires_at": 7}
    record = from_answer(answer, "AT").record(now=0)
    assert (record["region"], record["identity"], record["expires_at"], record["agent"]) == ("global", "alice", 7, True)
    odd = from_answer({"slot": 5, "region": ["cn"], "identity": {}, "expires_at": "soon"}, "AT").record()
    assert (odd["slot"], odd["region"], odd["identity"], odd["expires_at"]) == (None, None, None, None)
