"""The reader's language: chosen from the environment as gettext reads it, English as the source
and the fallback, and a catalog that keeps up with the code."""

from __future__ import annotations

import gettext
import io
import os
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from tui.core.text import i18n
from tui.core.text.msgfmt import compile_po, parse_po
from tui.dev import messages

LOCALE_VARIABLES = ("ASSISTANT_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def environment(monkeypatch):
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)

    def set_to(**values: str) -> str:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        return i18n.language()

    return set_to


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
        ({"LANG": "zh_SG.UTF-8"}, "zh-CN"),
        ({"LANG": "zh_Hans"}, "zh-CN"),
        ({"LANG": "zh"}, "zh-CN"),
        ({"LANG": "zh_TW.UTF-8"}, "en"),  # Traditional Chinese: not Simplified
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "zh-CN"),
        ({"LC_MESSAGES": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"),  # LC_ALL first; C wins
        ({"LC_ALL": "C", "LANGUAGE": "zh_CN"}, "en"),  # gettext ignores LANGUAGE in the C locale
        ({"LANG": "en_US.UTF-8", "LANGUAGE": "zh_CN:en"}, "zh-CN"),
        ({"LANG": "zh_CN.UTF-8", "LANGUAGE": "fr:en"}, "en"),  # the first language we speak
        ({"LANG": "zh_CN.UTF-8", "ASSISTANT_LANG": "en"}, "en"),  # the explicit setting wins
        ({"LANG": "C", "ASSISTANT_LANG": "zh-CN"}, "zh-CN"),
        ({"LANG": "zh_CN.UTF-8", "ASSISTANT_LANG": "klingon"}, "zh-CN"),  # not a choice: the locale decides
    ],
)
def test_the_language_follows_the_environment_as_gettext_reads_it(environment, values, expected):
    assert environment(**values) == expected


def test_english_is_the_source_and_a_missing_translation_shows_it(environment):
    environment(ASSISTANT_LANG="en")
    assert i18n._("Not signed in") == "Not signed in"
    environment(ASSISTANT_LANG="zh-CN")
    assert i18n._("Not signed in") == "未登录"
    assert i18n._("A sentence no catalog has") == "A sentence no catalog has"  # never a message id


def test_every_marked_string_is_translated_with_its_placeholders():
    """A new string marked for translation fails here until the Chinese catalog has it."""
    marked = messages.marked_strings()
    assert len({m.msgid for m in marked}) >= 60
    catalogs = messages.catalogs()
    assert set(catalogs) == {"zh_CN"}
    assert messages.problems(catalogs["zh_CN"], marked) == []


def test_the_completeness_check_is_not_vacuous(tmp_path):
    source = tmp_path / "tui"
    source.mkdir()
    (source / "m.py").write_text('x = _("Hello {name}")\ny = N_("Bye")\nz = _(variable)\n')
    marked = messages.marked_strings(source)
    assert [m.msgid for m in marked] == ["Hello {name}", "Bye"]
    po = tmp_path / "x.po"
    po.write_text('msgid "Hello {name}"\nmsgstr "你好 {nom}"\n\n#, fuzzy\nmsgid "Old"\nmsgstr "旧"\n')
    found = messages.problems(po, marked)
    assert any("placeholders differ" in p for p in found)
    assert any("missing: 'Bye'" in p for p in found)
    assert any("stale" in p and "Old" in p for p in found)


def test_compiled_catalogs_read_back_through_gettext():
    text = (
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
        'msgid "One"\nmsgstr "一"\n\n'
        'msgid "Two\\nlines"\nmsgstr ""\n"两\\n"\n"行"\n\n'
        '#, fuzzy\nmsgid "Guess"\nmsgstr "猜"\n\n'
        'msgid "Empty"\nmsgstr ""\n\n'
        'msgid "{n} poll"\nmsgid_plural "{n} polls"\nmsgstr[0] "{n} 次轮询"\n'
    )
    catalog = gettext.GNUTranslations(io.BytesIO(compile_po(text)))
    assert catalog.gettext("One") == "一"
    assert catalog.gettext("Two\nlines") == "两\n行"
    assert catalog.gettext("Guess") == "Guess"  # fuzzy: left out, as msgfmt does
    assert catalog.gettext("Empty") == "Empty"
    assert catalog.ngettext("{n} poll", "{n} polls", 3) == "{n} 次轮询"


printable = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=40)


