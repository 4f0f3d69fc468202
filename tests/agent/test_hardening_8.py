"""Hardening round 8 (#58), the parts done: an answer key that is not ASCII is a wrong key like
any other (never a dropped connection and a traceback in the agent's log, which any process on
a server could cause), and the answer key is written whole or not at all."""

from __future__ import annotations

import os
import threading

import pytest

from tests.agent.conftest import RunningAgent
from tests.cli.test_cli import valid
from tests.commands import run_command
from tests.conftest import write_creds
from tests.lock_holder import Holder, holding
from tui.core.agent.client import proof
from tui.core.agent.client.ask import ask
from tui.core.agent.server import place
from tui.core.agent.server.confirm import Confirm
from tui.core.agent.wire.protocol import Request


@pytest.mark.parametrize("key", ["é" * 32, "\udcff" * 8, "鍵" * 20, "0" * 31 + "\u0660"])
def test_a_key_that_is_not_ascii_is_a_wrong_key(key):
    confirm = Confirm.__new__(Confirm)
    confirm.answer_key = "0" * 32
    assert confirm.is_answer_key(key) is False
    assert confirm.is_answer_key("0" * 32) is True


def test_the_agent_refuses_a_non_ascii_key_and_goes_on_serving(laptop, server):
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy(), "--confirm")
    try:
        for key in ("é" * 32, "鍵" * 20):
            refused = ask(Request("status", key=key), agent.path)
            assert refused["ok"] is False
        served = ask(Request("status", key=proof.read_answer_key(agent.path)), agent.path)
        assert served["ok"] is True and served["slots"]
    finally:
        agent.stop()
    log = agent.process.stderr.read() if agent.process.stderr else ""
    assert "Traceback" not in log and "TypeError" not in log


def test_the_answer_key_is_never_seen_empty_or_half_written(tmp_path):
    """A reader racing the writer (the window a test once hit between create and write) finds
    the key whole or not at all; an existing key is never replaced."""
    socket_path = str(tmp_path / "agent.sock")
    where = place.key_of(socket_path)
    seen: list[str] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                with open(where, encoding="ascii") as handle:
                    seen.append(handle.read())
            except FileNotFoundError:
                pass

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(30):
            key = place.write_answer_key(socket_path)
            with pytest.raises(FileExistsError):
                place.write_answer_key(socket_path)  # never over a key that is there
            os.unlink(where)
            assert len(key) == place.KEY_HEX
    finally:
        stop.set()
        reader.join()
    assert all(len(text) == place.KEY_HEX for text in seen)
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]


def test_logout_of_the_active_account_says_why_the_switch_was_not_written(home, monkeypatch):
    """#58 9: config.toml's lock held elsewhere while other accounts are signed in: the sign-out
    says the switch to which account failed and why, never "no other account is signed in"."""

    from tui.core.config import guard
    from tui.core.config.provider import provision_managed_provider
    from tui.core.person.signout import sign_out, told
    from tui.core.spec.keys import account_key, account_slot

    for name in ("work", "personal"):
        write_creds(
            home,
            {"access_token": f"at-{name}", "refresh_token": "rt", "expires_at": 4_000_000_000},
            account_slot("cn", name),
        )
    provision_managed_provider(account_key("cn", "work"), "cn")
    monkeypatch.setattr(guard, "WAIT", 0.3)
    with holding(home):  # config.toml's lock, held by another command
        result = sign_out(account_slot("cn", "work"))
    lines = " ".join(told(result, "the file"))
    assert "no other account is signed in" not in lines
    assert "switching it to personal (cn) failed" in lines and "assistant-auth switch personal" in lines


def _jwt(**claims) -> str:
    import base64
    import json

    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


def test_the_same_person_is_the_same_subject_never_the_same_display_name(home):
    """#58 8: two people named alike are two accounts; one person with two display names is one."""
    from tui.core.person.overview import overview
    from tui.core.person.same_person import alike
    from tui.core.spec.keys import account_slot

    def sign_in(account: str, **claims) -> str:
        slot = account_slot("cn", account)
        token = _jwt(iss="https://auth.test", **claims)
        write_creds(home, {"access_token": token, "refresh_token": "rt", "expires_at": 4_000_000_000}, slot)
        return slot

    ada_work = sign_in("work", sub="u-1", name="Ada")
    sign_in("other", sub="u-2", name="Ada")  # another person who is also called Ada
    ada_home = sign_in("home", sub="u-1", name="Ada L.")  # Ada again, another display name
    slot = account_slot("cn", "elsewhere")  # the same subject at another issuer: another person
    write_creds(home, {"access_token": _jwt(iss="https://other.test", sub="u-1"), "expires_at": 4_000_000_000}, slot)
    found = {a.slot for a in alike(overview().accounts, ada_work)}
    assert found == {ada_home}
    nobody = sign_in("opaque", name="Ada")  # no subject: nothing can be said
    assert alike(overview().accounts, nobody) == []


