"""The wheels a platform package installs from: the kit and its runtime dependencies.

The platform's container must not need the network (PrairieLearn's has none), so
the export gathers every wheel on the teacher's machine: the kit built from this
checkout, the dependencies grading needs (`GRADING_NEEDS`) pinned to the versions
installed here, pip, and for a binary dependency a wheel for every CPython and
machine the platform may run (`PYTHONS`, `MACHINES`).
"""

from __future__ import annotations

import email.parser
import importlib.metadata
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import ROOT, KitError

#: CPython versions and machines binary wheels are fetched for.
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
MACHINES = ("x86_64", "aarch64")
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
#: The kit's dependencies that grading one submission imports: pytest and
#: pytest-timeout (runner), rich (batch's reference check), Jinja2 (report). The
#: others serve the teacher's machine (similarity report, tournaments, nbgrader)
#: and would make the package hundreds of megabytes. A grading module that
#: starts importing another one fails the platform tests loudly.
GRADING_NEEDS = {"pytest", "pytest-timeout", "rich", "jinja2",
                 "pyseccomp"}      # the sandbox's system-call allow-list (libseccomp)


def _pip(*args: str, cwd: Path | None = None) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise KitError(f"pip {args[0]} failed ({' / '.join(tail)}); the export needs the "
                       "package index the first time (or --wheels with a wheels folder)")


def build_kit(target: Path) -> Path:
    """Build the kit's wheel from a copy of the checkout, so no build folder is
    left in the working tree."""
    with tempfile.TemporaryDirectory(prefix="spielbaum-build-") as temp:
        source = Path(temp) / "src"        # the rest of the checkout stays out
        shutil.copytree(ROOT / "autograder", source / "autograder", ignore=_IGNORED)
        shutil.copy2(ROOT / "pyproject.toml", source / "pyproject.toml")
        # With a wheel-building setuptools at hand the build needs no network
        # (nor the time to fetch a build environment).
        isolation = ["--no-build-isolation"] if _can_build_here() else []
        _pip("wheel", "--no-deps", "--quiet", *isolation, "--wheel-dir", str(target),
             str(source))
    built = sorted(target.glob("spielbaum-*.whl"))
    if not built:
        raise KitError("building the kit's wheel produced no spielbaum-*.whl")
    return built[-1]


def _can_build_here() -> bool:
    """setuptools is installed here and can make wheels (by itself from 70.1 on,
    or with the `wheel` package)."""
    spec = importlib.util.find_spec("setuptools")
    if spec is None or not spec.submodule_search_locations:
        return False
    folder = Path(next(iter(spec.submodule_search_locations)))
    return (folder / "command" / "bdist_wheel.py").is_file() or \
        importlib.util.find_spec("wheel") is not None


def pinned_constraints(path: Path) -> Path:
    """A constraints file holding every distribution installed beside this kit at
    its installed version (the kit itself and pip excepted)."""
    lines = sorted({f"{d.metadata['Name'].lower()}=={d.version}"
                    for d in importlib.metadata.distributions()
                    if d.metadata["Name"] and d.metadata["Name"].lower()
                    not in ("spielbaum", "pip")})
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def grading_requirements(kit: Path) -> list[str]:
    """The kit wheel's Requires-Dist lines for GRADING_NEEDS (no extras)."""
    with zipfile.ZipFile(kit) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))
    wanted = []
    for line in metadata.get_all("Requires-Dist") or []:
        requirement, _, marker = line.partition(";")
        project = re.split(r"[\s<>=!~\[(]", requirement.strip(), maxsplit=1)[0]
        if "extra" in marker or project.lower().replace("_", "-") not in GRADING_NEEDS:
            continue
        wanted.append(line.strip())
    return wanted


def _other_targets(wheel: Path, target: Path) -> list[str]:
    """Fetch `wheel`'s release for every other CPython and machine; return what
    could not be had (a warning: the package will not install there)."""
    name, version = wheel.name.split("-")[:2]
    jobs = []
    for python in PYTHONS:
        for machine in MACHINES:
            args = ["download", "--quiet", "--no-deps", "--only-binary=:all:",
                    "--dest", str(target), "--python-version", python,
                    "--implementation", "cp", "--abi", f"cp{python.replace('.', '')}"]
            for platform in ("manylinux_2_17", "manylinux2014", "manylinux_2_28"):
                args += ["--platform", f"{platform}_{machine}"]
            jobs.append((f"{name} {version} for CPython {python} on {machine}",
                         args + [f"{name}=={version}"]))

    def fetch(job):
        label, args = job
        try:
            _pip(*args)
        except KitError:
            return label
        return None

    with ThreadPoolExecutor(max_workers=4) as pool:
        return [label for label in pool.map(fetch, jobs) if label]


def build_wheelhouse(target: Path, reuse: Path | None = None) -> None:
    """Every wheel the package needs, in `target`. The kit's wheel is always built
    from this checkout; with `reuse` (the wheels folder of an earlier export) the
    other wheels are copied from there instead of downloaded."""
    target.mkdir(parents=True, exist_ok=True)
    kit = build_kit(target)
    if reuse is not None:
        _copy_dependencies(reuse, target)
        return
    with tempfile.TemporaryDirectory(prefix="spielbaum-pins-") as temp:
        constraints = pinned_constraints(Path(temp) / "constraints.txt")
        _pip("download", "--quiet", "--only-binary=:all:", "--dest", str(target),
             "--constraint", str(constraints), *grading_requirements(kit))
    _pip("download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(target), "pip")
    binary = [w for w in sorted(target.glob("*.whl")) if not w.name.endswith("-none-any.whl")]
    for wheel in binary:
        for missing in _other_targets(wheel, target):
            print(f"warning: no wheel of {missing}: the package will not install there")


def _copy_dependencies(source: Path, target: Path) -> None:
    wheels = [w for w in sorted(source.glob("*.whl")) if not w.name.startswith("spielbaum-")]
    if not any(w.name.startswith("pip-") for w in wheels):
        raise KitError(f"{source} holds no pip wheel: pass the wheels folder of an earlier "
                       "export")
    for wheel in wheels:
        shutil.copy2(wheel, target / wheel.name)
