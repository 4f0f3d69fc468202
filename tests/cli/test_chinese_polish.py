"""Issue #39, the parts done so far: no English sentence holds a translated word (switch), every
error has its next step in the reader's language (token without a sign-in), the countdown says
how long, the Linux console gets English, dialog buttons use the reader's brackets."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from tests.app.helpers import screen_name, screen_text, wait_for
from tests.commands import run_command
from tests.source_tree import nodes_of
from tui.app.screens.confirm import ConfirmScreen

CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]")


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return run_command(args, env={**os.environ, **env}, timeout=60)


def test_the_switch_refusal_is_one_english_line_and_a_chinese_lead_and_step(home):
    done = run("switch", "--region", "global", ASSISTANT_LANG="zh-CN")
    assert done.returncode == 1
    english = [line for line in done.stderr.splitlines() if line.startswith("Cannot switch to global")]
    assert len(english) == 1 and english[0].endswith(" is missing") and not CJK.search(english[0])
    assert CJK.search(done.stderr.splitlines()[0])  # the lead sentence
    assert "请先在那里登录" in done.stderr


def test_token_without_a_sign_in_has_its_next_step_in_chinese_and_nothing_more_in_english(home):
    chinese = run("token", ASSISTANT_LANG="zh-CN")
    assert chinese.returncode == 1 and chinese.stdout == ""
    assert chinese.stderr.splitlines()[-1] == "请先登录：assistant-auth login"
    english = run("token", ASSISTANT_LANG="en")
    assert english.stderr.count("\n") == 1 and "sign in first with `assistant-auth login`" in english.stderr


def test_the_linux_console_gets_english_unless_chinese_is_asked_for(home):
    locale = {"LANG": "zh_CN.UTF-8", "LC_ALL": "", "LANGUAGE": ""}
    env = {k: v for k, v in os.environ.items() if k != "ASSISTANT_LANG"}
    console = run_command(["status"], env={**env, **locale, "TERM": "linux"}, timeout=60)
    assert not CJK.search(console.stdout + console.stderr)
    asked = run_command(["status"], env={**env, **locale, "TERM": "linux", "ASSISTANT_LANG": "zh-CN"}, timeout=60)
    assert CJK.search(asked.stdout)
    xterm = run_command(["status"], env={**env, **locale, "TERM": "xterm"}, timeout=60)
    assert CJK.search(xterm.stdout)


def test_the_countdown_says_how_long_in_chinese():
    from tui.core.text.i18n import catalog

    zh = catalog("zh-CN")
    assert "剩余 {left}" in zh.gettext("Waiting for you to approve in the browser…  code expires in {left}")
    assert "后过期" not in zh.gettext("Waiting for approval: the code expires in {left}; polling every {interval} s.")


async def test_dialog_buttons_use_the_readers_brackets(home, monkeypatch):
    from textual.app import App

    monkeypatch.setenv("ASSISTANT_LANG", "zh-CN")

    class One(App):
        def on_mount(self) -> None:
            self.push_screen(ConfirmScreen("标题", yes="丢弃", no="保留"))

    app = One()
    async with app.run_test(size=(60, 18)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "丢弃（y）" in screen_text(app) and "保留（n）" in screen_text(app)
        assert "(y)" not in screen_text(app)


HELPS = [
    ("--help",),
    *[
        (command, "--help")
        for command in (
            "login",
            "status",
            "token",
            "exec",
            "refresh",
            "logout",
            "switch",
            "doctor",
            "inspect",
            "config",
            "agent",
            "ssh",
            "demo",
            "completion",
        )
    ],
]


def test_every_help_fits_the_terminal_in_chinese(home):
    """At 80 and 60 columns, no line of any --help is wider than the terminal (in cells), and
    argparse's headings end with the full-width colon."""
    from tui.core.text.textwidth import cells

    too_wide = []
    for columns in (80, 60):
        for args in HELPS:
            done = run(*args, ASSISTANT_LANG="zh-CN", COLUMNS=str(columns))
            assert done.returncode == 0, (args, done.stderr)
            too_wide += [(columns, args, line) for line in done.stdout.splitlines() if cells(line) > columns]
            assert "选项:" not in done.stdout, args
    assert too_wide == []


from hypothesis import example, given, settings, strategies as st  # noqa: E402

from tui.core.text.textwidth import cells as width_of, wrap  # noqa: E402

word = st.text(alphabet=st.sampled_from(list("用法错误刷新令牌（）：，。0123456789abc-_")), min_size=1, max_size=5)
mixed = st.lists(word, max_size=30).map(" ".join) | st.lists(word, max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=mixed, width=st.integers(min_value=12, max_value=80))
@example(text="0 0 0 0 0 （ 0", width=12)  # an opening bracket before a space ended a line
def test_wrapping_by_cell_keeps_every_character_and_fits(text, width):
    lines = wrap(text, width)
    assert all(width_of(line) <= width for line in lines)
    assert "".join("".join(lines).split()) == "".join(text.split())  # nothing lost, nothing added
    for line in lines[1:]:
        assert line[:1] not in "，。：）"  # no line starts with closing punctuation…
    for line in lines[:-1]:
        assert line[-1:] not in "（"  # …or ends with an opening bracket


