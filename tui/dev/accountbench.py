"""`make bench`, figure 7: `assistant-auth token` with five named accounts signed in, side by side
with one, each as a ratio to its floor (a bare `python -I` reading the active account's file).
The hot path reads the managed provider's one slot, never a list of accounts: the two ratios are
the same within noise."""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import sys
import time
from collections.abc import Callable

from tui.core.config.provider import provision_managed_provider
from tui.core.spec.keys import account_key, account_slot

NAMES = ("alpha", "bravo", "charlie", "delta", "echo")
ACTIVE = "charlie"  # not the first by name: nothing may find it by listing


def _home(server, base: pathlib.Path, names: tuple[str, ...], env_for) -> tuple[dict[str, str], pathlib.Path]:
    env = env_for(server, base)
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        directory = base / "credentials"
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        for name in names:
            path = directory / f"{account_slot('cn', name)}.json"
            path.write_text(json.dumps({**server.issue_tokens(subject=name), "expires_at": int(time.time()) + 3600}))
            os.chmod(path, 0o600)
        provision_managed_provider(account_key("cn", ACTIVE), "cn")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return env, directory / f"{account_slot('cn', ACTIVE)}.json"


def compare(server, home: pathlib.Path, ours: list[str], time_one: Callable, env_for, runs: int) -> None:
    cases = {"1 account": (ACTIVE,), "5 accounts": NAMES}
    commands = {}
    for label, names in cases.items():
        env, creds = _home(server, home / label.replace(" ", "-"), names, env_for)
        floor = [sys.executable, "-I", "-c", f"import json;print(json.load(open({str(creds)!r}))['access_token'])"]
        commands[label] = (env, ours, floor)
    for env, command, floor in commands.values():  # warm the page cache
        time_one(command, env)
        time_one(floor, env)
    samples: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in commands}
    for _ in range(runs):
        for label, (env, command, floor) in commands.items():
            samples[label][0].append(time_one(command, env))
            samples[label][1].append(time_one(floor, env))
    print(f"7. token with named accounts signed in: median of {runs} alternating runs (target: the same ratio)")
    ratios = {}
    for label, (ours_times, floor_times) in samples.items():
        ratios[label] = statistics.median(a / b for a, b in zip(ours_times, floor_times, strict=True))
        print(
            f"   {label:<11} token {statistics.median(ours_times) * 1000:6.1f} ms, floor "
            f"{statistics.median(floor_times) * 1000:6.1f} ms, ratio to the floor {ratios[label]:5.2f}x"
        )
    print(f"   5 accounts / 1 account (ratio of ratios): {ratios['5 accounts'] / ratios['1 account']:5.2f}x")
