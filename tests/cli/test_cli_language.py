"""The command line in the locale's language: Simplified Chinese under LANG=zh_CN.UTF-8, English
under LANG=C.UTF-8, with machine output (JSON, exit codes, `token`'s stdout) the same in both and
the spec's messages word for word in both. Each run is the real program in a subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.cli.test_cli import run, valid
from tests.conftest import write_creds
from tui.core.text.msgfmt import compile_po

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
CHINESE, C = "zh_CN.UTF-8", "C.UTF-8"


@pytest.fixture
def locale(monkeypatch):
    """Set LANG as a person's shell does: nothing else chooses the language (the suite's own
    ASSISTANT_LANG=en is removed)."""
    for name in ("ASSISTANT_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)

    def set_lang(value: str) -> None:
        monkeypatch.setenv("LANG", value)

    return set_lang


def in_both(locale, *args: str, **kwargs):
    """(Chinese run, English run) of one command."""
    locale(CHINESE)
    chinese = run(*args, **kwargs)
    locale(C)
    english = run(*args, **kwargs)
    return chinese, english


def english_only(*outputs: str) -> None:
    for text in outputs:
        assert not CJK.search(text), text


def test_help_and_argparse_words_follow_the_locale(home, locale):
    chinese, english = in_both(locale, "--help")
    assert chinese.returncode == english.returncode == 0
    assert chinese.stdout.startswith("用法：assistant-auth") and "退出码" in chinese.stdout
    assert english.stdout.startswith("usage: assistant-auth") and "exit codes" in english.stdout
    chinese, english = in_both(locale, "login", "--help")
    assert "使用设备流程登录" in chinese.stdout and "显示此帮助信息并退出" in chinese.stdout
    assert "选项" in chinese.stdout
    assert "show this help message and exit" in english.stdout
    english_only(english.stdout, english.stderr)


def test_a_usage_error_follows_the_locale_with_the_same_exit_code(home, locale):
    chinese, english = in_both(locale, "status", "--bogus")
    assert chinese.returncode == english.returncode == 2
    assert "错误：无法识别的参数：--bogus" in chinese.stderr
    assert "error: unrecognized arguments: --bogus" in english.stderr
    chinese, english = in_both(locale, "token", "--region", "mars")
    assert chinese.returncode == english.returncode == 2
    assert "未知地区 'mars'：请使用 cn 或 global" in chinese.stderr
    assert "unknown region 'mars': use cn or global" in english.stderr
    english_only(english.stderr)


def test_status_reads_in_the_locale_and_its_json_does_not_change(home, server, locale):
    write_creds(home, valid(server))
    chinese, english = in_both(locale, "status")
    assert chinese.returncode == english.returncode == 0
    assert "cn：有效，" in chinese.stdout and "过期，已保存刷新令牌" in chinese.stdout
    assert "已以 user-1 身份登录 · cn" in chinese.stdout
    assert "* `assistant-auth token` 使用的槽位" in chinese.stdout
    assert "cn: valid, expires " in english.stdout and "Signed in as user-1 · cn" in english.stdout
    english_only(english.stdout)
    chinese, english = in_both(locale, "status", "--json")
    assert json.loads(chinese.stdout) == json.loads(english.stdout)
    assert not CJK.search(chinese.stdout)


def test_an_error_keeps_the_specs_message_word_for_word_under_a_chinese_sentence(home, locale):
    chinese, english = in_both(locale, "token")
    assert chinese.returncode == english.returncode == 1
    assert chinese.stdout == english.stdout == ""
    message = english.stderr.splitlines()[0]
    assert message.startswith("credentials not found at ")
    lines = chinese.stderr.splitlines()
    assert lines[0] == "操作未成功。英文原始信息如下："
    assert lines[1] == message  # the spec's message, verbatim, beside the Chinese sentence


def test_a_hint_is_said_in_the_locale_and_json_stays_english(home, server, locale, monkeypatch):
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", "http://127.0.0.1:9")  # nothing listens: unreachable
    chinese, english = in_both(locale, "login", "--no-tui", "--no-browser", "--json", "--force")
    assert chinese.returncode == english.returncode == 2
    assert "127.0.0.1:9（由 ASSISTANT_OAUTH_HOST_CN 设置）没有应答" in chinese.stderr
    assert "Nothing answered at 127.0.0.1:9" in english.stderr
    events = [json.loads(line) for line in chinese.stdout.splitlines()]
    assert events == [json.loads(line) for line in english.stdout.splitlines()]
    assert "Nothing answered at" in events[-1]["message"]  # machine output is never translated
    english_only(english.stderr)


def test_a_plain_sign_in_reads_in_the_locale(home, server, locale):
    server.auto_approve = 1.0
    locale(CHINESE)
    chinese = run("login", "--no-tui", "--no-browser")
    assert chinese.returncode == 0, chinese.stderr
    assert "地区 cn：授权主机 http://127.0.0.1:" in chinese.stderr
    assert re.search(r"^验证码：\S+$", chinese.stderr, re.MULTILINE), chinese.stderr
    assert "等待授权：验证码剩余有效时间" in chinese.stderr
    assert "凭据已写入 " in chinese.stderr
    server.auto_approve = 1.0
    locale(C)
    english = run("login", "--no-tui", "--no-browser", "--force")
    assert english.returncode == 0, english.stderr
    assert re.search(r"^Code:  \S+$", english.stderr, re.MULTILINE) and "Credentials written to " in english.stderr
    english_only(english.stderr)


def test_doctors_json_and_report_read_the_same_in_any_locale(home, server, locale):
    """Doctor's findings are data (scripts, bug reports): made in English whatever the locale,
    even where they quote a slot's state ("Signed in · cn")."""
    write_creds(home, valid(server))
    for args in (("doctor", "--json", "--offline"), ("doctor", "--report", "--offline")):
        chinese, english = in_both(locale, *args)
        assert chinese.returncode == english.returncode
        data = [json.loads(chinese.stdout), json.loads(english.stdout)]
        for each in data:
            each.pop("environment", None)  # holds nothing locale-bound, but is not the point here
        assert data[0] == data[1]
        assert any("Signed in as " in check["finding"] for check in data[0]["checks"])


# A process whose gettext default domain has argparse's words in French (argparse looks its words
# up there, through the gettext module), read by a French reader: we have no French, so the whole
# command speaks English, argparse's words too.
FRENCH_ARGPARSE = """msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\\n"

msgid "usage: "
msgstr "utilisation : "

msgid "show this help message and exit"
msgstr "afficher ce message d'aide et quitter"
"""


def test_a_system_catalog_of_argparse_never_mixes_a_language_in(home, locale, tmp_path):
    catalog = tmp_path / "locale" / "fr" / "LC_MESSAGES"
    catalog.mkdir(parents=True)
    (catalog / "messages.mo").write_bytes(compile_po(FRENCH_ARGPARSE))
    locale("fr_FR.UTF-8")
    code = (
        "import gettext, sys; gettext.bindtextdomain('messages', sys.argv[1]);"
        "print(gettext.gettext('usage: '));"
        "from tui.cli import main; sys.exit(main(['login', '--help']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "locale")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen, help_text = done.stdout.split("\n", 1)
    assert seen == "utilisation : "  # the system's catalog is there, and gettext finds it…
    assert help_text.startswith("usage: assistant-auth login")  # …and our help does not take it
    assert "show this help message and exit" in help_text and "afficher" not in help_text
