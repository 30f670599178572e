"""The import rules of DESIGN.md, read from the modules' own imports with ``ast``.

* Packages form layers along the pipeline; a module imports only its own package and layers
  below it (:data:`LAYERS`): nothing imports ``cli/`` (but ``__main__``) or ``app/`` (but
  ``cli/``), the cost model imports nothing of the planner, and so on.
* ``dash``/``plotly`` only in ``app/``; ``numba`` only in ``codegen/``, ``profiler/``,
  ``tuning/``; ``jax`` only in ``importers/``, and only inside functions (lazily); ``ray`` only
  in ``tuning/``; ``argparse`` only in ``cli/``.
* No import circle between modules, counting imports inside functions too (an edge
  ``from pkg import mod`` goes to the module ``pkg.mod``, as import-linter's grimp counts it).

The checker is run on a small package with known violations too, so that it can be seen to fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from tests.conftest import REPO_ROOT

#: each top-level module or package of ``workbench`` and its layer: a module may import its own
#: package and any package of a lower layer, never one of the same or a higher layer
LAYERS = {
    "errors": 0, "fmt": 0, "paths": 0,
    "ir": 1,
    "importers": 2, "transforms": 2,
    "costmodel": 3,
    "planner": 4,
    "editing": 5,
    "codegen": 6,
    "profiler": 7,
    "tuning": 8,
    "exporters": 9, "teaching": 9,
    "app": 10,
    "cli": 11,
    "__main__": 12,
}

#: third-party packages only some of ours may import: name -> (allowed packages, lazily only)
RESTRICTED = {
    "dash": ({"app"}, False),
    "dash_cytoscape": ({"app"}, False),
    "dash_ag_grid": ({"app"}, False),
    "plotly": ({"app"}, False),
    "numba": ({"codegen", "profiler", "tuning"}, False),
    "jax": ({"importers"}, True),
    "jaxlib": ({"importers"}, True),
    "ray": ({"tuning"}, False),
    "argparse": ({"cli"}, False),
}


def module_files(root: Path, package: str) -> dict[str, Path]:
    """``{dotted module name: path}`` for every ``.py`` file under ``root/package``."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, modules) -> list[tuple[str, bool, int]]:
    """``(imported name, inside a function, line)`` for every import in the module ``name``;
    ``from pkg import x`` names ``pkg.x`` when that is a module, else ``pkg``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_pkg = path.name == "__init__.py"
    found = []

    def visit(node, lazy):
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, lazy, child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[:len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                for a in child.names:
                    sub = f"{target}.{a.name}"
                    found.append((sub if sub in modules else target, lazy, child.lineno))
            visit(child, inner)

    visit(tree, False)
    return found


def _package(module: str, top: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == top else ""


def check_imports(root: Path, top: str = "workbench", layers=None, restricted=None):
    """Every broken rule under ``root/top``, as readable lines (empty when all hold)."""
    layers = LAYERS if layers is None else layers
    restricted = RESTRICTED if restricted is None else restricted
    modules = module_files(root, top)
    graph = nx.DiGraph()
    problems = []
    for name, path in modules.items():
        graph.add_node(name)
        own = _package(name, top)
        where = f"{path.relative_to(root)}"
        for target, lazy, line in imports_of(name, path, modules):
            head = target.split(".")[0]
            if head == top:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target != name:
                    graph.add_edge(name, target)
                other = _package(target, top)
                if not own or not other or other == own:
                    continue
                if other not in layers or own not in layers:
                    problems.append(f"{where}:{line}: {own or top} or {other} has no layer in "
                                    "LAYERS (add the new package to the table)")
                elif layers[other] >= layers[own]:
                    problems.append(f"{where}:{line}: {own} (layer {layers[own]}) imports "
                                    f"{target} (layer {layers[other]}): imports point down "
                                    "the pipeline only")
            elif head in restricted:
                allowed, lazy_only = restricted[head]
                if own not in allowed:
                    problems.append(f"{where}:{line}: imports {head}, which only "
                                    f"{', '.join(sorted(allowed))} may import")
                elif lazy_only and not lazy:
                    problems.append(f"{where}:{line}: imports {head} at module level; it must "
                                    "be imported inside the function that needs it")
    for cycle in nx.simple_cycles(graph):
        problems.append("import circle: " + " -> ".join(cycle + cycle[:1]))
    return problems


def test_the_workbench_keeps_its_import_rules():
    problems = check_imports(REPO_ROOT)
    assert problems == [], "\n".join(problems)


def test_every_package_has_a_layer():
    packages = {p.name for p in (REPO_ROOT / "workbench").iterdir()
                if p.is_dir() and (p / "__init__.py").exists()}
    packages |= {p.stem for p in (REPO_ROOT / "workbench").glob("*.py") if p.stem != "__init__"}
    assert packages - set(LAYERS) == set()


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_checker_finds_each_kind_of_broken_rule(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ir/__init__.py": "",
        "pkg/ir/a.py": "from pkg.ir import b\n",
        "pkg/ir/b.py": "def f():\n    from pkg.ir import a\n",          # a lazy circle
        "pkg/planner/__init__.py": "import numba\n",                      # numba outside
        "pkg/planner/p.py": "from pkg.cli import main\n",                 # upward import
        "pkg/importers/__init__.py": "import jax\n",                      # jax not lazy
        "pkg/importers/lazy.py": "def load():\n    import jax\n",         # fine
        "pkg/cli/__init__.py": "import argparse\nfrom pkg.ir import a\n",        # fine
    })
    layers = {"ir": 1, "importers": 2, "planner": 4, "cli": 11}
    problems = check_imports(tmp_path, "pkg", layers, RESTRICTED)
    text = "\n".join(problems)
    assert len(problems) == 4, text
    assert "import circle: pkg.ir.a -> pkg.ir.b -> pkg.ir.a" in text or \
        "import circle: pkg.ir.b -> pkg.ir.a -> pkg.ir.b" in text
    assert "pkg/planner/__init__.py:1: imports numba" in text
    assert "pkg/planner/p.py:1: planner (layer 4) imports pkg.cli (layer 11)" in text
    assert "pkg/importers/__init__.py:1: imports jax at module level" in text
