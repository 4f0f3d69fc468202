"""What the official clients do with an access-only credential file (what `assistant-auth relay`
writes on a server: the access token, `refresh_token` "", `expires_in` 0), at every stage: valid,
near expiry (inside their refresh threshold), expired. The relay's timing rests on this.

    python -m tui.dev.official_clients [--npm-version 2.1.0] [--legacy-source DIR] [--json]

- **The current client** (npm `@moonshot-ai/kimi-code`): `npm pack` of that version. Its OAuth
  package (token storage, token states, the manager that decides to refresh) is taken out of the
  published bundle by its source regions, unchanged, and run in Node with the lock library it
  bundles (proper-lockfile 4, installed beside it).
- **The legacy client** (PyPI `kimi-cli`): its wheel from the package index when the index has it,
  else a checkout's `src` directory (`--legacy-source`). `kimi_cli/auth/oauth.py` runs unchanged
  in a virtual environment of its own with its third-party imports (pydantic, aiohttp, keyring);
  the kimi_cli modules it imports for configuration, platforms and logging are stood in for
  (they hold no token logic).

At each stage the file is written as the relay writes it, then the client is asked for a token as
it asks before each request, then once more forced (as after a 401). Recorded: the token it
would send, whether it tried to refresh, whether it wrote, moved or removed the file, whether a
lock was left behind, and what it said. Needs `node`, `npm` and network access to the registries:
a development tool, not part of `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable

from tui.core.agent.client.relay import OFFICIAL_THRESHOLD, RENEW_LEFT
from tui.dev.pythons import find

NPM_PACKAGE = "@moonshot-ai/kimi-code"
NPM_VERSION = "2.1.0"
LEGACY_PACKAGE = "kimi-cli"
SLOT = "kimi-code"  # the official storage name (ours: assistant-code)
RELAYED_ACCESS = "relayed-access-token"
NOW = int(time.time())
STAGES = {  # stage -> expires_at, as the relay writes the file (expires_in 0)
    "valid": NOW + 3600,
    "at renewal": NOW + RENEW_LEFT,  # the relay replaces the file now
    "near expiry": NOW + OFFICIAL_THRESHOLD - 1,  # inside both clients' threshold (max(300, expires_in / 2))
    "expired": NOW - 60,
}
# the bundle's source regions that make the current client's token logic, in dependency order
NPM_REGIONS = (
    "../../packages/oauth/src/errors.ts",
    "../../packages/oauth/src/utils.ts",
    "../../packages/oauth/src/types.ts",
    "../../packages/oauth/src/storage.ts",
    "../../packages/oauth/src/token-state.ts",
    "../../packages/oauth/src/oauth-manager.ts",
)
NODE_BUILTINS = {
    "node:fs": (
        "mkdirSync chmodSync readFileSync openSync writeSync fsyncSync closeSync renameSync unlinkSync readdirSync "
        "existsSync statSync"
    ),
    "node:fs/promises": "mkdir writeFile readFile",
    "node:path": "join basename dirname",
    "node:crypto": "randomBytes",
}


def relayed_file(expires_at: int) -> dict[str, object]:
    return {
        "access_token": RELAYED_ACCESS,
        "refresh_token": "",
        "expires_at": expires_at,
        "scope": "kimi-code",
        "token_type": "Bearer",
        "expires_in": 0,
    }


# -- the current client (npm) ------------------------------------------------------------------------


def npm_client(
    work: pathlib.Path, version: str, driver: str | None = None, functions: tuple[str, ...] = ()
) -> pathlib.Path:
    """The harness script, from the published package and its lock library: the OAuth package's
    regions, the named top-level `functions` of the bundle, unchanged, then `driver`."""
    npm = tool("npm")
    subprocess.run([npm, "pack", "--silent", f"{NPM_PACKAGE}@{version}"], cwd=work, check=True, capture_output=True)
    tarball = next(work.glob("*.tgz"))
    with tarfile.open(tarball) as archive:
        member = archive.getmember("package/dist/main.mjs")
        extracted = archive.extractfile(member)
        assert extracted is not None
        bundle = extracted.read().decode("utf-8", "replace")
    subprocess.run(
        [npm, "install", "--silent", "--no-save", "--prefix", str(work), "proper-lockfile@4"],
        check=True,
        capture_output=True,
    )
    code = "\n".join([_region(bundle, name) for name in NPM_REGIONS] + [_function(bundle, f) for f in functions])
    harness = work / "harness.mjs"
    harness.write_text(_prelude(code) + code + (NODE_DRIVER if driver is None else driver))
    return harness


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} is not installed: the current client is measured with Node")
    return found


def _region(bundle: str, name: str) -> str:
    start = bundle.find(f"//#region {name}\n")
    if start < 0:
        raise SystemExit(f"the bundle has no region {name}: another version's layout")
    return bundle[start : bundle.index("//#endregion", start)]


def _function(bundle: str, name: str) -> str:
    """A top-level function of the bundle, as published (it ends at the first closing brace at
    the start of a line)."""
    start = bundle.find(f"\nfunction {name}(")
    if start < 0:
        raise SystemExit(f"the bundle has no function {name}: another version's layout")
    return bundle[start : bundle.index("\n}\n", start) + 3]


def _prelude(code: str) -> str:
    lines = [f"import {{ {', '.join(names.split())} }} from {module!r};" for module, names in NODE_BUILTINS.items()]
    lines += [
        'import { createRequire } from "node:module";',
        "const require = createRequire(import.meta.url);",
        "const __esmMin = (fn) => { let done = false, value; return () => { if (!done) { done = true; value = fn(); } "
        "return value; }; };",
        "const __toESM = (module) => ({ default: module });",
        'const require_proper_lockfile = () => require("proper-lockfile");',
    ]
    builtins = {name for names in NODE_BUILTINS.values() for name in names.split()}
    for alias in sorted(set(re.findall(r"\b([A-Za-z]+)\$(\d+)\b", code))):
        if alias[0] in builtins:  # the bundler's rename of a builtin import (writeFile$1)
            lines.append(f"const {alias[0]}${alias[1]} = {alias[0]};")
    defined = set(re.findall(r"\bvar (init_[\w$]+) =", code))
    for called in sorted(set(re.findall(r"\b(init_[\w$]+)\(\)", code)) - defined):
        lines.append(f"function {called}() {{}}")  # a module outside the token logic
    return "\n".join(lines) + "\n"


NODE_DRIVER = r"""
init_errors$9?.(); init_types$26?.(); init_utils$4?.(); init_storage?.(); init_token_state?.(); init_oauth_manager?.();
const [home, stagesJson] = process.argv.slice(2);
const stages = JSON.parse(stagesJson);
const credentials = join(home, "credentials");
const file = join(credentials, "kimi-code.json");
const results = [];
for (const [stage, content] of Object.entries(stages)) {
  mkdirSync(credentials, { recursive: true, mode: 0o700 });
  const before = JSON.stringify(content, null, 2) + "\n";
  const fd = openSync(file, "w", 0o600); writeSync(fd, before); closeSync(fd);
  let refreshes = 0;
  const manager = new OAuthManager({
    config: { name: "kimi-code", clientId: "measurement", oauthHost: "http://127.0.0.1:9" },
    storage: new FileTokenStorage(credentials),
    configDir: home,
    refreshTokenImpl: async () => { refreshes += 1; throw new Error("a refresh was attempted"); },
    sleep: async () => {},
  });
  const ask = async (options) => {
    try { return { token: await manager.ensureFresh(options) }; }
    catch (error) { return { error: `${error.name}: ${error.message}` }; }
  };
  const plain = await ask({});
  const forced = await ask({ force: true });
  const after = existsSync(file) ? readFileSync(file, "utf-8") : null;
  results.push({
    stage, plain, forced, refresh_attempts: refreshes,
    file: after === null ? "removed" : after === before ? "unchanged" : "rewritten",
    lock_left: existsSync(join(home, "oauth", "kimi-code.lock")),
  });
}
console.log(JSON.stringify(results));
"""


def run_npm(work: pathlib.Path, version: str) -> list[dict]:
    stages = {stage: relayed_file(expires_at) for stage, expires_at in STAGES.items()}
    return run_node(npm_client(work, version), str(work / "home"), json.dumps(stages))


def run_node(harness: pathlib.Path, *arguments: str) -> list[dict]:
    """The current client's harness run in Node: the rows its last line prints."""
    done = subprocess.run([tool("node"), str(harness), *arguments], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"the current client's harness failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the legacy client (PyPI) ------------------------------------------------------------------------

STAND_INS = {
    "kimi_cli/__init__.py": "",
    "kimi_cli/constant.py": 'VERSION = "measurement"\n',
    "kimi_cli/share.py": (
        "import os, pathlib\n\ndef get_share_dir():\n    return pathlib.Path(os.environ['KIMI_SHARE_DIR'])\n"
    ),
    "kimi_cli/telemetry/__init__.py": "def track(event, **properties):\n    pass\n",  # after a refresh (newer sources)
    "kimi_cli/utils/__init__.py": "",
    "kimi_cli/utils/aiohttp.py": "def new_client_session(*args, **kwargs):\n    raise RuntimeError('no network here')\n",
    "kimi_cli/utils/logging.py": (
        "import sys\n\nclass _Logger:\n    def _say(self, level, message, **values):\n"
        "        print(f'{level}: ' + message.format(**values), file=sys.stderr)\n"
        "    def warning(self, message, **values):\n        self._say('warning', message, **values)\n"
        "    def info(self, message, **values):\n        self._say('info', message, **values)\n"
        "    def debug(self, message, **values):\n        pass\n\nlogger = _Logger()\n"
    ),
    "kimi_cli/auth/platforms.py": (
        "ModelInfo = object\n\ndef get_platform_by_id(_id):\n    return None\n\n"
        "def list_models(*args, **kwargs):\n    return []\n\n"
        "def managed_model_key(platform, model):\n    return f'{platform}/{model}'\n\n"
        "def managed_provider_key(platform):\n    return f'managed:{platform}'\n"
    ),
    "kimi_cli/config.py": (
        "from dataclasses import dataclass, field\n\n@dataclass\nclass OAuthRef:\n    storage: str\n    key: str\n\n"
        "@dataclass\nclass LLMProvider:\n    oauth: OAuthRef | None = None\n    api_key: object = None\n\n"
        "@dataclass\nclass Services:\n    moonshot_search: object = None\n    moonshot_fetch: object = None\n\n"
        "@dataclass\nclass Config:\n    providers: dict = field(default_factory=dict)\n"
        "    services: Services = field(default_factory=Services)\n    is_from_default_location: bool = False\n\n"
        "LLMModel = MoonshotFetchConfig = MoonshotSearchConfig = object\n\ndef save_config(config):\n    pass\n"
    ),
}

PYTHON_DRIVER = r"""
import asyncio, json, os, pathlib, sys
from kimi_cli.auth import oauth
from kimi_cli.config import Config, LLMProvider, OAuthRef

stages = json.loads(sys.argv[1])
share = pathlib.Path(os.environ["KIMI_SHARE_DIR"])
file = share / "credentials" / "kimi-code.json"
results = []
for stage, content in stages.items():
    file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    before = json.dumps(content, indent=2) + "\n"
    file.write_text(before)
    os.chmod(file, 0o600)
    oauth._REJECTED_REFRESH_TOKENS.clear()
    refreshes = []

    async def refused(refresh_token, **_):
        refreshes.append(1)
        raise oauth.OAuthUnauthorized("a refresh was attempted")

    oauth.refresh_token = refused
    ref = OAuthRef(storage="file", key="oauth/kimi-code")
    manager = oauth.OAuthManager(Config(providers={"managed:kimi-code": LLMProvider(oauth=ref)}))

    async def ask(force):
        try:
            await manager.ensure_fresh(None, force=force)
        except Exception as exc:
            return {"error": f"{type(exc).__name__}: {exc}"}
        return {"token": manager.get_cached_access_token("oauth/kimi-code")}

    plain = asyncio.run(ask(False))
    forced = asyncio.run(ask(True))
    after = file.read_text() if file.exists() else None
    results.append({
        "stage": stage, "plain": plain, "forced": forced, "refresh_attempts": len(refreshes),
        "file": "removed" if after is None else "unchanged" if after == before else "rewritten",
        "lock_left": False,  # flock: released with its descriptor
    })
print(json.dumps(results))
"""


def legacy_source(work: pathlib.Path, given: str | None) -> tuple[pathlib.Path, str]:
    """(the directory holding `kimi_cli/auth`, where it came from)."""
    wheel_dir = work / "wheel"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(wheel_dir), LEGACY_PACKAGE],
        capture_output=True,
        text=True,
    )
    wheels = sorted(wheel_dir.glob("*.whl")) if done.returncode == 0 else []
    if wheels:
        unpacked = work / "unpacked"
        shutil.unpack_archive(str(wheels[-1]), str(unpacked), "zip")
        return unpacked, f"the PyPI wheel {wheels[-1].name}"
    if given:
        return pathlib.Path(given), f"the source at {given} (the package index here has no {LEGACY_PACKAGE})"
    raise SystemExit(f"no {LEGACY_PACKAGE} in the package index: give a checkout's src with --legacy-source")


