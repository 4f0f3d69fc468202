"""The project's modules as syntax trees, each read and parsed once per test process.

The rule tests (layers, imports, signals, sockets, locks, messages) each walked every module of
`tui`: test_layers alone parsed all 244 modules nine times. A tree is only read by them, never
changed, so each file's text, its tree and its nodes in `ast.walk` order are kept for the next rule."""

from __future__ import annotations

import ast
import functools
import pathlib


@functools.cache
def source_of(path: pathlib.Path) -> str:
    return path.read_text(encoding="utf-8")


@functools.cache
def syntax_of(path: pathlib.Path) -> ast.Module:
    return ast.parse(source_of(path), str(path))


@functools.cache
def nodes_of(path: pathlib.Path) -> tuple[ast.AST, ...]:
    """Every node of the file, as `ast.walk` gives them."""
    return tuple(ast.walk(syntax_of(path)))
