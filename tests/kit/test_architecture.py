"""The engine's shape, read from its source with `ast`: what imports what.

- No circle: no module of `autograder/` reaches itself through its imports
  (lazy imports inside functions included).
- Layers, no arrow back up: the base (`assignment`, `i18n`) imports nothing of the
  engine (`sandbox`, `grading`, `checking`, `outputs`) or of a feature; the engine
  imports no feature; a feature (similarity, tournament, platforms, mutate,
  nbgrader, the hidden suites) imports the engine and the base, never another
  feature.
- Only `grading/grader.py` (the Grader) measures the time scale.
"""

import ast
from pathlib import Path

from autograder import ROOT

PACKAGE = ROOT / "autograder"
ENGINE = {"sandbox", "grading", "checking", "outputs"}
BASE = {"", "assignment", "i18n"}         # what the engine may import too
SHARED = BASE | {"release", "cli", "__main__"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    path = MODULES[name]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else [])) if node.level \
                else node.module
            for alias in node.names:
                full = f"{target}.{alias.name}"
                found.add(full if full in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: imports_of(name) for name in MODULES}


def area(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_no_module_reaches_itself_through_its_imports():
    circles, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == "open":
                circles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])
    assert not circles, circles


def test_the_engine_imports_no_feature_and_no_feature_another():
    wrong = []
    for name, targets in GRAPH.items():
        for target in targets:
            here, there = area(name), area(target)
            if here == there or there in SHARED or there in ENGINE:
                continue
            if here in SHARED - {"release"}:
                continue            # the CLI and the package's own files name every command
            wrong.append(f"{name} -> {target}")
    for name, targets in GRAPH.items():
        below = BASE if area(name) in BASE else ENGINE | BASE if area(name) in ENGINE else None
        if below is not None:
            wrong += [f"{name} -> {t} (up)" for t in targets if area(t) not in below]
    assert not wrong, wrong


def test_only_the_grader_measures_the_time_scale():
    callers = {name for name, path in MODULES.items()
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.Call) and "measure_scale" in
               (getattr(node.func, "attr", None), getattr(node.func, "id", None))}
    assert callers <= {"autograder.grading.grader", "autograder.grading.calibrate"}, callers
