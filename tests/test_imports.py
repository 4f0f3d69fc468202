"""The token path stays cheap, and the core never imports Textual."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()


def test_import_core_pulls_no_heavy_module():
    code = "import tui.core, sys; print(sorted(m for m in ('httpx','tomlkit','textual') if m in sys.modules))"
    assert run(code) == "[]"


def test_reading_a_valid_token_pulls_no_heavy_module(tmp_path):
    code = f"""
import json, os, sys, time, pathlib
home = pathlib.Path({str(tmp_path)!r})
os.environ['ASSISTANT_CODE_HOME'] = str(home)
(home / 'credentials').mkdir(parents=True)
(home / 'credentials' / 'assistant-code.json').write_text(json.dumps({{'access_token': 'tok', 'expires_at': time.time() + 600}}))
from tui.core import read_valid_token
assert read_valid_token(None, 'https://x') == 'tok'
print(sorted(m for m in ('httpx','tomlkit','textual','asyncio') if m in sys.modules))
"""
    assert run(code) == "[]"


def test_no_textual_import_under_core():
    for path in (ROOT / "tui" / "core").rglob("*.py"):
        text = path.read_text()
        assert "import textual" not in text and "from textual" not in text, path
