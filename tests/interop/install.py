"""Install the pinned third-party agents from npm under ``<repo>/.cache/interop``.

Each set of pins gets its own directory, ``.cache/interop/pins-<hash>`` (the
hash of the pin list), so installs for different pins live side by side: a
checkout that moves its pins never disturbs another checkout that shares the
cache, and nothing installed is ever deleted here. Idempotent: nothing is
fetched when every pinned version is already there. Used by
``tests/interop/conftest.py`` (session fixture) and by ``.ci/interop-setup``
(``python -m tests.interop.install``), so CI logs show the install step on its own.
"""

from __future__ import annotations

import hashlib
import json
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
    return root


def main() -> int:
    try:
        root = ensure(log=print)
    except Unavailable as exc:
        print(f"interop agents unavailable: {exc}", file=sys.stderr)
        return 1
    for spec in pinned():
        print(f"  {spec}: ok")
    print(f"interop agents ready in {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
