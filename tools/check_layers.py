#!/usr/bin/env python3
"""Checks the dependency rules of ARCHITECTURE.md "Layers"; exits 1 and names every offence.

C++: a folder of cpp/tpustrategy may include its own headers and those of folders on a lower
level of LAYERS, nothing above (a back-edge fails with the file, the line and the rule).
cpp/tpustrategy never includes pybind11, Python.h or cpp/bindings.

Python: no import cycle in python/tpustrategy, checked twice.
1. Among the imports that run when a module is imported (module level, including module-level
   ``if``/``try``/``with``/class bodies; not those under ``if TYPE_CHECKING:``): any cycle fails.
2. Among all imports, those inside functions too (they run at call time, so they cannot break an
   import, but they hide a circle): a circle fails unless one of its deferred imports is marked
   ``# lazy: <why>`` (on its line or in the comment block above it). STYLE allows a deferred
   import only where a facade breaks a genuine runtime dependency, and asks for the reason.
Edges: ``from pkg import name`` goes to ``pkg.name`` when that is a module, else to ``pkg`` (its
``__init__``). Importing ``a.b.c`` from ``a.x`` also goes to the package ``a.b``, whose ``__init__``
runs first, but not to ``a``, an ancestor of the importer, which is initialising already.

Usage: python3 tools/check_layers.py [--root DIR] [--package NAME]   (DIR: the repository root)
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

# ---- the rules, lowest level first ---------------------------------------------------------------
# A folder may include folders of a strictly lower level (and itself); folders on the same level
# may not include each other.
LAYERS: list[tuple[str, ...]] = [
    ("core",),  # DType, Shape, Buffer, Tensor, errors: depends on nothing above it
    ("parallel",),  # the worker pool, when it moves out of runtime/ (not there yet)
    ("tpu",),
    ("ops",),
    ("autodiff",),
    ("collectives",),
    ("runtime",),
    ("spmd",),
    ("sim",),
    ("distribute", "data"),
    ("checkpoint",),  # TF's TensorBundle checkpoint files, over data/'s CRC32C, wire and atomic files
]

# Includes that cpp/tpustrategy may never have (the core is plain C++: no Python, no bindings).
FORBIDDEN_INCLUDES: list[tuple[str, str]] = [
    (r"^pybind11/", "cpp/tpustrategy never includes pybind11 (bindings live in cpp/bindings)"),
    (r"^(Python|pyconfig)\.h$", "cpp/tpustrategy never includes Python headers"),
    (r"^(bindings/|\.\./bindings/)", "cpp/tpustrategy never includes cpp/bindings"),
]

# Known violations, to be removed (none today): (file under cpp/tpustrategy, included header).
# A stale entry fails the check, so the list cannot rot.
KNOWN_VIOLATIONS: set[tuple[str, str]] = set()

LAZY_MARK = re.compile(r"#\s*lazy:\s*\S")

CPP_SUFFIXES = {".h", ".hh", ".hpp", ".cc", ".cpp", ".cxx", ".inc"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


@dataclass(frozen=True)
class Offence:
    where: str  # file:line
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def _level_of() -> dict[str, int]:
    return {folder: level for level, folders in enumerate(LAYERS) for folder in folders}


def check_cpp(root: Path, known: set[tuple[str, str]] | None = None) -> list[Offence]:
    """Back-edges and forbidden includes under root/cpp/tpustrategy (known violations excepted)."""
    known = KNOWN_VIOLATIONS if known is None else known
    base = root / "cpp" / "tpustrategy"
    levels = _level_of()
    offences: list[Offence] = []
    seen_known: set[tuple[str, str]] = set()
    if not base.is_dir():
        return [Offence(str(base), "no such folder")]
    for path in sorted(p for p in base.rglob("*") if p.suffix in CPP_SUFFIXES and p.is_file()):
        relative = path.relative_to(base).as_posix()
        folder = relative.split("/", 1)[0] if "/" in relative else ""
        if folder not in levels:
            offences.append(Offence(f"cpp/tpustrategy/{relative}:1",
                                    f"folder '{folder or '.'}' has no level in LAYERS (tools/check_layers.py): "
                                    "place it there"))
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = INCLUDE_RE.match(line)
            if not match:
                continue
            header = match.group(1)
            where = f"cpp/tpustrategy/{relative}:{number}"
            for pattern, rule in FORBIDDEN_INCLUDES:
                if re.search(pattern, header):
                    offences.append(Offence(where, f"includes <{header}>: {rule}"))
            parts = header.split("/")
            if len(parts) < 3 or parts[0] != "tpustrategy":
                continue
            target = parts[1]
            if target not in levels:
                offences.append(Offence(where, f"includes {header}: folder '{target}' has no level in LAYERS"))
                continue
            if target == folder or levels[target] < levels[folder]:
                continue
            if (relative, header) in known:
                seen_known.add((relative, header))
                continue
            relation = "the same level as" if levels[target] == levels[folder] else "above"
            offences.append(Offence(where, f"includes {header}: back-edge {folder}/ -> {target}/ "
                                    f"('{target}' is {relation} '{folder}' in LAYERS: {_layers_text()})"))
    for relative, header in sorted(known - seen_known):
        offences.append(Offence("tools/check_layers.py (KNOWN_VIOLATIONS)",
                                f"cpp/tpustrategy/{relative} no longer includes {header}: delete the entry"))
    return offences


def _layers_text() -> str:
    return " < ".join("|".join(folders) for folders in LAYERS)


# ---- Python -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    eager: bool = True  # runs when the module is imported (else inside a function)
    marked_lazy: bool = False  # a deferred import with a `# lazy: <reason>` comment


def _module_name(package_root: Path, path: Path) -> str:
    parts = list(path.relative_to(package_root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module):
    """(import statement, runs at import time?) for every import of the module (see the docstring)."""
    eager: set[int] = set()
    typing_only: set[int] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            eager.add(id(node))
        elif isinstance(node, ast.If):
            if _is_type_checking(node.test):
                typing_only.update(id(n) for child in node.body for n in ast.walk(child))
            else:
                pending.extend(node.body)
            pending.extend(node.orelse)
        elif isinstance(node, ast.Try) or (sys.version_info >= (3, 11) and isinstance(node, ast.TryStar)):
            pending.extend(node.body)
            for handler in node.handlers:
                pending.extend(handler.body)
            pending.extend(node.orelse)
            pending.extend(node.finalbody)
        elif isinstance(node, (ast.With, ast.For, ast.While, ast.ClassDef)):
            pending.extend(node.body)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in typing_only:
            yield node, id(node) in eager


def _is_marked_lazy(lines: list[str], lineno: int) -> bool:
    """A deferred import that says why it is deferred: `# lazy: <reason>` on its line or in the comment
    block just above it."""
    if LAZY_MARK.search(lines[lineno - 1]):
        return True
    number = lineno - 2
    while number >= 0 and lines[number].strip().startswith("#"):
        if LAZY_MARK.search(lines[number]):
            return True
        number -= 1
    return False


def _initialised_by(importer: str, target: str) -> list[str]:
    """The modules that importing `target` from `importer` needs: the packages on the way down that are
    not ancestors of the importer (those are initialising already), then the target itself (even an
    ancestor: `from pkg import name` needs pkg's __init__ to have defined `name`)."""
    parts = target.split(".")
    chain = [".".join(parts[:i]) for i in range(1, len(parts))]
    ancestors = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 2)}  # and itself
    return [module for module in chain if module not in ancestors] + ([target] if target != importer else [])