@given(st.dictionaries(printable, printable, max_size=8))
def test_any_catalog_round_trips(pairs):
    quoted = "".join(f"msgid {messages._quote(k)}\nmsgstr {messages._quote(v)}\n\n" for k, v in pairs.items())
    header = 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    assert {e.msgid: e.msgstr[0] for e in parse_po(header + quoted) if e.msgid} == pairs
    catalog = gettext.GNUTranslations(io.BytesIO(compile_po(header + quoted)))
    for key, value in pairs.items():
        assert catalog.gettext(key) == value


def test_the_token_path_never_loads_the_catalogs(tmp_path):
    """`token` prints a token for programs: translation machinery stays off its hot path, in any
    language."""
    from tests.conftest import write_creds

    write_creds(tmp_path, {"access_token": "tok", "expires_at": 4_000_000_000})
    code = "import sys; from tui.cli import main; main(['token']); print('tui.core.text.i18n' in sys.modules)"
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(tmp_path), "LANG": "zh_CN.UTF-8"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip().splitlines() == ["tok", "False"]


def test_a_missing_catalog_means_english(environment, monkeypatch):
    monkeypatch.setattr(i18n, "_loaded", {})
    monkeypatch.setitem(i18n._CATALOG_DIR, i18n.CHINESE, "xx_NONE")
    environment(ASSISTANT_LANG="zh-CN")
    assert i18n._("Not signed in") == "Not signed in"


def test_a_phrase_is_english_as_text_and_said_in_the_readers_language(environment):
    import json

    from tui.core.spec.hints import unreachable
    from tui.core.text.phrase import Phrase, said

    hint = unreachable("https://auth.example.test/api/oauth/token")
    english = (
        "Nothing answered at auth.example.test: check the host, your network or VPN, and a proxy (HTTPS_PROXY) "
        "if you need one; `assistant-auth doctor` tests it."
    )
    environment(LANG="zh_CN.UTF-8")
    assert isinstance(hint, Phrase) and hint == english and json.dumps(hint) == json.dumps(english)
    assert (
        said(hint)
        == "auth.example.test没有应答：请检查主机、网络或 VPN，如需代理请检查代理（HTTPS_PROXY）；`assistant-auth doctor` 可以检测它。"
    )
    assert said("text from a server") == "text from a server"  # only our phrases are translated
    environment(LANG="C.UTF-8")
    assert said(hint) == english


@given(
    width=st.integers(min_value=2, max_value=120),
    polls=st.integers(min_value=0, max_value=10**6),
    slow_downs=st.integers(min_value=0, max_value=10**3),
    interval=st.integers(min_value=1, max_value=3600),
)
def test_the_plain_live_line_fits_the_terminal_in_chinese(width, polls, slow_downs, interval):
    from types import SimpleNamespace

    from tui.cli.login_plain import live_line
    from tui.core.text.textwidth import cells

    attempt = SimpleNamespace(countdown=lambda: "14:59", interval=interval, polls=polls, slow_downs=slow_downs)
    before = os.environ.get("ASSISTANT_LANG")  # restored below: hypothesis runs the body many times
    os.environ["ASSISTANT_LANG"] = "zh-CN"
    try:
        line = live_line(attempt, width)
    finally:
        if before is None:
            del os.environ["ASSISTANT_LANG"]
        else:
            os.environ["ASSISTANT_LANG"] = before
    assert cells(line) <= width - 1
    assert line.startswith("等待授权"[: max(width - 1, 1) // 2])  # a wide character is never halved


def test_terminal_cells_count_wide_characters_twice():
    from tui.core.text.textwidth import cells, cut

    assert cells("验证码：AB-12") == 2 * 4 + 5
    assert cells("e\u0301") == 1  # a combining accent takes no cell
    assert cut("验证码", 5) == "验证" and cut("验证码", 6) == "验证码" and cut("ab", 0) == ""


async def test_english_is_forced_only_in_its_own_context(environment):
    """`in_english` (doctor's findings) holds inside its task and the threads it starts, never in
    a face drawing beside it."""
    import asyncio

    environment(LANG="zh_CN.UTF-8")
    inside = asyncio.Event()
    release = asyncio.Event()

    async def making_data() -> list[str]:
        with i18n.in_english():
            inside.set()
            await release.wait()
            return [i18n._("Signed in"), await asyncio.to_thread(i18n._, "Signed in")]

    task = asyncio.create_task(making_data())
    await inside.wait()
    assert i18n._("Signed in") == "已登录"  # the face beside it keeps the reader's language
    release.set()
    assert await task == ["Signed in", "Signed in"]
    assert i18n._("Signed in") == "已登录"
