"""A stand-in for the official clients, run as a separate process by the co-tenancy tests.

It imports nothing of this project and follows each official lock protocol as the co-tenancy
issue states it:

- `--protocol dir` (current client, proper-lockfile 4.x): create `<home>/oauth/` and the empty
  marker `<home>/oauth/<slot>`, then `mkdir <home>/oauth/<slot>.lock`; EEXIST means held, unless
  the directory's mtime is older than 5 s (stale): then remove it and retake it. Up to 120 tries
  0.5-1 s apart, else fail closed. While held, touch the mtime every 2.5 s. Release by rmdir.
- `--protocol flock` (legacy client): `flock(LOCK_EX | LOCK_NB)` on `<home>/credentials/<slot>.lock`,
  a few tries 1-2 s apart.

Once it holds the lock it behaves like the official client: it re-reads the credential file,
refreshes only if the refresh token is the one it read before locking, writes only the six spec
fields, and writes the tombstone (`access_token` "", `refresh_token` "", `expires_at` 0) when its
refresh is rejected.

Actions: `refresh` (as above) and `hold SECONDS` (take the lock, print "locked", keep it; a
negative SECONDS keeps it until a line, or the end, on standard input).
It prints one JSON line at the end: {"outcome": ..., "access_sha": ...} (a hash, never a token).
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

SIX_FIELDS = ("access_token", "refresh_token", "expires_at", "scope", "token_type", "expires_in")
STALE = 5.0
UPDATE_EVERY = 2.5


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


class DirLock:
    def __init__(self, home: str, slot: str) -> None:
        self.oauth = os.path.join(home, "oauth")
        self.path = os.path.join(self.oauth, f"{slot}.lock")
        self.marker = os.path.join(self.oauth, slot)
        self.stop = threading.Event()

    def acquire(self) -> bool:
        os.makedirs(self.oauth, exist_ok=True)
        if not os.path.exists(self.marker):
            open(self.marker, "a").close()
        for _ in range(120):
            try:
                os.mkdir(self.path)
                break
            except FileExistsError:
                try:
                    age = time.time() - os.stat(self.path).st_mtime
                except FileNotFoundError:
                    continue
                if age > STALE:
                    try:
                        os.rmdir(self.path)
                    except OSError:
                        pass
                    continue
            time.sleep(random.uniform(0.5, 1.0))
        else:
            return False
        threading.Thread(target=self._update, daemon=True).start()
        return True

    def _update(self) -> None:
        while not self.stop.wait(UPDATE_EVERY):
            try:
                os.utime(self.path)
            except OSError:
                return

    def release(self) -> None:
        self.stop.set()
        try:
            os.rmdir(self.path)
        except OSError:
            pass


class FlockLock:
    def __init__(self, home: str, slot: str) -> None:
        self.path = os.path.join(home, "credentials", f"{slot}.lock")
        self.fd = -1

    def acquire(self) -> bool:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        for attempt in range(5):
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if attempt < 4:
                    time.sleep(random.uniform(1.0, 2.0))
        os.close(self.fd)
        return False

    def release(self) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def read(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def write_six(path: str, data: dict) -> None:
    kept = {name: data[name] for name in SIX_FIELDS if name in data}
    tmp = f"{path}.official.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(kept, handle)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def refresh(args: argparse.Namespace, path: str, before: dict) -> dict:
    current = read(path)
    if current.get("refresh_token") != before.get("refresh_token"):
        return {"outcome": "adopted", "access_sha": sha(current.get("access_token", ""))}
    form = urllib.parse.urlencode(
        {"grant_type": "refresh_token", "client_id": args.client_id, "refresh_token": current["refresh_token"]}
    ).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(args.token_url, data=form), timeout=30) as response:
            tokens = json.load(response)
    except urllib.error.HTTPError:
        write_six(path, {"access_token": "", "refresh_token": "", "expires_at": 0})  # the tombstone
        return {"outcome": "signed_out", "access_sha": None}
    merged = {**current, **{k: v for k, v in tokens.items() if v is not None}}
    merged["expires_at"] = int(time.time()) + int(tokens.get("expires_in", 900))
    write_six(path, merged)
    return {"outcome": "refreshed", "access_sha": sha(tokens["access_token"])}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["refresh", "hold"])
    parser.add_argument("seconds", nargs="?", type=float, default=0.0)
    parser.add_argument("--protocol", choices=["dir", "flock"], required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--slot", default="assistant-code")
    parser.add_argument("--token-url", default="")
    parser.add_argument("--client-id", default="test-client")
    parser.add_argument("--say-read", action="store_true", help="print 'read' once the file is read, before locking")
    args = parser.parse_args()
    path = os.path.join(args.home, "credentials", f"{args.slot}.json")
    before = read(path) if args.action == "refresh" else {}
    if args.say_read:
        print("read", flush=True)  # a test's sync point: what it read is the file as it was before the lock
    lock = DirLock(args.home, args.slot) if args.protocol == "dir" else FlockLock(args.home, args.slot)
    if not lock.acquire():
        print(json.dumps({"outcome": "lock_timeout", "access_sha": None}), flush=True)
        return 3
    try:
        print("locked", flush=True)
        if args.action == "hold":
            if args.seconds < 0:
                sys.stdin.readline()  # held until the test says (a line, or its end)
            else:
                time.sleep(args.seconds)
            result = {"outcome": "held", "access_sha": None}
        else:
            result = refresh(args, path, before)
    finally:
        lock.release()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