def python_import_graph(package_root: Path) -> dict[str, list[Edge]]:
    """Module -> its import edges (module level and deferred) to other modules of the package."""
    files = {_module_name(package_root, p): p for p in sorted(package_root.rglob("*.py"))}
    packages = {name for name, p in files.items() if p.name == "__init__.py"}
    # Compiled modules (the pybind11 _core, seen through its stubs or its built library) are leaves.
    leaves = {_module_name(package_root, p) for p in package_root.rglob("*.pyi")}
    leaves |= {_module_name(package_root, p.with_name(p.name.split(".", 1)[0] + ".py"))
               for pattern in ("*.so", "*.pyd") for p in package_root.rglob(pattern)}
    modules = set(files) | leaves
    top = package_root.name
    graph: dict[str, list[Edge]] = {name: [] for name in modules}
    for name, path in files.items():
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        tree = ast.parse(source, filename=str(path))
        own_package = name if name in packages else name.rpartition(".")[0]
        seen: set[tuple[str, str]] = set()
        for node, eager in _imports(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base_parts = own_package.split(".")
                    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    targets.append(candidate if candidate in modules else base)
            for target in targets:
                if target != top and not target.startswith(top + "."):
                    continue
                # `import a.b.c` where a.b.c is not a module of ours (an attribute): its closest module.
                while target not in modules and "." in target:
                    target = target.rpartition(".")[0]
                marked = not eager and _is_marked_lazy(lines, node.lineno)
                for reached in _initialised_by(name, target):
                    if reached in modules and (name, reached) not in seen:
                        seen.add((name, reached))
                        graph[name].append(Edge(name, reached, node.lineno, eager, marked))
    return graph


def _strongly_connected(graph: dict[str, list[Edge]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        # Iterative Tarjan: (node, iterator over its successors).
        work = [(start, iter(sorted({e.target for e in graph[start]})))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted({e.target for e in graph[succ]}))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def _one_cycle(graph: dict[str, list[Edge]], component: list[str]) -> list[Edge]:
    """A shortest cycle through the component's first module (breadth-first inside the component)."""
    members = set(component)
    start = component[0]
    parent: dict[str, Edge] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for edge in sorted(graph[node], key=lambda e: (e.target, e.line)):
                if edge.target not in members:
                    continue
                if edge.target == start:
                    path = [edge]
                    while path[0].source != start:
                        path.insert(0, parent[path[0].source])
                    return path
                if edge.target not in parent:
                    parent[edge.target] = edge
                    following.append(edge.target)
        frontier = following
    raise AssertionError("a strongly connected component always has a cycle")


def check_python(root: Path, package: str = "tpustrategy") -> list[Offence]:
    """Import cycles: among module-level imports, then among all imports but the `# lazy:` ones."""
    package_root = root / "python" / package
    if not package_root.is_dir():
        return [Offence(str(package_root), "no such folder")]
    graph = python_import_graph(package_root)
    eager = {name: [e for e in edges if e.eager] for name, edges in graph.items()}
    unmarked = {name: [e for e in edges if not e.marked_lazy] for name, edges in graph.items()}
    offences = _cycles(eager, package, "import cycle at import time")
    reported = {frozenset(c) for c in _strongly_connected(eager)}
    offences += _cycles(unmarked, package, "import circle through imports inside functions (break it by moving "
                        "the shared piece into a lower module, or mark a facade's deliberate deferred import "
                        "`# lazy: <why>`)", skip=reported)
    return offences


def _cycles(graph: dict[str, list[Edge]], package: str, what: str,
            skip: set[frozenset[str]] = frozenset()) -> list[Offence]:
    offences = []
    for component in _strongly_connected(graph):
        if frozenset(component) in skip:
            continue
        cycle = _one_cycle(graph, component)
        steps = " -> ".join([cycle[0].source] + [e.target for e in cycle])
        lines = "; ".join(f"{e.source} line {e.line} imports {e.target}" + ("" if e.eager else " (in a function)")
                          for e in cycle)
        extra = f" (the circle has {len(component)} modules: {', '.join(component)})" if len(component) > len(
            cycle) else ""
        offences.append(Offence(f"python/{package}", f"{what}: {steps}{extra}\n    {lines}"))
    return offences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--package", default="tpustrategy", help="the Python package under ROOT/python")
    args = parser.parse_args(argv)
    offences = check_cpp(args.root) + check_python(args.root, args.package)
    for offence in offences:
        print(offence)
    if offences:
        print(f"check_layers: {len(offences)} offence(s); the rules are at the top of tools/check_layers.py")
        return 1
    print(f"check_layers: C++ layers ({_layers_text()}) and Python imports (no cycle) hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
