"""The engine's shape, read from its source with `ast`: what imports what.

- No circle: no module of `autograder/` reaches itself through its imports
  (lazy imports inside functions included).
- Layers: the engine (`sandbox`, `grading`, `checking`, `outputs`) imports no feature; a
  feature (similarity, tournament, platforms, mutate, nbgrader, the hidden
  suites) imports the engine and `assignment`, never another feature. `i18n`
  (the catalogs) sits below both, with `assignment`: it imports nothing of the kit
  but KitError.
- One place sets grading up: only `grading/grader.py` calls `grade_submission`,
  measures the time scale, or turns a grader error into a row.
"""

import ast
from pathlib import Path

from autograder import ROOT

PACKAGE = ROOT / "autograder"
ENGINE = {"sandbox", "grading", "checking", "outputs"}
BASE = {"", "assignment", "slices", "i18n"}         # what the engine may import too
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
        if area(name) in ENGINE:
            wrong += [f"{name} -> {t} (engine up)" for t in targets
                      if area(t) not in ENGINE | BASE]
    assert not wrong, wrong
    assert GRAPH["autograder.i18n"] <= {"autograder"}, "i18n must stay below the engine"


def test_grading_is_set_up_in_one_place():
    setting_up = {"grade_submission", "measure_scale", "available"}
    callers = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else \
                    getattr(node.func, "id", None)
                if called in setting_up:
                    callers.setdefault(called, set()).add(name)
    assert callers.get("grade_submission") == {"autograder.grading.grader"}, callers
    assert callers.get("measure_scale", set()) <= {"autograder.grading.grader",
                                                   "autograder.grading.calibrate"}, callers
