"""`tui/dev/official_clients.py` measures the real official clients (with the registries: not in
`make test`); its parts that need no network are checked here: the harness built from a bundle's
regions, the stages against the relay's own timing, and the verdict."""

from __future__ import annotations

import pytest

from tui.core.agent.client.relay import OFFICIAL_THRESHOLD, RENEW_LEFT
from tui.dev import official_clients as tool

BUNDLE = """
//#region ../../packages/oauth/src/errors.ts
var OAuthError$1;
var init_errors$9 = __esmMin((() => { OAuthError$1 = class extends Error {}; }));
//#endregion
//#region ../../packages/oauth/src/storage.ts
var init_storage = __esmMin((() => { init_types$26(); init_utils$4(); }));
async function save() { await writeFile$1("x", ""); mkdirSync("d"); }
//#endregion
"""


def test_regions_are_taken_whole_and_a_missing_one_is_said():
    region = tool._region(BUNDLE, "../../packages/oauth/src/storage.ts")
    assert region.startswith("//#region ../../packages/oauth/src/storage.ts") and "writeFile$1" in region
    assert "//#endregion" not in region
    with pytest.raises(SystemExit, match="no region"):
        tool._region(BUNDLE, "../../packages/oauth/src/oauth-manager.ts")


def test_the_prelude_aliases_renamed_builtins_and_stubs_modules_outside_the_token_logic():
    code = tool._region(BUNDLE, "../../packages/oauth/src/errors.ts") + tool._region(
        BUNDLE, "../../packages/oauth/src/storage.ts"
    )
    prelude = tool._prelude(code)
    assert "const writeFile$1 = writeFile;" in prelude
    assert "function init_types$26() {}" in prelude and "function init_utils$4() {}" in prelude
    assert "function init_errors$9" not in prelude and "function init_storage" not in prelude  # defined by the code


def test_the_stages_bracket_the_relays_timing():
    left = {stage: at - tool.NOW for stage, at in tool.STAGES.items()}
    assert left["at renewal"] == RENEW_LEFT > OFFICIAL_THRESHOLD  # the relay renews before the clients act
    assert 0 < left["near expiry"] < OFFICIAL_THRESHOLD and left["expired"] < 0 < left["valid"]
    assert tool.relayed_file(5)["refresh_token"] == "" and tool.relayed_file(5)["expires_in"] == 0


def test_the_verdict_is_unsafe_when_a_file_is_touched_or_a_lock_left():
    fine = {"stage": "valid", "plain": {"token": tool.RELAYED_ACCESS}, "forced": {"error": "E: x"}}
    rows = [{**fine, "refresh_attempts": 0, "file": "unchanged", "lock_left": False}]
    assert tool.safe(rows) and "safe for the relay" in tool.report("c", "o", rows)
    for change in ({"file": "removed"}, {"file": "rewritten"}, {"lock_left": True}):
        bad = [{**rows[0], **change}]
        assert not tool.safe(bad) and "NOT SAFE" in tool.report("c", "o", bad)


def test_a_named_function_is_taken_whole_and_a_missing_one_is_said():
    bundle = "var x;\nfunction resolveKimiTokenStorageName(input) {\n\tif (a) { return 1; }\n\treturn 2;\n}\nfunction next() {}\n"
    taken = tool._function(bundle, "resolveKimiTokenStorageName")
    assert taken.strip().startswith("function resolveKimiTokenStorageName(") and taken.rstrip().endswith("}")
    assert "next" not in taken
    with pytest.raises(SystemExit, match="no function"):
        tool._function(bundle, "missing")


def test_the_accounts_verdict_needs_the_switched_to_file_read_and_refreshed_in_place():
    from tui.dev import official_accounts as accounts

    good = [
        {"sent": "access-rotated", "spent": ["refresh-work"], "changed": [accounts.WORK], "lock_left": False}
        | {"rotated_into": [accounts.WORK], "after": "login", "key": "k", "storage_name": accounts.WORK},
        {"sent": "access-personal", "spent": [], "changed": [], "rotated_into": [], "lock_left": False}
        | {"after": "switch", "key": "k", "storage_name": accounts.PERSONAL},
    ]
    assert accounts.follows(good) and "follows the account" in accounts.report("client", "here", good)
    fell_back = [dict(good[0], changed=["kimi-code"], rotated_into=["kimi-code"]), good[1]]
    assert not accounts.follows(fell_back) and "DOES NOT FOLLOW" in accounts.report("client", "here", fell_back)
    stale = [good[0], dict(good[1], sent="access-rotated")]
    assert not accounts.follows(stale)
