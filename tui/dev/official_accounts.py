"""Whether both official clients follow a named account (#44): with the managed provider's
`oauth.key` pointing at an account's slot (`oauth/kimi-code-account-cn-work`, as `assistant-auth
switch work` writes it, in the official client's product word), does the client's own code read
that account's file, refresh it in place, and leave every other account's file alone?

    python -m tui.dev.official_accounts [--npm-version 2.1.0] [--legacy-source DIR] [--json]

The clients' code runs unchanged, as in `tui.dev.official_clients` (same harnesses): the current
client's OAuth package plus its own `resolveKimiTokenStorageName` (the key -> file rule), the
legacy client's `kimi_cli/auth/oauth.py`. A refresh is answered by a stand-in that records the
refresh token it was sent and returns a rotated pair. Recorded per step: the token the client
would send, the refresh token it spent, and which files changed. Needs node, npm and the
registries (or a kimi-cli checkout): a development tool, not part of `make test`.
"""

from __future__ import annotations

import json
import pathlib
import sys
import time

from tui.dev.official_clients import measure_both, npm_client, run_legacy, run_node

WORK, PERSONAL = "kimi-code-account-cn-work", "kimi-code-account-cn-personal"
NOW = int(time.time())


def files() -> dict[str, dict[str, object]]:
    """work expired (its refresh token must be spent, once, and the rotation land in its file),
    personal valid; no default slot: a client that falls back to it would fail."""

    def token(name: str, expires_at: int) -> dict[str, object]:
        return {
            "access_token": f"access-{name}",
            "refresh_token": f"refresh-{name}",
            "expires_at": expires_at,
            "scope": "kimi-code",
            "token_type": "Bearer",
            "expires_in": 3600,
        }

    return {WORK: token("work", NOW - 60), PERSONAL: token("personal", NOW + 3600)}


# steps: (what the managed provider's key names, as after which command)
STEPS = (("oauth/" + WORK, "login --account work"), ("oauth/" + PERSONAL, "switch personal"))

NODE_DRIVER = r"""
init_errors$9?.(); init_types$26?.(); init_utils$4?.(); init_storage?.(); init_token_state?.(); init_oauth_manager?.();
const [home, filesJson, stepsJson] = process.argv.slice(2);
const credentials = join(home, "credentials");
mkdirSync(credentials, { recursive: true, mode: 0o700 });
for (const [name, content] of Object.entries(JSON.parse(filesJson))) {
  const fd = openSync(join(credentials, `${name}.json`), "w", 0o600); writeSync(fd, JSON.stringify(content, null, 2) + "\n"); closeSync(fd);
}
const snapshot = () => Object.fromEntries(readdirSync(credentials).filter((f) => f.endsWith(".json")).map((f) => [f.slice(0, -5), readFileSync(join(credentials, f), "utf-8")]));
const results = [];
for (const [key, after] of JSON.parse(stepsJson)) {
  const before = snapshot();
  const spent = [];
  const name = resolveKimiTokenStorageName({ oauthKey: key });
  const manager = new OAuthManager({
    config: { name, clientId: "measurement", oauthHost: "http://127.0.0.1:9" },
    storage: new FileTokenStorage(credentials),
    configDir: home,
    refreshTokenImpl: async (_config, refreshToken) => {
      spent.push(refreshToken);
      return { accessToken: "access-rotated", refreshToken: "refresh-rotated", expiresAt: Math.floor(Date.now() / 1000) + 3600, expiresIn: 3600, scope: "kimi-code", tokenType: "Bearer" };
    },
    sleep: async () => {},
  });
  let sent;
  try { sent = await manager.ensureFresh({}); } catch (error) { sent = `${error.name}: ${error.message}`; }
  const now = snapshot();
  const changed = Object.keys({ ...before, ...now }).filter((f) => before[f] !== now[f]).sort();
  results.push({ after, key, storage_name: name, sent, spent, changed, rotated_into: changed.filter((f) => (now[f] || "").includes("refresh-rotated")), lock_left: existsSync(join(home, "oauth", `${name}.lock`)) });
}
console.log(JSON.stringify(results));
"""

PYTHON_DRIVER = r"""
import asyncio, json, os, pathlib, sys
from kimi_cli.auth import oauth
from kimi_cli.config import Config, LLMProvider, OAuthRef

files, steps = json.loads(sys.argv[1])
credentials = pathlib.Path(os.environ["KIMI_SHARE_DIR"]) / "credentials"
credentials.mkdir(parents=True, exist_ok=True, mode=0o700)
for name, content in files.items():
    (credentials / f"{name}.json").write_text(json.dumps(content, indent=2) + "\n")
    os.chmod(credentials / f"{name}.json", 0o600)

def snapshot():
    return {p.name[:-5]: p.read_text() for p in credentials.glob("*.json")}

results = []
for key, after in steps:
    before = snapshot()
    spent = []

    async def rotated(refresh_token, **_):
        spent.append(refresh_token)
        return oauth.OAuthToken.from_response({"access_token": "access-rotated", "refresh_token": "refresh-rotated",
                                               "expires_in": 3600, "scope": "kimi-code", "token_type": "Bearer"})

    oauth.refresh_token = rotated
    manager = oauth.OAuthManager(Config(providers={"managed:kimi-code": LLMProvider(oauth=OAuthRef(storage="file", key=key))}))
    try:
        asyncio.run(manager.ensure_fresh(None))
        sent = manager.get_cached_access_token(key)
    except Exception as exc:
        sent = f"{type(exc).__name__}: {exc}"
    now = snapshot()
    changed = sorted(f for f in set(before) | set(now) if before.get(f) != now.get(f))
    results.append({"after": after, "key": key, "storage_name": key.removeprefix("oauth/"), "sent": sent,
                    "spent": spent, "changed": changed,
                    "rotated_into": [f for f in changed if "refresh-rotated" in now.get(f, "")], "lock_left": False})
print(json.dumps(results))
"""


def run_npm(work: pathlib.Path, version: str) -> list[dict]:
    harness = npm_client(work, version, NODE_DRIVER, ("resolveKimiTokenStorageName",))
    return run_node(harness, str(work / "home"), json.dumps(files()), json.dumps(STEPS))


def run_pypi(work: pathlib.Path, given: str | None) -> tuple[list[dict], str]:
    return run_legacy(work, given, PYTHON_DRIVER, json.dumps([files(), STEPS]))


def follows(rows: list[dict]) -> bool:
    """Each step: the token of the account the key names (work rotated once, in its own file; then
    personal's as stored); nothing else written; no lock left behind."""
    first, second = rows
    return (
        first["sent"] == "access-rotated"
        and first["spent"] == ["refresh-work"]
        and first["changed"] == first["rotated_into"] == [WORK]
        and second["sent"] == "access-personal"
        and second["spent"] == []
        and second["changed"] == []
        and not any(row["lock_left"] for row in rows)
    )


def report(name: str, origin: str, rows: list[dict]) -> str:
    lines = [f"{name} ({origin}):"]
    for row in rows:
        lines.append(
            f"  after `{row['after']}` (key {row['key']}): reads {row['storage_name']}.json; sends {row['sent']!r}; "
            f"refresh tokens spent {row['spent']}; files changed {row['changed'] or 'none'}"
            + ("; a lock left behind" if row["lock_left"] else "")
        )
    lines.append(f"  verdict: {'follows the account, refreshes it in place' if follows(rows) else 'DOES NOT FOLLOW'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return measure_both(argv, (__doc__ or "").splitlines()[0], run_npm, run_pypi, report, follows)


if __name__ == "__main__":
    sys.exit(main())
