"""The layout is the architecture: layers as folders, imports in one direction, no cycles.

Every import under `tui/` counts, also the lazy ones inside functions: a cycle through a lazy
import is still two modules that need each other.
"""

from __future__ import annotations

import ast
import functools
import pathlib

import pytest

from tests.source_tree import nodes_of, source_of

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tui"

# what each layer may import (besides itself); everything else under tui/ is forbidden to it
ALLOWED = {
    "tui.core": set(),
    "tui.terminal": {"tui.core"},
    "tui.app": {"tui.core", "tui.terminal"},
    "tui.demo": {"tui.core"},  # the local authorization server `assistant-auth demo` runs (product)
    "tui.cli": {"tui.core", "tui.terminal", "tui.app", "tui.demo"},  # app: to open it; demo: `demo`
    "tui.dev": {"tui.core", "tui.terminal", "tui.app", "tui.demo"},  # developer tools, never imported by the product
}


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """Modules of tui/ that `name` imports, anywhere in its text."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in nodes_of(path):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Every module's imports, read when a test first asks (never at collection: every worker collects
    this file, and reading 244 modules' syntax trees cost each of them 0.85 s of CPU)."""
    return {name: imports_of(name) for name in MODULES}


def layer(name: str) -> str | None:
    return next((top for top in ALLOWED if name == top or name.startswith(top + ".")), None)


def test_every_module_belongs_to_a_layer():
    loose = sorted(name for name in MODULES if name != "tui" and layer(name) is None)
    assert loose == [], f"modules outside the layers: {loose}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_one_way(name):
    own = layer(name)
    if own is None:
        return
    wrong = sorted(t for t in import_graph()[name] if layer(t) not in (own, None) and layer(t) not in ALLOWED[own])
    assert wrong == [], f"{name} ({own}) must not import {wrong}"


def cycles_in(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components larger than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def test_no_import_cycles():
    assert cycles_in(import_graph()) == []


def test_the_checker_finds_cycles_and_lazy_imports():
    """Not vacuous: a two- and a three-module cycle are found, and lazy imports are edges."""
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}}
    assert cycles_in(graph) == [["a", "b"], ["c", "d", "e"]]
    assert "tui.core.credentials.refresh" in import_graph()["tui.core.agent.source"]  # imported inside a function


def package_of(name: str) -> str:
    """A module's folder inside the core (`tui.core.slots`, `tui.core.config`, …); a module lying
    directly in `tui/core/` stands for itself."""
    parts = name.split(".")
    if parts[:2] == ["tui", "core"] and len(parts) > 3:
        return ".".join(parts[:3])
    return name


def test_no_package_cycles_inside_core():
    """Folders of the core import one way (lazy imports count): the key rules sit below both
    `config/` and `slots/`, and `slots/` builds on `config/`, never the other way round."""
    core = {n: g for n, g in import_graph().items() if n.startswith("tui.core.")}
    packages: dict[str, set[str]] = {}
    for name, targets in core.items():
        own = package_of(name)
        packages.setdefault(own, set()).update(
            package_of(t) for t in targets if t.startswith("tui.core.") and package_of(t) != own
        )
    assert cycles_in(packages) == []
    assert "tui.core.slots" not in packages["tui.core.config"]


def test_the_package_view_collapses_folders():
    assert package_of("tui.core.slots.choice") == "tui.core.slots"
    assert package_of("tui.core.spec.keys") == "tui.core.spec"
    assert package_of("tui.core.errors") == "tui.core.errors"
    assert package_of("tui.cli.token") == "tui.cli.token"


def test_the_protocol_module_speaks_only_the_protocol():
    """`signin.protocol` sends and parses, and saves nothing: where tokens are stored and under
    which locks is the job of `signin.store`, called by whoever owns the attempt (lazy imports
    count). `tokens` does not borrow from the protocol: both parse token answers through `oauth`."""
    graph = import_graph()
    flow = graph["tui.core.signin.protocol"]
    assert not {t for t in flow if t == "tui.core.credentials.locks" or t.startswith("tui.core.credentials.locks.")}
    assert not {t for t in flow if t == "tui.core.config" or t.startswith("tui.core.config.")}
    assert "tui.core.signin.store" not in flow
    assert "tui.core.signin.saves" in graph["tui.core.signin.attempt"]  # the attempt's SAVING phase
    assert "tui.core.signin.saving" in graph["tui.core.signin.saves"]
    assert "tui.core.signin.store" in graph["tui.core.signin.saving"]
    assert "tui.core.signin.store" in graph["tui.core.signin.api"]
    assert "tui.core.signin.protocol" not in graph["tui.core.credentials.refresh"]
    assert (
        "tui.core.credentials.oauth" in graph["tui.core.credentials.refresh"] and "tui.core.credentials.oauth" in flow
    )


def test_no_product_module_imports_the_developer_tools():
    """`tui/dev` (bench, scenes, screenshots) is for developers; the demo server is product."""
    graph = import_graph()
    product = [name for name in graph if not name.startswith("tui.dev")]
    assert [n for n in product if any(t.startswith("tui.dev") for t in graph[n])] == []


SIGNAL_CALLS = (
    "signal.signal",
    "add_signal_handler",
    "remove_signal_handler",
    "pthread_sigmask",
    "signal.raise_signal",
)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not n.startswith("tui.dev")))
def test_one_signal_policy(name):
    """Only `tui.core.signals` sets a signal disposition (or raises one by policy); every other
    product module calls it."""
    if name == "tui.core.signals":
        return
    calls = {ast.unparse(node.func) for node in nodes_of(MODULES[name]) if isinstance(node, ast.Call)}
    assert not {c for c in calls if c.endswith(SIGNAL_CALLS)}, f"{name} sets a signal disposition"


