"""Spec 2.7 (device identity file) and 4.7 (identity headers)."""

import os
import re

from tui import __version__
from tui.core import device_id, identity_headers
from tui.core.spec.paths import device_id_path


def test_device_id_created_with_spec_shape(home):
    value = device_id()
    assert re.fullmatch(rf"assistant-auth-[0-9a-f]+-{os.getpid()}", value)
    assert device_id_path().read_text().strip() == value
    assert device_id() == value  # reused


def test_existing_device_id_reused_trimmed(home):
    home.mkdir(parents=True)
    device_id_path().write_text("  my-device  \n")
    assert device_id() == "my-device"


def test_blank_device_id_file_is_regenerated(home):
    home.mkdir(parents=True)
    device_id_path().write_text("   \n")
    assert device_id().startswith("assistant-auth-")


def test_failed_write_is_ignored(home, monkeypatch):
    import tui.core.files.identity as identity

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(identity, "atomic_write", refuse)
    value = device_id()
    assert value.startswith("assistant-auth-") and not device_id_path().exists()


def test_identity_headers(monkeypatch, home):
    monkeypatch.delenv("COMPUTERNAME", raising=False)
    monkeypatch.setenv("HOSTNAME", "box")
    monkeypatch.delenv("OS", raising=False)
    headers = identity_headers()
    assert headers["X-Vendor-Version"] == __version__
    assert headers["X-Vendor-Device-Name"] == "box"
    assert headers["X-Vendor-Device-Model"].endswith(" box")
    assert headers["X-Vendor-Os-Version"] == headers["X-Vendor-Device-Model"].split(" ")[0]
    assert headers["X-Vendor-Platform"]
    assert headers["X-Vendor-Device-Id"] == device_id()


def test_identity_header_precedence_and_sanitizing(monkeypatch):
    monkeypatch.setenv("COMPUTERNAME", "wïn\r\nX-Evil: 1")
    monkeypatch.setenv("HOSTNAME", "ignored")
    monkeypatch.setenv("OS", "Windows_NT")
    headers = identity_headers()
    assert headers["X-Vendor-Device-Name"] == "w?n??X-Evil: 1"
    assert headers["X-Vendor-Os-Version"] == "Windows_NT"


def test_fallback_host(monkeypatch):
    monkeypatch.delenv("COMPUTERNAME", raising=False)
    monkeypatch.delenv("HOSTNAME", raising=False)
    assert identity_headers()["X-Vendor-Device-Name"] == "unknown-host"
