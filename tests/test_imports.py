"""The token path stays cheap, the core never imports Textual, and a module's header shows what it
needs: imports sit at the top, except on the measured hot path and for heavy libraries."""

import ast
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

from tests.source_tree import nodes_of, source_of

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The modules `assistant-auth token` loads on its valid-token path, with selector flags, and on
# its refresh path: measured by `test_hot_path_is_what_token_loads`, guarded by the tests below
# that nothing beyond a bare `python -I` reading the JSON is loaded there. Only these modules may
# import inside functions to stay cheap.
HOT_PATH = [
    "tui/__init__.py",
    "tui/cli/__init__.py",
    "tui/cli/options.py",
    "tui/cli/output.py",
    "tui/cli/token.py",
    "tui/core/__init__.py",
    "tui/core/agent/__init__.py",
    "tui/core/agent/source.py",
    "tui/core/agent/where.py",
    "tui/core/config/__init__.py",
    "tui/core/config/read.py",
    "tui/core/spec/__init__.py",
    "tui/core/spec/context.py",
    "tui/core/credentials/__init__.py",
    "tui/core/credentials/drive.py",
    "tui/core/credentials/issued.py",
    "tui/core/credentials/locks/__init__.py",
    "tui/core/credentials/locks/acquire.py",
    "tui/core/credentials/locks/stale.py",
    "tui/core/credentials/locks/state.py",
    "tui/core/credentials/locks/waits.py",
    "tui/core/credentials/oauth.py",
    "tui/core/credentials/refresh.py",
    "tui/core/credentials/slot.py",
    "tui/core/credentials/valid.py",
    "tui/core/spec/region_endpoints.py",
    "tui/core/errors.py",
    "tui/core/files/__init__.py",
    "tui/core/files/atomic.py",
    "tui/core/files/jsonutil.py",
    "tui/core/files/regular.py",
    "tui/core/spec/hints.py",
    "tui/core/http.py",
    "tui/core/credentials/jwt.py",
    "tui/core/spec/keys.py",
    "tui/core/spec/limits.py",
    "tui/core/spec/paths.py",
    "tui/core/text/__init__.py",
    "tui/core/text/phrase.py",
    "tui/core/text/redact.py",
    "tui/core/spec/regions.py",
    "tui/core/spec/settings.py",
    "tui/core/signals.py",
    "tui/core/slots/__init__.py",
    "tui/core/slots/choice.py",
    "tui/core/slots/selector.py",
    "tui/core/system/__init__.py",
    "tui/core/system/facts.py",
    "tui/core/system/locks.py",
]

# Libraries a command must not load unless it needs them: importing them inside a function is
# how a module says so. The reason is part of the rule.
HEAVY = {
    "httpx": "the HTTP client: only commands that send a request",
    "tomlkit": "the round-trip TOML editor: only when config.toml is written",
    "textual": "the TUI",
    "tui.app": "the TUI (Textual): `assistant-auth` opens it, no other command loads it",
    "argcomplete": "only when a shell asks for completions",
    "asyncio": "an event loop: only commands that run one",
    "rich.syntax": "pygments and its lexers: only when a diff or the raw file is drawn",
    "segno": "the QR encoder: only when a QR code is drawn",
    "tui.core.signin.follow": "a sign-in's lease, joining and watching: Home and `status` only where a record is on disk",
    "tui.core.signin.shown": "the records as told to a person (it loads follow): only where a record is on disk",
    "tui.core.system.proctable": "a process table without /proc (subprocess, ctypes): only on such a system",
    "ctypes": "the system's C library (sysctl, libproc): only where there is no /proc, when a peer is placed",
    "tui.core.system.simulated": "macOS or FreeBSD simulated on Linux: only when ASSISTANT_AUTH_SYSTEM asks for it",
}


def run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.strip()


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


