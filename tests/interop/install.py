"""Install the pinned third-party agents (npm, PyPI) under ``<repo>/.cache/interop``.

Each set of pins gets its own directory, ``.cache/interop/pins-<hash>`` (the
hash of the pin list), so installs for different pins live side by side: a
checkout that moves its pins never disturbs another checkout that shares the
cache, and nothing installed is ever deleted here. Idempotent: nothing is
fetched when every pinned version is already there. Used by
``tests/interop/conftest.py`` (session fixture) and by ``.ci/interop-setup``
(``python -m tests.interop.install``), so CI logs show the install step on its own.

The Python agents (``tests/interop/pypi/<name>.txt``: the agent and every
dependency, pinned) go into a virtual environment each,
``.cache/interop/pypi-<name>-<hash>``, made with a Python >= 3.12 found on the
machine (they need it; the project's own Python may be older), installed with
``--no-deps`` so the pinned set is exactly what runs.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "interop"
PACKAGES_FILE = Path(__file__).with_name("packages.txt")
INSTALL_TIMEOUT = 900


class Unavailable(Exception):
    """The agents cannot be installed here; the message says why."""


def pinned() -> list[str]:
    lines = PACKAGES_FILE.read_text().splitlines()
    return [x.strip() for x in lines if x.strip() and not x.startswith("#")]


def install_root(pins: list[str] | None = None) -> Path:
    """The directory for one set of pins: ``.cache/interop/pins-<hash>``."""
    key = "\n".join(sorted(pinned() if pins is None else pins))
    return CACHE / f"pins-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


ROOT = install_root()


def _split(spec: str) -> tuple[str, str]:
    name, _, version = spec.rpartition("@")
    return name, version


def missing(root: Path = ROOT) -> list[str]:
    """The pinned packages not installed at their pinned version."""
    out = []
    for spec in pinned():
        name, version = _split(spec)
        manifest = root / "node_modules" / name / "package.json"
        try:
            installed = json.loads(manifest.read_text())["version"]
        except (OSError, ValueError, KeyError):
            installed = None
        if installed != version:
            out.append(spec)
    return out


def node_major() -> int | None:
    node = shutil.which("node")
    if node is None:
        return None
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
        return int(out.stdout.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def check_pinned_node(root: Path) -> None:
    """The pinned node binary (npm's ``node`` package) runs and is the pinned version.

    Its binary comes from a per-platform package that its install script fetches
    through npm; a registry or npm that skips install scripts leaves none.
    """
    spec = next((p for p in pinned() if _split(p)[0] == "node"), None)
    if spec is None:
        return
    binary = root / "node_modules" / "node" / "bin" / "node"
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
        version = out.stdout.strip().lstrip("v")
    except (OSError, subprocess.SubprocessError) as exc:
        raise Unavailable(f"the pinned {spec} does not run ({binary}: {exc})") from None
    if version != _split(spec)[1]:
        raise Unavailable(f"the pinned {spec} does not run ({binary} printed {version!r})")


def ensure(root: Path = ROOT, log=None) -> Path:
    """Install what is missing; return the install root.

    Raises:
        Unavailable: node or npm is missing or too old, or npm failed
            (registry unreachable...): the message carries npm's own words.

    """
    major = node_major()
    if major is None:
        raise Unavailable("node is not installed (the interop agents are npm packages)")
    if major < 20:
        raise Unavailable(f"node {major} is too old: the pinned agents need node >= 20")
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not installed (needed to install the interop agents)")
    todo = missing(root)
    if not todo:
        check_pinned_node(root)
        return root
    root.mkdir(parents=True, exist_ok=True)
    cmd = [
        npm,
        "install",
        "--no-audit",
        "--no-fund",
        "--save-exact",
        "--fetch-retries=1",
        "--fetch-timeout=60000",
        "--prefix",
        str(root),
        *pinned(),
    ]
    if log is not None:
        log(f"installing into {root}: {' '.join(todo)}")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Unavailable(
            f"npm install did not finish within {INSTALL_TIMEOUT} s (is the npm registry reachable?)"
        ) from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-8:])
        raise Unavailable(
            f"npm install failed (exit {proc.returncode}); the npm registry may be "
            f"unreachable:\n{tail}"
        )
    still = missing(root)
    if still:
        raise Unavailable(f"npm install finished but these are missing: {', '.join(still)}")
    check_pinned_node(root)
    return root


# -- the Python agents ----------------------------------------------------------------

PYPI_DIR = Path(__file__).with_name("pypi")
MIN_PYTHON = (3, 12)


def pypi_agents() -> list[str]:
    """The Python agents with a pinned requirement set in ``tests/interop/pypi``."""
    return sorted(p.stem for p in PYPI_DIR.glob("*.txt"))


def pypi_root(name: str) -> Path:
    """The virtual environment for one pinned set: ``.cache/interop/pypi-<name>-<hash>``."""
    digest = hashlib.sha256((PYPI_DIR / f"{name}.txt").read_bytes()).hexdigest()[:12]
    return CACHE / f"pypi-{name}-{digest}"


def _python_version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        major, minor = out.stdout.split()
        return int(major), int(minor)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _version_key(path: str) -> tuple[int, ...]:
    """``.../versions/3.13.0/bin/python3`` -> (3, 13, 0)."""
    name = Path(path).parent.parent.name
    return tuple(int(x) if x.isdigit() else 0 for x in name.split("."))


def find_python() -> str | None:
    """A Python >= 3.12 on this machine: on PATH, or one of pyenv's versions."""
    candidates = [os.environ.get("ACPHOST_INTEROP_PYTHON", "")]
    candidates += [shutil.which(f"python3.{minor}") or "" for minor in range(15, 11, -1)]
    pyenv = shutil.which("pyenv")
    if pyenv is not None:  # <root>/bin/pyenv; a shim fails unless its version is selected
        versions = Path(pyenv).resolve().parent.parent / "versions"
        found = glob.glob(str(versions / "3.1[2-9]*" / "bin" / "python3"))
        candidates += sorted(found, key=_version_key, reverse=True)  # the newest first
    for python in filter(None, candidates):
        version = _python_version(python)
        if version is not None and version >= MIN_PYTHON:
            return python
    return None


def ensure_pypi(name: str, log=None) -> Path:
    """Install the pinned Python agent ``name`` into its own venv; return the venv.

    Idempotent: a venv whose stamp names the same pins is used as it is.

    Raises:
        Unavailable: no Python >= 3.12, or pip failed (its own words).

    """
    pins = PYPI_DIR / f"{name}.txt"
    root = pypi_root(name)
    stamp = root / "acphost-interop.ok"
    if stamp.exists() and stamp.read_bytes() == pins.read_bytes():
        return root
    python = find_python()
    if python is None:
        raise Unavailable(
            f"{name} needs Python >= 3.12 and none was found (python3.12..3.15 on PATH, "
            "pyenv's versions, or ACPHOST_INTEROP_PYTHON)"
        )
    if log is not None:
        log(f"installing {name} into {root} with {python}")
    steps = [
        [python, "-m", "venv", "--clear", str(root)],
        [str(root / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
         "--disable-pip-version-check", "-r", str(pins)],
    ]  # fmt: skip
    for cmd in steps:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Unavailable(
                f"installing {name} did not finish within {INSTALL_TIMEOUT} s"
            ) from None
        if proc.returncode != 0:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-8:])
            raise Unavailable(f"installing {name} failed (exit {proc.returncode}):\n{tail}")
    stamp.write_bytes(pins.read_bytes())
    return root


def main() -> int:
    status = 0
    try:
        root = ensure(log=print)
    except Unavailable as exc:
        print(f"interop agents unavailable: {exc}", file=sys.stderr)
        status = 1
    else:
        for spec in pinned():
            print(f"  {spec}: ok")
        print(f"interop agents ready in {root}")
    for name in pypi_agents():
        try:
            venv = ensure_pypi(name, log=print)
        except Unavailable as exc:
            print(f"interop agent {name} unavailable: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"interop agent {name} ready in {venv}")
    return status


if __name__ == "__main__":
    sys.exit(main())