def run_legacy(
    work: pathlib.Path, given: str | None, driver: str = PYTHON_DRIVER, argument: str | None = None
) -> tuple[list[dict], str]:
    """The legacy client's own `kimi_cli/auth/oauth.py` in an environment of its own, driven by
    `driver` (with `argument`; default: the relay's stages)."""
    source, origin = legacy_source(work, given)
    python = find("3.13") or find("3.12")
    if python is None:
        raise SystemExit("the legacy client needs Python 3.12 or later")
    venv = work / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "pydantic", "aiohttp", "keyring"],
        check=True,
        capture_output=True,
    )
    tree = work / "legacy"
    for relative, text in STAND_INS.items():
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        (tree / relative).write_text(text)
    for name in ("__init__.py", "oauth.py"):  # the client's own code, unchanged
        shutil.copy(source / "kimi_cli" / "auth" / name, tree / "kimi_cli" / "auth" / name)
    if argument is None:
        argument = json.dumps({stage: relayed_file(expires_at) for stage, expires_at in STAGES.items()})
    env = {**os.environ, "KIMI_SHARE_DIR": str(work / "legacy-home"), "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", driver, argument],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    if done.returncode != 0:
        raise SystemExit(f"the legacy client's harness failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1]), origin


# -- the report --------------------------------------------------------------------------------------


def outcome(asked: dict) -> str:
    if "error" in asked:
        return f"refuses: {asked['error']}"
    return "sends the relayed token" if asked.get("token") == RELAYED_ACCESS else f"sends {asked.get('token')!r}"


def safe(rows: list[dict]) -> bool:
    """Nothing signed out, nothing lost: the file is never rewritten or removed, no lock left."""
    return all(row["file"] == "unchanged" and not row["lock_left"] for row in rows)


def report(name: str, origin: str, rows: list[dict]) -> str:
    lines = [f"{name} ({origin}):"]
    for row in rows:
        lines.append(
            f"  {row['stage']:<11}  before a request: {outcome(row['plain'])}; forced (after a 401): "
            f"{outcome(row['forced'])}; refresh attempts {row['refresh_attempts']}; file {row['file']}"
            + ("; a lock left behind" if row["lock_left"] else "")
        )
    lines.append(f"  verdict: {'safe for the relay' if safe(rows) else 'NOT SAFE: the relay must refuse this client'}")
    return "\n".join(lines)


def measure_both(
    argv: list[str] | None,
    description: str,
    current: Callable[[pathlib.Path, str], list[dict]],
    legacy: Callable[[pathlib.Path, str | None], tuple[list[dict], str]],
    report: Callable[[str, str, list[dict]], str],
    good: Callable[[list[dict]], bool],
) -> int:
    """The command line of a measurement of both clients: each run in a temporary directory of
    its own, then the report (or `--json`); exit 0 when both are `good`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--npm-version", default=NPM_VERSION)
    parser.add_argument("--legacy-source", help="a kimi-cli checkout's src (used when the index has no kimi-cli)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="official-clients-") as where:
        work = pathlib.Path(where)
        (work / "npm").mkdir()
        (work / "pypi").mkdir()
        rows = current(work / "npm", args.npm_version)
        older, origin = legacy(work / "pypi", args.legacy_source)
    if args.json:
        print(json.dumps({"current": rows, "legacy": older, "legacy_origin": origin}, indent=2))
    else:
        print(report("The current client", f"npm {NPM_PACKAGE}@{args.npm_version}", rows))
        print(report("The legacy client", origin, older))
    return 0 if good(rows) and good(older) else 1


def main(argv: list[str] | None = None) -> int:
    return measure_both(argv, __doc__.splitlines()[0], run_npm, run_legacy, report, safe)


if __name__ == "__main__":
    sys.exit(main())
