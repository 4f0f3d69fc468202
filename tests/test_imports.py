"""The token path stays cheap, and the core never imports Textual."""

import pathlib
import subprocess
import sys

import pytest

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


SPEC_SHAPED = '[providers."managed:assistant-code"]\nbase_url = "https://x/coding/v1"\noauth = {storage = "file", key = "oauth/assistant-code"}\n'
OFFICIAL_SHAPED = (
    'default_model = "m"\n[providers."managed:assistant-code"]\ntype = "assistant"\nbase_url = "https://x/coding/v1"\n'
    '[providers."managed:assistant-code".oauth]\nstorage = "file"\nkey = "oauth/assistant-code"\noauth_host = "https://a"\n'
    '[providers."managed:assistant-code".env]\n[thinking]\nenabled = true\n'
)


@pytest.mark.parametrize("config", [SPEC_SHAPED, OFFICIAL_SHAPED], ids=["spec-shaped", "official-shaped"])
def test_cli_token_path_imports_only_what_it_needs(tmp_path, config):
    """`assistant-auth token` with valid credentials, config.toml as sign-in or the official client
    writes it: no module a bare `python -I` reading the JSON would not load, beyond our own."""
    code = f"""
import json, os, sys, io
home = {str(tmp_path)!r}
os.environ['ASSISTANT_CODE_HOME'] = home
os.makedirs(os.path.join(home, 'credentials'))
open(os.path.join(home, 'credentials', 'assistant-code.json'), 'w').write(json.dumps({{'access_token': 'tok', 'expires_at': 4102444800}}))
open(os.path.join(home, 'config.toml'), 'w').write({config!r})
before = set(sys.modules)
from tui.cli import main
out = io.StringIO()
real, sys.stdout = sys.stdout, out
try:
    assert main(['token']) == 0
finally:
    sys.stdout = real
assert out.getvalue() == 'tok\\n'
print(sorted(m for m in set(sys.modules) - before if not m.startswith('tui') and m != '__future__'))
"""
    assert run(code) == "[]"