def _config_too_large(path):
    path.write_text("# x\n" * 300_000)


def _config_fifo(path):
    path.unlink()
    os.mkfifo(path, 0o600)


def _config_directory(path):
    path.unlink()
    path.mkdir()


def _config_not_utf8(path):
    path.write_bytes(path.read_bytes() + b"\n# \xff\xfe\n")


@pytest.mark.parametrize("spoil", [_config_too_large, _config_fifo, _config_directory, _config_not_utf8])
def test_an_unreadable_config_toml_hands_out_no_guessed_token(home, spoil):
    """#58 1: config.toml names the active account (work); when it cannot be read, `token` and
    `exec` used to serve the region's own sign-in quietly. They refuse in one line naming the
    file, unless the account is named on the command line."""
    from tests.cli.test_cli import run
    from tui.core.config.provider import provision_managed_provider
    from tui.core.spec.keys import account_key, account_slot, region_storage_name

    write_creds(
        home, {"access_token": "at-own", "refresh_token": "rt", "expires_at": 4_000_000_000}, region_storage_name("cn")
    )
    write_creds(
        home,
        {"access_token": "at-work", "refresh_token": "rt", "expires_at": 4_000_000_000},
        account_slot("cn", "work"),
    )
    provision_managed_provider(account_key("cn", "work"), "cn")
    assert run("token").stdout.strip() == "at-work"
    spoil(home / "config.toml")
    for command in (["token"], ["exec", "--", "true"]):
        result = run(*command)
        assert result.returncode == 2 and result.stdout == "", (command, result.stderr)
        assert "at-own" not in result.stdout + result.stderr
        assert str(home / "config.toml") in result.stderr and "no token is handed out" in result.stderr
    assert run("token", "--account", "work").stdout.strip() == "at-work"
    assert run("token", "--region", "cn").stdout.strip() == "at-own"


def test_the_background_agent_serves_the_home_its_command_named_even_a_relative_one(laptop, server, tmp_path):
    """#58 5: the background agent runs in `/`; a relative ASSISTANT_CODE_HOME used to mean
    another directory there (token through it: "sign in first", while status said the agent
    serves this machine's sign-in). The start makes it absolute, and says so."""
    import json

    from tests.waiting import PATIENCE

    stored = valid(server)
    write_creds(laptop, stored)
    relative = os.path.relpath(laptop, tmp_path)
    env = {**os.environ, "ASSISTANT_CODE_HOME": relative}
    started = run_command(["agent", "--json"], env=env, cwd=tmp_path, timeout=PATIENCE)
    assert started.returncode == 0, started.stderr
    said = json.loads(started.stdout)
    try:
        assert f"ASSISTANT_CODE_HOME is a relative path ({relative}): the agent reads {laptop}" in started.stderr
        through = {**env, "ASSISTANT_AUTH_SOCK": said["socket"]}
        token = run_command(["token"], env=through, cwd=tmp_path, timeout=PATIENCE)
        assert token.returncode == 0 and token.stdout.strip() == stored["access_token"], token.stderr
        assert ask(Request("ping"), said["socket"])["home"] == str(laptop)
    finally:
        ask(Request("stop"), said["socket"])


def test_relative_path_settings_are_made_absolute_and_a_gone_directory_refuses(tmp_path):
    from tui.core.agent.server.background import NotStarted, absolute_paths

    env = {"ASSISTANT_CODE_HOME": "home", "SSL_CERT_FILE": "/etc/ca.pem", "HOME": "~x", "PYTHONPATH": "a:/b"}
    made, changed = absolute_paths(env, "/w")
    assert made == {**env, "ASSISTANT_CODE_HOME": "/w/home", "PYTHONPATH": "/w/a:/b"}
    assert changed == [("ASSISTANT_CODE_HOME", "home", "/w/home"), ("PYTHONPATH", "a:/b", "/w/a:/b")]
    assert absolute_paths({"SSL_CERT_FILE": "/ca"}, "") == ({"SSL_CERT_FILE": "/ca"}, [])
    with pytest.raises(NotStarted, match="ASSISTANT_CODE_HOME is a relative path"):
        absolute_paths(env, "")