def test_token_by_account_imports_nothing_more(tmp_path):
    """`token --account NAME` finds the account by a look at two names (`slots.lookup`), not by
    the slot states: no module beyond the plain path's (no dataclasses, pathlib or the enum of
    regions), with the managed provider pointing elsewhere."""
    code = f"""
import json, os, sys, io
home = {str(tmp_path)!r}
os.environ['ASSISTANT_CODE_HOME'] = home
os.makedirs(os.path.join(home, 'credentials'))
for name in ('assistant-code', 'assistant-code-account-cn-work'):
    open(os.path.join(home, 'credentials', name + '.json'), 'w').write(json.dumps({{'access_token': name, 'expires_at': 4102444800}}))
before = set(sys.modules)
from tui.cli import main
out = io.StringIO()
real, sys.stdout = sys.stdout, out
try:
    assert main(['token', '--account', 'work']) == 0
finally:
    sys.stdout = real
assert out.getvalue() == 'assistant-code-account-cn-work\\n', out.getvalue()
heavy = {"tui.core.spec.regions", "tui.core.slots.state", "tui.core.slots.accounts"}
print(sorted(m for m in set(sys.modules) - before if (not m.startswith('tui') or m in heavy) and m != '__future__'))
"""
    assert run(code) == "[]"


def _repo_path(module) -> str | None:
    path = getattr(module, "__file__", None)
    if not path:
        return None
    try:
        return pathlib.Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None


LOADED = """
import json, sys, pathlib
from tui.cli import main
code = main(json.loads(sys.argv[1]))
root = pathlib.Path(sys.argv[2])
paths = []
for name, module in list(sys.modules.items()):
    if name == 'tui' or name.startswith('tui.'):
        paths.append(pathlib.Path(module.__file__).resolve().relative_to(root).as_posix())
print(json.dumps({'code': code, 'paths': sorted(paths)}))
"""


def _loaded_by(args: list[str]) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", LOADED, json.dumps(args), str(ROOT)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=os.environ.copy(),
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] == 0, done.stderr
    return set(result["paths"])


def test_hot_path_is_what_token_loads(home, server):
    """HOT_PATH is measured, not guessed: the valid-token path (both config.toml shapes), the
    path with selector flags, and a refresh against the local authorization server."""
    from tests.conftest import write_creds

    home.mkdir(parents=True, exist_ok=True)
    write_creds(home, {"access_token": "tok", "expires_at": int(time.time()) + 3600})
    measured = set()
    for config in (SPEC_SHAPED, OFFICIAL_SHAPED):
        (home / "config.toml").write_text(config)
        measured |= _loaded_by(["token"])
    (home / "config.toml").unlink()
    measured |= _loaded_by(["token", "--slot", "assistant-code"])
    measured |= _loaded_by(["token", "--json", "--min-ttl", "60"])
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    measured |= _loaded_by(["token"])
    assert sorted(measured) == sorted(HOT_PATH), (sorted(measured - set(HOT_PATH)), sorted(set(HOT_PATH) - measured))


def _function_imports(path: pathlib.Path):
    """(line, module, the line's text) of every import inside a function or method."""
    lines = source_of(path).splitlines()
    seen = set()
    for node in nodes_of(path):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, (ast.Import, ast.ImportFrom)) and id(inner) not in seen:
                seen.add(id(inner))
                names = [inner.module or ""] if isinstance(inner, ast.ImportFrom) else [a.name for a in inner.names]
                for name in names:
                    yield inner.lineno, name, lines[inner.lineno - 1]


def _heavy(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in HEAVY)


def test_every_import_inside_a_function_says_why_it_is_lazy():
    """Lazy only for a measured start-up (`token`'s, HOT_PATH; the wizard's cold start) or a heavy
    library: each such import says why on its line (`# lazy: …`); the rest sit at the top."""
    unsaid = [
        f"{path.relative_to(ROOT).as_posix()}:{line} imports {module} inside a function without `# lazy:`"
        for path in sorted((ROOT / "tui").rglob("*.py"))
        for line, module, text in _function_imports(path)
        if "# lazy:" not in text
    ]
    assert unsaid == []


