"""Where the relay writes on a server (#52): the rule as a table, every case of it."""

from __future__ import annotations

import pytest

from tui.core.agent.client.relay import Verdict
from tui.core.agent.client.relay_target import Here, Refused, Target, target
from tui.core.spec.keys import account_slot, region_storage_name
from tui.core.spec.regions import Region

CN, GLOBAL = Region.CN, Region.GLOBAL


@pytest.mark.parametrize("verdict", [Verdict.EMPTY, Verdict.RELAYED, Verdict.SIGNED_IN, Verdict.DAMAGED])
def test_the_slot_the_official_client_reads_is_filled_when_its_region_is_the_tokens(verdict):
    read = region_storage_name("cn")
    assert target(CN, Here(read, {read: verdict})) == Target(read)
    named = account_slot("cn", "team")  # a named account of this machine, in the token's region
    assert target(CN, Here(named, {})) == Target(named)


def test_an_unknown_region_fills_what_the_official_client_reads_as_before():
    read = region_storage_name("cn")
    assert target(None, Here(read, {})) == Target(read)


@pytest.mark.parametrize("verdict", [Verdict.EMPTY, Verdict.RELAYED])
def test_another_regions_slot_with_nothing_of_this_machines_own_is_pointed_away_from(verdict):
    read = region_storage_name("cn")
    assert target(GLOBAL, Here(read, {read: verdict})) == Target(region_storage_name("global"), point=GLOBAL)
    back = region_storage_name("global")
    assert target(CN, Here(back, {back: verdict})) == Target(region_storage_name("cn"), point=CN)


def test_a_sign_in_of_this_machine_is_never_moved_off():
    read = account_slot("cn", "mine")
    with pytest.raises(Refused) as refused:
        target(GLOBAL, Here(read, {read: Verdict.SIGNED_IN}))
    text = str(refused.value.phrase)
    assert "mine (cn)" in text and "assistant-auth logout --account mine --region cn" in text
    assert "\n" not in text


def test_a_slot_named_here_is_filled_only_with_a_token_of_its_region():
    cn_slot = region_storage_name("cn")
    assert target(CN, Here(cn_slot, {}), named_slot=cn_slot) == Target(cn_slot)
    assert target(None, Here(cn_slot, {}), named_slot=cn_slot) == Target(cn_slot)
    with pytest.raises(Refused) as refused:
        target(GLOBAL, Here(cn_slot, {}), named_slot=cn_slot)
    assert "the official client here would send the token to the cn API" in str(refused.value.phrase)
    custom = "assistant-code-env-0123456789abcdef"  # no region known: as asked
    assert target(GLOBAL, Here(cn_slot, {}), named_slot=custom) == Target(custom)
