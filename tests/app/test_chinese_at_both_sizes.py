"""The wizard in Simplified Chinese at 80×24 and 60×18: CJK characters take two cells, and every
screen still keeps its keys in the footer (back or cancel, help, quit) and the code in view."""

from __future__ import annotations

import pytest

from tests.app.helpers import screen_name, screen_text, wait_for
from tests.app.test_screens_at_both_sizes import SIZES, back_help_and_quit_in_every_footer, footer, open_screen
from tui.app import AssistantAuthApp

CODE = "WDJB-MJHT"


@pytest.mark.parametrize("size", SIZES)
async def test_every_screen_keeps_its_keys_and_the_code_in_chinese(home, server, monkeypatch, size):
    monkeypatch.setenv("ASSISTANT_LANG", "zh-CN")
    server.user_code_factory = lambda: CODE
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: "? 帮助" in footer(app))
        assert "q 退出" in footer(app) and "未登录" in screen_text(app)
        await back_help_and_quit_in_every_footer(pilot, app, "esc 返回", "? 帮助", "^q 退出")
        await open_screen(pilot, app, "question_mark", "HelpScreen")
        await wait_for(pilot, lambda: "按 esc 关闭本帮助" in screen_text(app))  # its close line, in view
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.press("enter")
        await wait_for(pilot, lambda: " ".join(CODE) in screen_text(app))  # the code, drawn
        line = footer(app)
        assert line.startswith("esc 取消") and "c 复制验证码" in line and "? 帮助" in line, line
        server.approve(CODE)
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        await wait_for(pilot, lambda: "? 帮助" in footer(app))
        assert "q 退出" in footer(app) and "已以 user-1 身份登录" in screen_text(app)