# rooms a newcomer reads in one sitting: no module, class or function past these sizes (lines,
# docstrings included); a room that grows past one is split by job, not squeezed
MODULE_LINES, CLASS_LINES, FUNCTION_LINES = 400, 250, 60


def test_rooms_stay_small_enough_to_read():
    too_long = []
    for name, path in sorted(MODULES.items()):
        source = source_of(path)
        if len(source.splitlines()) > MODULE_LINES:
            too_long.append(f"module {name}: {len(source.splitlines())} lines")
        for node in nodes_of(path):
            limit = {ast.ClassDef: CLASS_LINES, ast.FunctionDef: FUNCTION_LINES, ast.AsyncFunctionDef: FUNCTION_LINES}
            if type(node) in limit and node.end_lineno - node.lineno + 1 > limit[type(node)]:
                too_long.append(f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert too_long == []


def test_the_agents_sides_stand_apart():
    """The token agent's two sides rest on the wire and the system, never on each other (OpenSSH's
    authfd.c / ssh-agent.c / authfd.h / openbsd-compat): a client decision never reaches into the
    server's modules, a server's never into the client's; the wire and the system know neither."""
    crossings = []
    rules = {
        "tui.core.agent.client": ("tui.core.agent.server",),
        "tui.core.agent.server": ("tui.core.agent.client",),
        "tui.core.agent.wire": ("tui.core.agent.client", "tui.core.agent.server", "tui.cli", "tui.app"),
        "tui.core.system": ("tui.core.agent", "tui.cli", "tui.app"),
    }
    for module, imports in import_graph().items():
        for side, forbidden in rules.items():
            if module == side or module.startswith(side + "."):
                crossings += [f"{module} -> {name}" for name in imports if name.startswith(forbidden)]
    assert crossings == []


def test_every_client_connects_through_the_one_checked_connect():
    """#58 12: a Unix socket is reached only in `tui.core.system` (`endpoint.connect_checked`, the
    owner and peer checks; `sockets.connect` beneath it): no product module outside the system
    layer calls `connect` on a socket of its own."""
    found = []
    for name, path in sorted(MODULES.items()):
        if name.startswith(("tui.core.system", "tui.dev", "tui.demo")):
            continue
        for node in nodes_of(path):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "connect":
                found.append(f"{name}:{node.lineno}")
    assert found == []


def test_every_flock_is_taken_through_the_system_layer():
    """#59 3: `flock` is called in `tui.core.system.locks` alone (`try_lock`, `lock`, `unlock`,
    `held`): another system's lock is a change there, not in every module that locks."""
    found = []
    for name, path in sorted(MODULES.items()):
        if name.startswith(("tui.core.system", "tui.dev", "tui.demo")):
            continue
        for node in nodes_of(path):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("flock", "lockf")
            ):
                found.append(f"{name}:{node.lineno}")
    assert found == []


SOCKET_MAKERS = ("socket", "socketpair", "fromfd", "create_server", "create_connection")


def test_every_socket_is_made_in_the_system_layer():
    """#59 3: a socket is made, bound, paired or adopted from a descriptor only in `tui.core.system`
    (`unix`: the agent's listener, the background agent's channel, an inherited descriptor;
    `endpoint`: the checked connect): another system's endpoint is a module there. The doctor's
    TCP probe of the authorization server (not the agent's endpoint) is the one other maker."""
    found = []
    for name, path in sorted(MODULES.items()):
        if name.startswith(("tui.core.system", "tui.dev", "tui.demo", "tui.core.doctor.network")):
            continue
        for node in nodes_of(path):
            made = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in ("socket", "_socket")
                and node.func.attr in SOCKET_MAKERS
            )
            unix = isinstance(node, ast.Attribute) and node.attr == "AF_UNIX"
            if made or unix:
                found.append(f"{name}:{node.lineno}")
    assert found == []


def test_the_agent_variable_is_read_in_one_place_and_never_written():
    """#59 2: ASSISTANT_AUTH_SOCK is read by `tui.core.agent.where.socket_path` alone, and no
    product module writes the environment to fall over to another connection (the socket that
    answered travels as `via`); the demo, which sets up its own temporary world, is the one writer."""
    readers, writers = [], []
    for name, path in sorted(MODULES.items()):
        if name.startswith("tui.dev"):
            continue
        for node in nodes_of(path):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                first = node.args[0] if node.args else None
                named = isinstance(first, (ast.Name, ast.Attribute)) and ast.unparse(first).endswith("SOCKET_ENV")
                if named and "environ" in ast.unparse(node.func.value) and name != "tui.core.agent.where":
                    readers.append(f"{name}:{node.lineno}")
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if isinstance(target, ast.Subscript) and ast.unparse(target.value).endswith("environ"):
                    writers.append(name)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in ("update", "setdefault", "pop") and ast.unparse(node.func.value).endswith(
                    "os.environ"
                ):
                    writers.append(name)
    assert readers == []
    assert writers == ["tui.cli.demo"]


def test_the_region_words_are_listed_once():
    """#59 4: the list of regions is `settings.REGIONS` alone: no other product module spells the
    pair out (a third region is one word there, not a hunt through the tree)."""
    found = []
    for name, path in sorted(MODULES.items()):
        if name.startswith(("tui.dev", "tui.core.spec.settings")):
            continue
        for node in nodes_of(path):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) == 2:
                words = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if words == {"cn", "global"}:
                    found.append(f"{name}:{node.lineno}")
    assert found == []
