"""No run of six characters of a secret reaches the editor's raw view, its save diff, its form or
a screenshot, whatever TOML spelling holds the secret: basic, literal and both multi-line
strings, escapes, inline tables, dotted and quoted keys, arrays of tables."""

from __future__ import annotations

import pytest
import tomlkit
from hypothesis import assume, example, given, settings, strategies as st

from tests.app.helpers import screen_name, screen_text, wait_for
from tui.app import AssistantAuthApp
from tui.core.config.edit import mask_secrets, masked_diff

FORMS = ("basic", "literal", "multiline", "multiline-literal")
SHAPES = ("table", "inline", "dotted", "quoted", "array-of-tables")


def literal(value: str, form: str) -> str:
    item = tomlkit.string(
        value, literal=form in ("literal", "multiline-literal"), multiline=form.startswith("multiline")
    )
    return item.as_string()


def document(secret_toml: str, shape: str, note: str = "n") -> str:
    if shape == "table":
        return f'# mine\n[providers.p]\nbase_url = "https://p.example/v1"\napi_key = {secret_toml}\nnote = "{note}"\n'
    if shape == "inline":
        return f'[providers]\np = {{ base_url = "https://p.example/v1", api_key = {secret_toml}, note = "{note}" }}\n'
    if shape == "dotted":
        return f'providers.p.base_url = "https://p.example/v1"\nproviders.p.api_key = {secret_toml}\nproviders.p.note = "{note}"\n'
    if shape == "quoted":
        return f'[providers."p"]\n"api_key" = {secret_toml}\n"note" = "{note}"\n'
    return f'[[providers.list]]\napi_key = {secret_toml}\nnote = "{note}"\n'


def fits(value: str, form: str) -> bool:
    if form == "literal":
        return "'" not in value and value.isprintable()
    if form == "multiline-literal":
        return "'''" not in value and not value.endswith("'") and all(ch.isprintable() or ch == "\n" for ch in value)
    return True


def runs(text: str, size: int = 6) -> set[str]:
    return {text[i : i + size] for i in range(len(text) - size + 1)}


def leaked(secret: str, raw: str, shown: str, skeleton: str) -> set[str]:
    """The 6-character runs of the secret (as a value, and as the TOML spells it between its
    quotes) in `shown`, leaving out runs the surrounding file holds anyway."""
    quotes = 3 if raw[:3] in ('"""', "'''") else 1
    # a run of the spelling that holds an escape may stand for fewer than six characters (the
    # mask's four, re-escaped): those are judged by the value's own runs
    spelled = {run for run in runs(raw[quotes:-quotes]) if "\\" not in run}
    return {run for run in runs(secret) | spelled if run in shown and run not in skeleton}


secrets = st.text(
    alphabet=st.characters(blacklist_categories=["Cs", "Cc"], blacklist_characters="\u2028\u2029\x85")
    | st.sampled_from(["\n", '"', "\\", "'", "\t"]),
    min_size=13,
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(secret=secrets, form=st.sampled_from(FORMS), shape=st.sampled_from(SHAPES))
@example(secret="sk-secret-line-one\nsk-secret-line-two", form="multiline", shape="table")
@example(secret="sk-'quoted'\"and\\escaped\"", form="basic", shape="inline")
@example(secret="sk-literal-secret-value", form="literal", shape="dotted")
@example(secret="sk-one\nsk-two-secret-tail", form="multiline-literal", shape="array-of-tables")
def test_no_run_of_a_secret_reaches_the_raw_view_or_the_diff(secret, form, shape):
    assume(fits(secret, form) and secret.strip())
    raw = literal(secret, form)
    text = document(raw, shape)
    skeleton = document('""', shape) + "•…(changed) --- config.toml (on disk) +++ config.toml (edited) @@"
    assume(not (runs(secret) & runs(skeleton)))
    assert not leaked(secret, raw, mask_secrets(text), skeleton)
    edited = document(raw, shape, note="edited")
    assert not leaked(secret, raw, masked_diff(text, edited), skeleton)
    rotated = document(literal(secret[::-1], form) if fits(secret[::-1], form) else '"other"', shape)
    diff = masked_diff(text, rotated)
    assert not leaked(secret, raw, diff, skeleton)


def test_a_changed_secret_still_shows_as_a_change():
    old = document(literal("sk-aaaa-middle-one-zzzz", "basic"), "table")
    new = document(literal("sk-aaaa-middle-two-zzzz", "basic"), "table")
    diff = masked_diff(old, new)
    assert "(changed)" in diff and "middle" not in diff


@pytest.mark.parametrize("form", FORMS)
async def test_the_form_the_raw_view_and_the_save_diff_show_no_secret(home, form):
    secret = "sk-Q7zX9pL2mN\nsk-W4vB8rT6yK" if form.startswith("multiline") else "sk-Q7zX9pL2mNW4vB8rT6yK"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(document(literal(secret, form), "table"))
    app = AssistantAuthApp(start="providers")
    shots = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen")
        await wait_for(pilot, lambda: "base_url" in screen_text(app))
        shots.append(screen_text(app))
        await pilot.press("f2")
        await wait_for(pilot, lambda: "api_key" in screen_text(app))
        shots.append(screen_text(app))
        await pilot.press("f2")
        app.screen.query_one("#field-note").value = "edited"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        shots.append(screen_text(app))
        await pilot.press("n")
    skeleton = document('""', "table")
    for shot in shots:
        assert not {run for run in runs(secret) if run in shot and run not in skeleton}
