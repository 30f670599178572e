"""The import rules of DESIGN.md, read from the modules' own imports with ``ast``.

* Packages form layers along the pipeline; a module imports only its own package and layers
  below it (:data:`LAYERS`): nothing imports ``cli/`` (but ``__main__``) or ``app/`` (but
  ``cli/``), the cost model imports nothing of the planner, and so on.
* ``dash``/``plotly`` only in ``app/``; ``numba`` only in ``codegen/``, ``profiler/``,
  ``tuning/``; ``jax`` only in ``importers/``, and only inside functions (lazily); ``ray`` only
  in ``tuning/``; ``argparse`` only in ``cli/``.
* No import circle between modules, counting imports inside functions too (an edge
  ``from pkg import mod`` goes to the module ``pkg.mod``, as import-linter's grimp counts it).
* ``workbench/__init__.py`` imports nothing of the workbench; an import of a workbench module that
  does not exist (a path left over from a move) is an error; ``importlib.import_module("x")`` and
  ``__import__("x")`` with a literal name count as imports, and with a computed name only where
  :data:`DYNAMIC_IMPORTS` says why.
* The core loads without numba, llvmlite, dash, plotly, argparse, jax or ray (a fresh process).

The checker is run on a small package with known violations too, so that it can be seen to fail.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx

from tests.conftest import REPO_ROOT

#: each top-level module or package of ``workbench`` and its layer: a module may import its own
#: package and any package of a lower layer, never one of the same or a higher layer
LAYERS = {
    "errors": 0, "fmt": 0, "paths": 0,
    "ir": 1, "files": 1,
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
    "numba_cuda": ({"codegen", "profiler", "tuning"}, False),
    "llvmlite": ({"codegen", "profiler", "tuning"}, False),
    "diskcache": ({"app"}, False),
    "flask": ({"app"}, False),
    "jax": ({"importers"}, True),
    "jaxlib": ({"importers"}, True),
    "ray": ({"tuning"}, False),
    "argparse": ({"cli"}, False),
}


#: modules that import a module whose name they compute, and why
DYNAMIC_IMPORTS = {
    "workbench.codegen.blas": "finds the OpenBLAS library that numpy's or scipy's wheel bundles",
    "workbench.tuning.tasks": "a worker process runs the task function an executor names "
                              "('module:function', named by the workbench's own code: the "
                              "measurement; the tests' faulty measurements)",
}

#: the core, as a user of the Python API loads it: none of :data:`HEAVY` may come with it
CORE = ("workbench.ir", "workbench.importers", "workbench.transforms", "workbench.costmodel",
        "workbench.planner", "workbench.editing", "workbench.codegen", "workbench.profiler",
        "workbench.exporters")
HEAVY = ("numba", "llvmlite", "dash", "plotly", "argparse", "jax", "ray")


def module_files(root: Path, package: str) -> dict[str, Path]:
    """``{dotted module name: path}`` for every ``.py`` file under ``root/package``."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _dynamic(call: ast.Call):
    """The module name of ``importlib.import_module(...)`` / ``__import__(...)``: the literal
    string, ``""`` for a computed one, ``None`` when ``call`` is neither."""
    f = call.func
    named = (isinstance(f, ast.Name) and f.id in ("__import__", "import_module")) or \
        (isinstance(f, ast.Attribute) and f.attr == "import_module")
    if not named or not call.args:
        return None
    arg = call.args[0]
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else ""


def imports_of(name: str, path: Path, modules) -> list[tuple[str, bool, int]]:
    """``(imported name, inside a function, line)`` for every import in the module ``name``;
    ``from pkg import x`` names ``pkg.x`` when that is a module, else ``pkg``; a dynamic
    import with a computed name is ``("", lazy, line)``."""
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
            elif isinstance(child, ast.Call) and _dynamic(child) is not None:
                found.append((_dynamic(child), lazy, child.lineno))
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
            if not target:
                if name not in DYNAMIC_IMPORTS:
                    problems.append(f"{where}:{line}: imports a module by a computed name: "
                                    "say why in DYNAMIC_IMPORTS, or import it by name")
                continue
            if head == top:
                if target not in modules:
                    problems.append(f"{where}:{line}: imports {target}, which does not exist")
                    continue
                if target != name:
                    graph.add_edge(name, target)
                other = _package(target, top)
                if name == top and other:
                    problems.append(f"{where}:{line}: the package's __init__ imports {target}: "
                                    "every import of a workbench module would load it")
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


def test_the_core_loads_without_the_heavy_packages():
    code = (f"import sys\nfor m in {CORE!r}: __import__(m)\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO_ROOT, timeout=120, check=True).stdout
    assert out.strip() == "[]"


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
        "pkg/__init__.py": "from pkg.ir import a\n",                   # the root imports
        "pkg/ir/__init__.py": "",
        "pkg/ir/a.py": "from pkg.ir import b\n",
        "pkg/ir/b.py": "def f():\n    from pkg.ir import a\n",          # a lazy circle
        "pkg/planner/__init__.py": "import numba\n",                      # numba outside
        "pkg/planner/p.py": "from pkg.cli import main\n",                 # upward import
        "pkg/importers/__init__.py": "import jax\n",                      # jax not lazy
        "pkg/importers/lazy.py": "def load():\n    import jax\n",         # fine
        "pkg/cli/__init__.py": "import argparse\nfrom pkg.ir import a\n",        # fine
        "pkg/cli/gone.py": "def f():\n    from pkg.planner.moved import x\n",   # no module
        "pkg/cli/dyn.py": "import importlib\nimportlib.import_module('dash')\n"
                          "__import__(name)\n",   # dash outside app; a computed name
    })
    layers = {"ir": 1, "importers": 2, "planner": 4, "cli": 11}
    problems = check_imports(tmp_path, "pkg", layers, RESTRICTED)
    text = "\n".join(problems)
    assert len(problems) == 8, text
    assert "pkg/__init__.py:1: the package's __init__ imports pkg.ir.a" in text
    assert "import circle: pkg.ir.a -> pkg.ir.b -> pkg.ir.a" in text or \
        "import circle: pkg.ir.b -> pkg.ir.a -> pkg.ir.b" in text
    assert "pkg/planner/__init__.py:1: imports numba" in text
    assert "pkg/planner/p.py:1: planner (layer 4) imports pkg.cli (layer 11)" in text
    assert "pkg/importers/__init__.py:1: imports jax at module level" in text
    assert "pkg/cli/gone.py:2: imports pkg.planner.moved, which does not exist" in text
    assert "pkg/cli/dyn.py:2: imports dash, which only app may import" in text
    assert "pkg/cli/dyn.py:3: imports a module by a computed name" in text