def _through_tcp(port: int, request: Request) -> dict:
    import json
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(request.to_line())
        received = b""
        while not received.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            received += chunk
    return json.loads(received.splitlines()[-1])


def test_the_far_end_of_ssh_L_is_treated_as_a_server(laptop, server, tmp_path):
    """#58 4: `ssh -L PORT:AGENT` makes sshd connect to the agent for whoever reaches PORT. That
    peer (sshd, over a real OpenSSH) is not this machine's person: its `stop` is refused, its
    `ping` names no path of this machine, its connection is "forwarded" in the agent's events."""
    import subprocess

    from tests.agent.openssh import SshServer, free_port, needs_openssh
    from tests.conftest import default_signals, terminate
    from tests.waiting import until

    if needs_openssh.args[0]:
        pytest.skip(needs_openssh.kwargs["reason"])
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy())
    sshd = SshServer(tmp_path / "sshd")
    port = free_port()
    tunnel = subprocess.Popen(
        ["ssh", *sshd.options(), "-N", "-o", "ExitOnForwardFailure=yes", "-L", f"127.0.0.1:{port}:{agent.path}"]
        + [sshd.host],
        stdin=subprocess.DEVNULL,
        preexec_fn=default_signals,
    )
    try:

        def up() -> bool:
            import socket

            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", port)) == 0

        until(lambda: tunnel.poll() is not None or up())
        assert tunnel.poll() is None
        stopped = _through_tcp(port, Request("stop"))
        assert stopped["ok"] is False and "not accepted through a forwarded connection" in stopped["error"]
        pinged = _through_tcp(port, Request("ping"))
        assert pinged["ok"] is True and str(laptop) not in repr(pinged)
        assert ask(Request("ping"), agent.path)["ok"] is True  # the agent still serves
        seen = ask(Request("events"), agent.path)
        kinds = {(event["origin"], event["op"]) for event in seen["events"] if event["kind"] == "request"}
        assert ("forwarded", "stop") in kinds and ("local", "stop") not in kinds, kinds
    finally:
        terminate(tunnel)
        sshd.stop()
        agent.stop()


@pytest.mark.parametrize("name", ["ssh", "sshd", "sshd-session", "socat", "nc", "ncat", "websocat"])
def test_a_relaying_program_is_forwarded_and_named(monkeypatch, name):
    from tui.app.screens.ask import where_from
    from tui.core.agent.server import peer
    from tui.core.system.peercred import PeerCred
    from tui.core.system.process import Process

    monkeypatch.setattr(peer, "system_peer", lambda _sock: PeerCred(4242, os.geteuid()))
    monkeypatch.setattr(peer, "process", lambda pid: Process(pid, os.geteuid(), name, [name, "host"], 77))
    who = peer.peer_of(None)
    assert who.origin == peer.FORWARDED and who.ssh == (4242, 77) and who.via == name
    assert who.host == ("host" if name == "ssh" else "")
    where = where_from(who.origin, who.host, who.via)
    assert (name in where and "treated as a server" in where) if name != "ssh" else "through ssh" in where


def test_a_program_that_relays_nothing_stays_local(monkeypatch):
    from tui.core.agent.server import peer
    from tui.core.system.peercred import PeerCred
    from tui.core.system.process import Process

    monkeypatch.setattr(peer, "system_peer", lambda _sock: PeerCred(4242, os.geteuid()))
    monkeypatch.setattr(peer, "process", lambda pid: Process(pid, os.geteuid(), "python3", ["python3"], 77))
    assert peer.peer_of(None).origin == peer.LOCAL


