"""Where the files live (spec 2.1, 2.6, 2.7). Read from the environment at call time.

The `*_file` functions return plain strings without importing pathlib (the token hot path);
the `pathlib.Path` functions of the core API are built on them.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    import pathlib

ENV_HOME = "ASSISTANT_CODE_HOME"
DEFAULT_DIR_NAME = ".assistant-code"


def config_dir_str() -> str:
    override = os.environ.get(ENV_HOME, "").strip()
    if override:
        return os.path.expanduser(override)
    return os.path.join(os.path.expanduser("~"), DEFAULT_DIR_NAME)


def credentials_file(storage_name: str) -> str:
    return os.path.join(config_dir_str(), "credentials", f"{storage_name}.json")


def config_file() -> str:
    return os.path.join(config_dir_str(), "config.toml")


def config_dir() -> pathlib.Path:
    import pathlib  # lazy: the token hot path never needs it

    return pathlib.Path(config_dir_str())


def credentials_dir() -> pathlib.Path:
    return config_dir() / "credentials"


def credentials_path(storage_name: str) -> pathlib.Path:
    return credentials_dir() / f"{storage_name}.json"


def config_path() -> pathlib.Path:
    return config_dir() / "config.toml"


def device_id_path() -> pathlib.Path:
    return config_dir() / "device_id"