def test_imports_sit_at_the_top_outside_the_hot_path():
    hot = set(HOT_PATH)
    wrong, excused = [], []
    for path in sorted((ROOT / "tui").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in hot:
            continue
        for line, module, text in _function_imports(path):
            if _heavy(module):
                continue
            if "# lazy:" in text:
                excused.append(f"{rel}:{line}")
                continue
            wrong.append(f"{rel}:{line} imports {module} inside a function")
    assert wrong == []
    assert len(excused) <= 12, excused  # the wizard's cold start and a few others, each saying why


def test_the_import_rule_is_not_vacuous(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    import json\n    import httpx\n")
    found = [(module, _heavy(module)) for _line, module, _text in _function_imports(sample)]
    assert found == [("json", False), ("httpx", True)]


def test_private_collections_abc_only_on_the_hot_path():
    """`_collections_abc` saves a module on the hot path (each use says so); elsewhere the
    public `collections.abc`."""
    hot = set(HOT_PATH)
    for path in sorted((ROOT / "tui").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for number, text in enumerate(source_of(path).splitlines(), start=1):
            if "import" in text and "_collections_abc" in text:
                assert rel in hot, f"{rel}:{number}: use collections.abc off the hot path"
                assert "#" in text, f"{rel}:{number}: say why _collections_abc"


def test_declaring_flags_loads_no_handler():
    """Every argparse-dispatched command and every completion builds the parser: that loads the
    grammar, never a command's handler or the core modules the handlers need."""
    code = (
        "import sys; from tui.cli.parser import build; build(); "
        "print(sorted(m for m in sys.modules if m.startswith('tui.')))"
    )
    loaded = set(eval(run(code)))
    handlers = {
        f"tui.cli.{name}"
        for name in (
            "login",
            "status",
            "refresh",
            "logout",
            "switch",
            "doctor",
            "home",
            "demo",
            "completion",
            "selection",
            "exec",
            "token",
        )
    }
    assert not loaded & handlers
    # the help texts are said in the reader's language and wrapped by cells: the catalog's reader and
    # the cell counter; the one value the selector flags become (no I/O) and the one list of region
    # words `--region` offers (`settings.REGIONS`); nothing else of the core
    allowed = {"tui.core", "tui.core.text", "tui.core.text.i18n", "tui.core.text.phrase", "tui.core.text.textwidth"}
    allowed |= {"tui.core.spec", "tui.core.spec.settings"}
    allowed |= {"tui.core.slots", "tui.core.slots.selector"}
    assert not {m for m in loaded if m.startswith("tui.core.")} - allowed


def test_time_formats_load_no_sign_in_machinery():
    code = "import sys, tui.core.text.humantime; print(sorted(m for m in ('asyncio', 'tui.core.signin') if m in sys.modules))"
    assert run(code) == "[]"


def test_the_refresh_path_loads_only_what_a_bare_httpx_script_does(home, server):
    """`token` with an expired token: beyond our own modules, only what a bare script refreshing
    with httpx's sync client loads, and the locks' three (flock, the interval timer's signal, the
    lock reporter's context variable). No event loop, no hmac."""
    from tests.conftest import write_creds

    home.mkdir(parents=True, exist_ok=True)
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    code = (
        "import json, sys; before = set(sys.modules); from tui.cli import main; assert main(['token']) == 0; "
        "print(json.dumps(sorted(m for m in set(sys.modules) - before if not m.startswith('tui'))), file=sys.stderr)"
    )
    ours = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=os.environ.copy())
    from tui.core import client_id, endpoints
    from tui.dev.bench import FLOOR_HTTPX

    write_creds(home, {**server.issue_tokens(), "expires_at": 1}, name="floor")
    script = FLOOR_HTTPX + "\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    floor = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            script,
            str(home / "credentials" / "floor.json"),
            endpoints("cn").oauth_host + "/api/oauth/token",
            client_id(),
        ],
        capture_output=True,
        text=True,
    )
    extra = set(json.loads(ours.stderr.strip().splitlines()[-1])) - set(
        json.loads(floor.stderr.strip().splitlines()[-1])
    )
    assert extra <= {"_contextvars", "contextvars", "fcntl", "signal", "__future__"}, sorted(extra)
