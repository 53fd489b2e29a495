"""The rules of fcsim's architecture (docs/architecture.md), checked on its source.

- Layers import downward only: no import cycle among fcsim's modules and no two
  fcsim packages that import each other (imports made only for type checking
  count: a lower layer declares the ``Protocol`` it needs).
- Nothing is patched: no assignment to ``__class__``, no method replaced on an
  object (a function, bound method or lambda assigned to another object's
  attribute named as a method of an fcsim class), no write (or ``del``) of
  another object's private attribute (the engine alone steps SimPy's event
  objects), no hook on another object replaced (so chained) by whoever is
  built later: an object declares what plugs into it.
- SimPy's private clock is read only by the engine (``Simulation.now`` is the
  public one).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2] / "fcsim"


@cache
def modules() -> dict[str, Path]:
    """Every fcsim module by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


@cache
def tree(name: str) -> ast.Module:
    return ast.parse(modules()[name].read_text(encoding="utf-8"))


def imported(name: str) -> set[str]:
    """The fcsim modules *name* imports, anywhere in it (under TYPE_CHECKING too)."""
    mods = modules()
    out: set[str] = set()
    for node in ast.walk(tree(name)):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                if mods[name].name != "__init__.py":
                    parts = parts[:-1]
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{alias.name}" for alias in node.names}
    return {m for m in out if m in mods and m != name}


def graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for name in modules():
        g.add_node(name)
        g.add_edges_from((name, other) for other in imported(name))
    return g


def package(name: str) -> str | None:
    """The fcsim package a module belongs to (None for a top-level module)."""
    parts = name.split(".")
    if len(parts) > 2 or (len(parts) == 2 and modules()[name].name == "__init__.py"):
        return parts[1]
    return None


def test_no_import_cycle_among_modules() -> None:
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph()) if len(c) > 1]
    assert cycles == []


def test_no_two_packages_import_each_other() -> None:
    pairs: set[tuple[str, str]] = set()
    for a, b in graph().edges:
        pa, pb = package(a), package(b)
        if pa and pb and pa != pb:
            pairs.add((pa, pb))
    both = sorted({tuple(sorted(p)) for p in pairs if (p[1], p[0]) in pairs})
    assert both == []


def _method_names() -> set[str]:
    """Names of the methods fcsim's classes define (not properties), less those
    that some class also uses as data."""
    names: set[str] = set()
    for name in modules():
        for node in ast.walk(tree(name)):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not any(
                            isinstance(d, ast.Name) and d.id in ("property", "staticmethod")
                            or isinstance(d, ast.Attribute) and d.attr == "setter"
                            for d in item.decorator_list):
                        names.add(item.name)
    return names - {"__init__"} - _data_names()


def _data_names() -> set[str]:
    """Names fcsim's classes also use as data: assigned on ``self``, in
    ``__slots__`` or annotated in a class body."""
    names: set[str] = set()
    for name in modules():
        for node in ast.walk(tree(name)):
            for target in _targets(node):
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self"):
                    names.add(target.attr)
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        names.add(item.target.id)
                    elif (isinstance(item, ast.Assign) and any(
                            isinstance(t, ast.Name) and t.id == "__slots__"
                            for t in item.targets)):
                        names |= {e.value for e in ast.walk(item.value)
                                  if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return names


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        out: list[ast.expr] = []
        for target in node.targets:
            out += target.elts if isinstance(target, ast.Tuple) else [target]
        return out
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "setattr", "delattr") and len(node.args) >= 2 and isinstance(
            node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return [ast.Attribute(value=node.args[0], attr=node.args[1].value)]
    return []


def patches() -> list[str]:
    """Every place that swaps a class, replaces a method on an object or writes
    another object's private attribute."""
    methods = _method_names()
    found: list[str] = []
    for name, path in modules().items():
        for node in ast.walk(tree(name)):
            for target in _targets(node):
                if not isinstance(target, ast.Attribute):
                    continue
                attr, owner = target.attr, target.value
                own = isinstance(owner, ast.Name) and owner.id in ("self", "cls")
                where = f"{path.relative_to(ROOT.parent)}:{node.lineno}"  # type: ignore[attr-defined]
                if attr == "__class__":
                    found.append(f"{where}: assigns __class__")
                elif (attr.startswith("_") and not attr.startswith("__") and not own
                      and not name.startswith("fcsim.engine")):
                    found.append(f"{where}: writes {ast.unparse(target)}")
                elif (attr in methods and not own and isinstance(node, ast.Assign)
                      and isinstance(node.value, (ast.Lambda, ast.Attribute, ast.Name, ast.Call))):
                    found.append(f"{where}: replaces the method {ast.unparse(target)}")
                elif attr.endswith("_hook") and not own:
                    found.append(f"{where}: chains the hook {ast.unparse(target)}")
    return found


def test_nothing_is_patched() -> None:
    assert patches() == []


def test_only_the_engine_reads_simpys_clock() -> None:
    readers = [f"{path.relative_to(ROOT.parent)}:{node.lineno}"
               for name, path in modules().items() if not name.startswith("fcsim.engine")
               for node in ast.walk(tree(name))
               if isinstance(node, ast.Attribute) and node.attr == "_now"]
    assert readers == []