async def test_the_command_palette_speaks_chinese_and_finds_commands_by_their_english_name(home, monkeypatch):
    from textual.command import CommandInput, CommandList, CommandPalette

    from tui.app import AssistantAuthApp

    monkeypatch.setenv("ASSISTANT_LANG", "zh-CN")
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        assert app.screen.query_one(CommandInput).placeholder == "搜索命令…"
        await wait_for(pilot, lambda: app.screen.query_one(CommandList).option_count >= 8)
        listed = screen_text(app)
        for english in ("Search for commands", "Keys", "Maximize", "Screenshot", "Theme", "Quit the application"):
            assert english not in listed, english
        assert "主题" in listed and "截图" in listed and "帮助" in listed
        await pilot.press("h", "e")

        def first() -> str:
            results = app.screen.query_one(CommandList)
            if results.option_count == 0:
                return ""
            prompt = results.get_option_at_index(0).prompt
            return str(getattr(prompt, "plain", prompt))

        await wait_for(pilot, lambda: first().startswith("帮助"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "HelpScreen")


# -- no English sentence holds Chinese: built from untranslated parts only --------------------------

import ast  # noqa: E402
import pathlib  # noqa: E402

TRANSLATING = {"_", "ngettext", "said", "label", "said_help", "countdown", "expiry", "relative"}


def _translating_calls(node: ast.AST) -> list[str]:
    """Calls or attributes inside an English message that give the reader's language."""
    found = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in TRANSLATING:
                found.append(name)
        elif isinstance(inner, ast.Attribute) and inner.attr == "label":
            found.append("label")
    return found


def test_every_error_message_is_built_from_untranslated_parts():
    """The English line of an error (an AuthError's message, what people search for) never
    interpolates something said in the reader's language: `is 不存在` was `status.label`."""
    root = pathlib.Path(__file__).resolve().parents[2] / "tui"
    wrong = []
    for path in sorted(root.rglob("*.py")):
        for node in nodes_of(path):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "AuthError",
                "LockUnavailable",
            ):
                if node.args and _translating_calls(node.args[0]):
                    wrong.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    assert wrong == []


def test_the_checker_sees_a_translated_word_in_a_message():
    tree = ast.parse('AuthError(f"its slot {status.name} is {status.label}")')
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    assert _translating_calls(call.args[0]) == ["label"]


ERROR_PATHS = [
    ("token",),
    ("refresh",),
    ("switch", "--region", "global"),
    ("switch", "--region", "cn"),
    ("logout", "--slot", "nope", "--yes"),
    ("token", "--slot", "../x"),
    ("token", "--min-ttl", "abc"),
    ("status", "--slot", "nope"),
    ("exec", "--", "true"),
]


def test_every_english_line_of_an_error_holds_no_chinese(home):
    """Under zh-CN, each error's lines: a Chinese lead, the English message (no Chinese in it),
    a Chinese next step."""
    for args in ERROR_PATHS:
        done = run(*args, ASSISTANT_LANG="zh-CN")
        for line in done.stderr.splitlines():
            if line[:1].isascii() and line[:1].isalpha() and not line.startswith("assistant-auth"):
                assert not CJK.search(line), (args, line)


command = st.lists(st.sampled_from(["login", "--region", "global", "--account", "work", "cn"]), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(before=mixed, after=mixed, words=command, width=st.integers(min_value=12, max_value=80))
def test_a_command_in_a_sentence_never_breaks_where_it_fits(before, after, words, width):
    """#57 12: `assistant-auth login --region / global` was split across lines at 60 columns."""
    quoted = "`assistant-auth " + " ".join(words) + "`"
    lines = wrap(f"请运行{before} {quoted} {after}以登录。", width)
    if width_of(quoted) <= width:
        assert any(quoted in line for line in lines), lines
    assert all(width_of(line) <= width for line in lines)


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        (
            "已退出登录：请用 `assistant-auth login --region global` 重新登录它。",
            "`assistant-auth login --region global`",
        ),
        (
            "请编辑 ~/.assistant-code/config.toml 之后重试，或运行 assistant-auth login --region global 登录。",
            "config.toml",
        ),
    ],
)
@pytest.mark.parametrize("width", [40, 56, 58, 60])
def test_no_word_breaks_inside_and_no_stop_stands_alone(text, whole, width):
    lines = wrap(text, width)
    assert any(whole in line for line in lines), lines
    assert width_of(lines[-1]) > 4 or len(lines) == 1, lines  # never "它。" alone on the last line
