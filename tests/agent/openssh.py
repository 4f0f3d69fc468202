"""A real OpenSSH server on 127.0.0.1 for one test (a free port, throwaway host and user keys in a
temporary directory), and plain `ssh -R` to it. Tests that use it are skipped where `sshd` is not
installed (`needs_openssh`); `.ci/run` installs OpenSSH so CI runs them."""

from __future__ import annotations

import getpass
import os
import pathlib
import secrets
import shlex
import shutil
import socket
import subprocess
import time

import pytest

from tests.cli.test_cli import SCRIPT
from tests.commands import run_command
from tests.conftest import default_signals, terminate
from tests.waiting import PATIENCE, until

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
needs_openssh = pytest.mark.skipif(
    not os.path.exists(SSHD) or shutil.which("ssh") is None,
    reason="OpenSSH (sshd and ssh) is not installed here; .ci/run installs it",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SshServer:
    """sshd on 127.0.0.1 for this test alone, letting the current user in with a throwaway key."""

    def __init__(self, where: pathlib.Path, forwarding: bool = True, extra: tuple[str, ...] = ()) -> None:
        where.mkdir(mode=0o700)
        for name in ("host_key", "user_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(where / name)], check=True)
        (where / "authorized_keys").write_text((where / "user_key.pub").read_text())
        os.chmod(where / "authorized_keys", 0o600)
        self.home = where / "server-assistant-home"  # what the server's shell takes as ASSISTANT_CODE_HOME
        self.port = free_port()
        self.key = where / "user_key"
        config = where / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    f"Port {self.port}",
                    "ListenAddress 127.0.0.1",
                    f"HostKey {where / 'host_key'}",
                    f"PidFile {where / 'sshd.pid'}",
                    f"AuthorizedKeysFile {where / 'authorized_keys'}",
                    "StrictModes no",
                    "UsePAM no",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "PermitRootLogin yes",
                    f"AllowStreamLocalForwarding {'yes' if forwarding else 'no'}",
                    "LogLevel ERROR",
                    "AcceptEnv ASSISTANT_CODE_HOME",  # the server side's home: the test's, never root's
                    *extra,
                    "",
                ]
            )
        )
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # its privilege separation directory
        self.process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config)], stderr=subprocess.PIPE, text=True, preexec_fn=default_signals
        )
        deadline = time.monotonic() + PATIENCE
        while True:  # the exact state: sshd accepts on its port
            assert self.process.poll() is None, self.process.stderr.read()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "sshd never listened"
                time.sleep(0.05)

    def options(self) -> list[str]:
        return [
            "-F",
            "/dev/null",
            "-o",
            f"SetEnv=ASSISTANT_CODE_HOME={self.home}",
            "-i",
            str(self.key),
            "-p",
            str(self.port),
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "BatchMode=yes",
            "-o",
            "LogLevel=ERROR",
        ]

    @property
    def host(self) -> str:
        return f"{getpass.getuser()}@127.0.0.1"

    def stop(self) -> None:
        terminate(self.process, timeout=10)


def remote(server_home: pathlib.Path, *words: str) -> list[str]:
    """A command run by the server's shell: its own home (nothing of the laptop's environment)."""
    return ["env", f"ASSISTANT_CODE_HOME={shlex.quote(str(server_home))}", "ASSISTANT_LANG=en", SCRIPT, *words]


def relaying_sshd(where: pathlib.Path, server_home: pathlib.Path) -> SshServer:
    """An sshd whose sessions have the server's own home and the installed command on PATH: what
    `assistant-auth ssh --relay` needs there (the relay is started by name)."""
    settings = (
        f"SetEnv ASSISTANT_CODE_HOME={server_home} ASSISTANT_LANG=en PATH={os.path.dirname(SCRIPT)}:/usr/bin:/bin"
    )
    return SshServer(where, extra=(settings,))


def assistant_ssh(
    sshd: SshServer, ours: list[str], command: list[str], env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """`assistant-auth ssh OURS… HOST COMMAND…` to the test's sshd, run to its end (no terminal)."""
    return run_command(
        ["ssh", *ours, *sshd.options(), sshd.host, *command],
        env=os.environ.copy() if env is None else env,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def relay_and_read(sshd: SshServer, server_home: pathlib.Path, *ours: str) -> subprocess.CompletedProcess:
    """`assistant-auth ssh --relay OURS… HOST` whose command waits until the relay has filled the
    official client's file on the server, then prints it."""
    target = shlex.quote(str(server_home / "credentials" / "assistant-code.json"))
    script = f"until test -s {target}; do sleep 0.05; done; cat {target}"
    return assistant_ssh(sshd, ["--relay", *ours], ["sh", "-c", shlex.quote(script)])


def forward(sshd: SshServer, remote_path: str, agent_path: str, command: str | None, **popen) -> subprocess.Popen:
    """Plain `ssh -R REMOTE:AGENT` running `command` on the server; None: the forward alone (`-N`),
    which leaves nothing running there when it closes (a `sleep 600` outlived every test)."""
    argv = ["ssh", *sshd.options(), "-o", "ExitOnForwardFailure=yes", "-R", f"{remote_path}:{agent_path}"]
    remote = [sshd.host, command] if command is not None else ["-N", sshd.host]
    return subprocess.Popen([*argv, *remote], stdin=subprocess.DEVNULL, **popen)


ACCEPTING = 0x10000  # __SO_ACCEPTCON in /proc/net/unix's Flags: the socket listens


def listening(path: str) -> bool:
    """A Unix socket at `path` that listens (Linux: /proc/net/unix; the suite is Linux's)."""
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="replace") as table:
            rows = table.read().splitlines()[1:]
    except OSError:
        return False
    for row in rows:
        fields = row.split(None, 7)
        if len(fields) == 8 and fields[7] == path and int(fields[3], 16) & ACCEPTING:
            return True
    return False


class Forwarded:
    """`ssh -R` to the test's sshd, held open while the test asks through the server's end."""

    def __init__(self, sshd: SshServer, agent_path: str) -> None:
        self.path = f"/tmp/assistant-auth-{secrets.token_hex(8)}.sock"  # as assistant-auth ssh names it
        self.connection = forward(sshd, self.path, agent_path, None, preexec_fn=default_signals)
        # up when sshd listens there, not when the name exists: it binds first and listens after, and a
        # connect between the two is refused (seen under load). Read from the kernel's table, so that no
        # probe connection reaches the agent (its connections are numbered and asked about).
        until(lambda: listening(self.path) or self.connection.poll() is not None)
        assert listening(self.path), "the forwarding never came up"

    def close(self) -> None:
        terminate(self.connection)
        if os.path.lexists(self.path):
            os.unlink(self.path)
