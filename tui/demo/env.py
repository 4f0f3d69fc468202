"""The one "point everything at this server" environment, for the demo, the benchmarks, the
screenshot scenes and the tests: cn is http://127.0.0.1:PORT, global http://localhost:PORT (one
server, two distinct hosts, so the two regions get two slots)."""

from __future__ import annotations


def server_env(url: str, home: object | None = None) -> dict[str, str]:
    """Settings that send both regions to the local server at `url` (and, with `home`, keep
    every file in that directory instead of ~/.assistant-code)."""
    port = url.rsplit(":", 1)[1].rstrip("/")
    env = {
        "ASSISTANT_OAUTH_HOST_CN": f"http://127.0.0.1:{port}",
        "ASSISTANT_OAUTH_HOST_GLOBAL": f"http://localhost:{port}",
        "ASSISTANT_BASE_URL_CN": f"http://127.0.0.1:{port}/cn/coding/v1",
        "ASSISTANT_BASE_URL_GLOBAL": f"http://localhost:{port}/global/coding/v1",
    }
    if home is not None:
        env["ASSISTANT_CODE_HOME"] = str(home)
    return env
