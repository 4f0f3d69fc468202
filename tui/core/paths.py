"""Where the files live (spec 2.1, 2.6, 2.7). Read from the environment at call time."""

from __future__ import annotations

import os
import pathlib

ENV_HOME = "ASSISTANT_CODE_HOME"
DEFAULT_DIR_NAME = ".assistant-code"


def config_dir() -> pathlib.Path:
    override = os.environ.get(ENV_HOME, "").strip()
    if override:
        return pathlib.Path(override).expanduser()
    return pathlib.Path.home() / DEFAULT_DIR_NAME


def credentials_dir() -> pathlib.Path:
    return config_dir() / "credentials"


def credentials_path(storage_name: str) -> pathlib.Path:
    return credentials_dir() / f"{storage_name}.json"


def lock_path(storage_name: str) -> pathlib.Path:
    """The cross-process single-flight lock file, beside the credential file."""
    return credentials_dir() / f"{storage_name}.json.lock"


def config_path() -> pathlib.Path:
    return config_dir() / "config.toml"


def device_id_path() -> pathlib.Path:
    return config_dir() / "device_id"