def test_a_switch_made_while_logout_waits_for_the_lock_stands(home):
    """#58 3: `logout` of the active account (work) waits for its slot's lock, held by a process
    following the official client's protocol; meanwhile `switch zulu` finishes. The logout used to
    have read "work is active" before the wait and then switched to its own choice (alpha),
    undoing the switch. Now which account is active is read after the wait, and the switch
    written only if config.toml, read again under its lock, still names work."""
    import subprocess

    from tests.cli.test_cli import SCRIPT
    from tests.waiting import PATIENCE
    from tui.core.config.provider import provision_managed_provider
    from tui.core.slots.choice import managed_slot
    from tui.core.spec.keys import account_key, account_slot

    for name in ("work", "alpha", "zulu"):
        write_creds(
            home,
            {"access_token": f"at-{name}", "refresh_token": "rt", "expires_at": 4_000_000_000},
            account_slot("cn", name),
        )
    provision_managed_provider(account_key("cn", "work"), "cn")
    holder = Holder(home / "credentials" / f"{account_slot('cn', 'work')}.lock")  # the official client's flock
    logout = subprocess.Popen(
        [SCRIPT, "logout", "--account", "work", "--region", "cn", "--yes"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert logout.stderr is not None
        waiting = logout.stderr.readline()  # the exact state: it says it waits for the slot's lock
        assert "Waiting for" in waiting, waiting
        switched = run_command(["switch", "zulu"], timeout=PATIENCE)
        assert switched.returncode == 0, switched.stderr
        holder.release()
        out, rest = logout.communicate(timeout=PATIENCE)
    finally:
        holder.stop()
        if logout.poll() is None:
            logout.kill()
    assert logout.returncode == 0, rest
    assert managed_slot() == account_slot("cn", "zulu")
    assert "The managed provider uses account zulu (cn)." in out + rest, (out, rest)
    assert not (home / "credentials" / f"{account_slot('cn', 'work')}.json").exists()


SERVER_CONFIG = """# the server's own settings
[providers."managed:assistant-code"]
type = "assistant"
base_url = "https://api.cn.assistant.example/coding/v1"
api_key = "sk-server-own-key"  # the key this server used before
managed = true
oauth = { storage = "file", key = "oauth/assistant-code" }
"""


def test_the_relay_keeps_a_servers_api_key_and_says_how_to_take_it_back(laptop, server, server_home):
    """#58 2: pointing a server's managed provider at the token's region used to write
    `api_key = ""` and keep no copy. Now config.toml as it was is kept beside it (yours alone),
    and the relay says what it changed and the one command that undoes it."""
    import shlex
    import stat
    import subprocess

    from tests.agent.conftest import on_server, run_on_server
    from tui.core.spec.keys import account_slot, region_key

    made = {**server.issue_tokens(subject="alice-g"), "expires_at": 4102444800}
    write_creds(laptop, made, name=account_slot("global", "work"))
    (server_home / "config.toml").write_text(SERVER_CONFIG)
    agent = RunningAgent(os.environ.copy())
    try:
        env = on_server(agent.path, server_home)
        done = run_on_server(env, "relay", "--once", "--account", "work", "--region", "global")
    finally:
        agent.stop()
    assert done.returncode == 0, done.stderr
    assert "now uses the global region" in done.stderr
    copies = list(server_home.glob("config.toml.before-*"))
    assert len(copies) == 1 and copies[0].read_text() == SERVER_CONFIG
    assert stat.S_IMODE(copies[0].stat().st_mode) == 0o600
    assert "sk-server-own-key" not in done.stderr  # the key is kept, never said
    undo = f"cp {shlex.quote(str(copies[0]))} {shlex.quote(str(server_home / 'config.toml'))}"
    assert f"`{undo}` takes it back" in done.stderr, done.stderr
    now = (server_home / "config.toml").read_text()
    assert 'api_key = ""' in now and f'key = "{region_key("global")}"' in now
    subprocess.run(undo, shell=True, check=True)  # noqa: S602 - the command the relay said, as a person types it
    assert (server_home / "config.toml").read_text() == SERVER_CONFIG


def test_a_sign_in_and_a_switch_keep_an_api_key_they_empty(home):
    from tui.core.config.provider import provision_managed_provider
    from tui.core.slots.switch import switch_account
    from tui.core.spec.keys import account_key, account_slot
    from tui.core.spec.regions import Region

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(SERVER_CONFIG)
    copy = provision_managed_provider(account_key("cn", "default"), "cn")
    assert copy is not None and copy.path.read_text() == SERVER_CONFIG and copy.api_key
    assert provision_managed_provider(account_key("cn", "default"), "cn") is None  # nothing of theirs emptied now
    (home / "config.toml").write_text(SERVER_CONFIG)
    write_creds(
        home, {"access_token": "at", "refresh_token": "rt", "expires_at": 4_000_000_000}, account_slot("cn", "w")
    )
    said = switch_account(Region("cn"), "w")
    assert "api_key was emptied" in said and "takes it back" in said
    assert len(list(home.glob("config.toml.before-*"))) == 2


def test_no_copy_no_write(home, monkeypatch):
    """A copy that cannot be kept (a full disk) leaves config.toml and its key as they were."""
    from tui.core.config.provider import provision_managed_provider
    from tui.core.errors import AuthError
    from tui.core.spec.keys import account_key

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(SERVER_CONFIG)

    def full(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tui.core.config.provider.keep", full)
    with pytest.raises(AuthError, match="its api_key could not be kept first"):
        provision_managed_provider(account_key("cn", "default"), "cn")
    assert (home / "config.toml").read_text() == SERVER_CONFIG


def test_a_real_sign_in_says_where_the_api_key_it_emptied_is_kept(home, server):
    from tests.cli.test_cli import run

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(SERVER_CONFIG)
    server.auto_approve = 0.3
    done = run("login", "--no-tui", "--no-browser")
    assert done.returncode == 0, done.stderr
    copies = list(home.glob("config.toml.before-*"))
    assert len(copies) == 1 and "sk-server-own-key" in copies[0].read_text()
    assert "api_key was emptied" in done.stderr and str(copies[0]) in done.stderr
    assert "sk-server-own-key" not in done.stderr + done.stdout


RECORDER = """
import os, socket, sys
path = sys.argv[1]
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
os.chmod(path, 0o777)
listener.listen(8)
print("listening", flush=True)
while True:
    conn, _ = listener.accept()
    line = conn.makefile("rb").readline().decode("ascii", "replace").strip()
    print(line, flush=True)
    conn.close()
    if line == "END":
        break
"""


def test_the_wizards_answering_connection_never_sends_its_key_to_another_users_socket():
    """#58 12: the answering connection did a plain connect and sent the answer key; a socket at
    the agent's path bound by another user (the agent died, a shared /tmp place) got the key.
    Every client now connects through the one checked connect: nothing is sent there."""
    import subprocess
    import tempfile

    from tests.agent.another_user import NOBODY, SYSTEM_PYTHON, needs_root
    from tui.core.agent.client.answering import offer
    from tui.core.system.endpoint import Stranger, connect_checked

    if needs_root.args[0]:
        pytest.skip(needs_root.kwargs["reason"])
    shared = tempfile.mkdtemp(dir="/tmp")  # noqa: S108 - a shared place, as /tmp is
    os.chmod(shared, 0o1777)
    path = os.path.join(shared, "agent.sock")
    key = place.write_answer_key(path)  # the person's key, left from their agent

    def as_nobody() -> None:
        os.setgid(NOBODY)
        os.setuid(NOBODY)

    stranger = subprocess.Popen(
        [SYSTEM_PYTHON or "python3", "-I", "-c", RECORDER, path],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=as_nobody,
        cwd="/",
    )
    try:
        assert stranger.stdout is not None and stranger.stdout.readline().strip() == "listening"
        assert offer(path) is None
        with pytest.raises(Stranger) as refused:
            connect_checked(path, 5)
        assert refused.value.uid == NOBODY
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as marker:  # the test's own look
            marker.connect(path)
            marker.sendall(b"END\n")
        heard, _ = stranger.communicate(timeout=30)
    finally:
        if stranger.poll() is None:
            stranger.kill()
        for name in os.listdir(shared):
            os.unlink(os.path.join(shared, name))
        os.rmdir(shared)
    assert heard.split() == ["END"] and key not in heard


FLOODER = """
import json, socket, sys, time
path, count = sys.argv[1], int(sys.argv[2])
held = []
for _ in range(count):
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)  # blocking: waits while the listener's queue is full
    conn.settimeout(60)
    held.append((conn, conn.makefile("rb")))
def ping_all():
    answers = []
    for conn, reader in held:
        try:  # a connection refused as busy was answered at once, and closed: its line is still there
            conn.sendall(b'{"v":1,"op":"ping"}\\n')
        except OSError:
            pass
        try:
            answers.append(json.loads(reader.readline() or b"{}"))
        except (OSError, ValueError):
            answers.append({})
    return answers
first = ping_all()
busy = sum(1 for a in first if "busy" in str(a.get("error", "")))
print("busy", busy, flush=True)
while True:  # kept alive (a request well within the agent's 10 s) until told to stop
    time.sleep(1)
    ping_all()
"""


def _flood(path: str, count: int):
    import subprocess
    import sys

    flooder = subprocess.Popen(
        [sys.executable, "-c", FLOODER, path, str(count)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert flooder.stdout is not None
    said = flooder.stdout.readline().split()
    assert said[:1] == ["busy"], (said, flooder.wait(30), flooder.stderr and flooder.stderr.read()[-3000:])
    return flooder, int(said[1])


def test_admission_shares_the_room_by_kind_and_bounds_each_peer():
    from tui.core.agent.server.admission import PER_PEER, Admission
    from tui.core.agent.wire.protocol import FORWARDED, LOCAL, UNKNOWN

    room = Admission(4000)
    assert [room.admit(FORWARDED, ("ssh", n // 300)) for n in range(1500)].count(True) == 1000  # its quarter
    assert room.admit(LOCAL, 1)  # the person's own: never in a server's share
    assert [room.admit(LOCAL, 2) for _ in range(PER_PEER + 5)].count(True) == PER_PEER  # one stuck program
    assert room.admit(LOCAL, 3)
    assert [room.admit(UNKNOWN, None) for _ in range(1200)].count(True) == 1000
    room.release(FORWARDED, ("ssh", 0))
    assert room.admit(FORWARDED, ("ssh", 9)) and not room.admit(FORWARDED, ("ssh", 10))


def test_a_flood_from_one_program_leaves_the_persons_token_served(laptop, server):
    """#58 11: a flood of connections used to take every place; one peer now holds at most its
    bound, and `token` (another process) is served throughout."""

    from tests.waiting import PATIENCE
    from tui.core.agent.server.admission import PER_PEER

    stored = valid(server)
    write_creds(laptop, stored)
    agent = RunningAgent(os.environ.copy())
    flooder = None
    try:
        flooder, busy = _flood(agent.path, PER_PEER + 40)
        assert busy == 40
        env = {**os.environ, "ASSISTANT_AUTH_SOCK": agent.path}
        token = run_command(["token"], env=env, timeout=PATIENCE)
        assert token.returncode == 0 and token.stdout.strip() == stored["access_token"], token.stderr
    finally:
        if flooder is not None:
            flooder.kill()
            flooder.wait()
        agent.stop()


def test_a_flood_through_a_servers_forward_leaves_this_machine_served(laptop, server, tmp_path):
    """The same flood from a server, through a real `ssh -R`: its SSH connection is one peer,
    bounded; the laptop's own `token` and another connection's are served."""

    from tests.agent.openssh import Forwarded, SshServer, needs_openssh
    from tests.waiting import PATIENCE
    from tui.core.agent.server.admission import PER_PEER

    if needs_openssh.args[0]:
        pytest.skip(needs_openssh.kwargs["reason"])
    stored = valid(server)
    write_creds(laptop, stored)
    agent = RunningAgent(os.environ.copy())
    sshd = SshServer(tmp_path / "sshd")
    forward = Forwarded(sshd, agent.path)
    flooder = None
    try:
        flooder, busy = _flood(forward.path, PER_PEER + 20)
        assert busy == 20
        here = {**os.environ, "ASSISTANT_AUTH_SOCK": agent.path}
        token = run_command(["token"], env=here, timeout=PATIENCE)
        assert token.returncode == 0 and token.stdout.strip() == stored["access_token"], token.stderr
    finally:
        if flooder is not None:
            flooder.kill()
            flooder.wait()
        forward.close()
        sshd.stop()
        agent.stop()


def test_a_full_queue_is_waited_for_not_taken_for_a_dead_agent(tmp_path):
    """A burst fills the agent's queue of connections not yet taken: a client's connect with a
    timeout answered EAGAIN at once ("Resource temporarily unavailable"). It now tries again
    until its own bound, and is served once the agent takes connections again."""
    import socket

    from tui.core.system.endpoint import _reach

    path = str(tmp_path / "q.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(0)
    first = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    first.connect(path)  # the queue now holds one: full
    with pytest.raises(TimeoutError):
        _reach(path, 0.2)
    taking = threading.Thread(target=lambda: [listener.accept() for _ in range(2)])
    taking.start()
    conn = _reach(path, 30)
    taking.join(30)
    conn.close()
    first.close()
    listener.close()
