"""Check the package's layering: no import cycles, no import from a higher layer.

Nor a private import across parts: a module of one part (``cli``) imports
another part (``client``) by its public names, never from one of its private
modules (``acphost.client._state``).

Run it from the repository root (``python tools/check_layers.py``); it exits
1 and lists every offending import otherwise. Imports are read with ``ast``
(nothing is executed), including those inside functions and under
``TYPE_CHECKING``: a cycle a type checker sees is a cycle too. Every module
is checked, the generated schema modules and the hand-written ones beside
them alike.

The layers, lowest first (a module may import its own layer and lower ones):
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "acphost"

#: Layer of each top-level part of the package, bottom up.
LAYERS: dict[str, int] = {
    "_version": 0,
    "errors": 0,
    "_outfile": 0,
    "_difftext": 0,
    "_infile": 0,
    "_child": 0,
    "_lazy": 0,
    "_xdg": 0,
    "_namedwire": 0,
    "_invisible": 0,
    "safetext": 0,
    "agents": 0,
    "schema": 1,
    "redact": 1,
    "config": 1,
    "transport": 2,
    "rpc": 3,
    "trace": 4,
    "host": 5,
    "content": 6,
    "client": 7,
    "view": 8,
    "history": 9,
    "launch": 10,
    "batch": 11,
    "cli": 12,
    "tui": 12,
    "__init__": 13,
    "__main__": 13,
}

__doc__ += "\n".join(
    f"    {n}: {', '.join(sorted(k for k, v in LAYERS.items() if v == n))}"
    for n in sorted(set(LAYERS.values()))
)

#: Imports allowed across the rule, each with its reason.
EXCEPTIONS: dict[tuple[str, str], str] = {
    # The CLI starts the TUI when asked (`acphost tui`): a lazy import of its
    # entry point, sideways, never the other way.
    ("cli", "tui"): "the tui subcommand launches the TUI",
}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            # `from . import schema` imports a submodule; `from .x import y`, a name of x.
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                path = ROOT / Path(*sub.split("."))
                found.add(sub if path.with_suffix(".py").exists() or path.is_dir() else target)
    found.discard(name)
    return found


def part_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def main() -> int:
    modules = {module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}
    graph = {name: imports_of(path, name) for name, path in modules.items()}
    problems: list[str] = []

    for name, targets in graph.items():
        src = part_of(name)
        if src not in LAYERS:
            problems.append(f"{name}: part {src!r} has no layer in tools/check_layers.py")
            continue
        for target in sorted(targets):
            dst = part_of(target)
            if dst == src or dst not in LAYERS:
                continue
            private = [p for p in target.split(".")[2:] if p.startswith("_")]
            if private:
                problems.append(
                    f"{name} imports {target}: a private module of {dst}; import the "
                    f"name from {PACKAGE}.{dst} (add it to its __all__ if it is missing)"
                )
            if LAYERS[dst] > LAYERS[src] and (src, dst) not in EXCEPTIONS:
                problems.append(
                    f"{name} imports {target}: {dst} (layer {LAYERS[dst]}) is above "
                    f"{src} (layer {LAYERS[src]})"
                )

    # Every module is a node, the generated schema modules and the hand-written
    # ones beside them included: a cycle through generated code is a cycle too.
    edges = {n: {t for t in ts if t in graph} for n, ts in graph.items()}
    for cycle in _cycles(edges):
        problems.append("import cycle: " + " -> ".join([*cycle, cycle[0]]))

    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} layering problem(s)")
        return 1
    print(f"layers ok: {len(modules)} modules, no cycles, no upward imports")
    return 0


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
