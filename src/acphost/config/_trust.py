"""Trusted project settings: which ``.acphost/settings.json`` files the user approved.

A project's settings name the commands acphost runs, so a repository that
ships one could make ``acphost`` in its checkout run anything. Like direnv's
``allow``, a project settings file is honoured only after the user ran
``acphost trust`` on it: the store records the file's canonical path and the
SHA-256 of its content, and a file whose content changed since is untrusted
again until it is reviewed and trusted anew.

Trust is for a path and its content, and the path is the project's own: a
settings file that is a symbolic link, or lies in a ``.acphost`` folder that
is one, is never trusted (:func:`linked_through`). Otherwise a checkout
could link its ``.acphost/settings.json`` to another project's trusted file
and be honoured without a review, running that file's relative agent
command in the new checkout. Links above the project folder are followed:
they lead to the same project, where the commands run. They are followed
once per run (:func:`~._project.project_dir`): the folder checked is the
folder read and the folder the agent starts in, so a link changed meanwhile
cannot lead the trusted commands into another folder; and the path trust is
recorded and looked up by resolves only the folders above ``.acphost``
(:func:`stored_status`), never the file or its folder.

The store is ``trusted.json`` in the user config folder (owner-only),
rewritten atomically under a lock so concurrent ``acphost trust`` runs do
not lose each other's entries.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from ._dirs import config_dir
from ._files import InputFileError, loads_strict, read_input
from ._spec import SettingsError

__all__ = [
    "TrustEntry",
    "TrustStatus",
    "digest",
    "linked_through",
    "revoke",
    "stored_status",
    "trust",
    "trust_status",
    "trust_store_path",
    "trusted_files",
]

TrustStatus = Literal["trusted", "untrusted", "changed", "linked"]

_VERSION = 1


@dataclass(frozen=True, slots=True)
class TrustEntry:
    """One trusted file, as recorded and as it is now.

    Attributes:
        path: the canonical path recorded.
        sha256: the digest recorded when it was trusted.
        trusted_at: when (ISO 8601, UTC).
        state: ``ok`` (unchanged), ``changed`` or ``missing`` now.

    """

    path: str
    sha256: str
    trusted_at: str
    state: Literal["ok", "changed", "missing"]


def trust_store_path() -> Path:
    """The store's file: ``trusted.json`` in the user config folder."""
    return config_dir() / "trusted.json"


def digest(data: bytes) -> str:
    """The SHA-256 of a settings file's bytes, as recorded in the store (hex)."""
    import hashlib  # noqa: PLC0415 - a lookup without a project file never hashes

    return hashlib.sha256(data).hexdigest()


def _canonical(path: str | os.PathLike[str]) -> str:
    """The path a settings file is recorded by: its project folder resolved, not the file.

    The file and its folder are never followed (:func:`linked_through`
    refuses them), so only the folders above are resolved: a link made
    there after the check cannot point the record at another file.
    """
    given = os.path.expanduser(os.fspath(path))
    folder, name = os.path.split(given)
    above, base = os.path.split(folder)
    return os.path.join(os.path.realpath(above), base, name)


def linked_through(path: str | os.PathLike[str]) -> str | None:
    """The symbolic link a settings file is reached through, if any, with its target.

    The file itself and its folder (``.acphost``) are looked at, not the
    folders above the project, which lead to the same project.

    Args:
        path: the settings file.

    Returns:
        ``"LINK -> TARGET"`` for the first of the two that is a link, else None.

    """
    given = os.path.expanduser(os.fspath(path))
    for part in (given, os.path.dirname(given) or "."):
        try:
            target = os.readlink(part)
        except OSError:  # not a link (or not there: the read reports it)
            continue
        return f"{part} -> {target}"
    return None


def _linked_error(path: str | os.PathLike[str], link: str) -> SettingsError:
    return SettingsError(
        f"{os.fspath(path)} is reached through a symbolic link ({link}); only a "
        "project's own settings file can be trusted: replace the link with a copy, "
        "review it, then trust it"
    )


def _read_store(path: Path) -> dict[str, dict[str, Any]]:
    """The recorded entries; raises SettingsError when the store is unreadable."""
    try:
        raw = read_input(path, what="the trust store")
        data = loads_strict(
            raw, where=f"the trust store {path}", fix="move it away and trust again"
        )
    except InputFileError as exc:
        if exc.missing:
            return {}
        raise SettingsError(str(exc)) from None
    entries = data.get("trusted") if isinstance(data, dict) else None
    if not isinstance(entries, dict) or not all(
        isinstance(v, dict) and isinstance(v.get("sha256"), str) for v in entries.values()
    ):
        raise SettingsError(
            f"the trust store {path} has an unexpected shape; move it away and trust again"
        )
    return entries


@contextmanager
def _locked_store() -> Iterator[tuple[Path, dict[str, dict[str, Any]]]]:
    """Hold the store's lock; yield its path and entries, written back on success."""
    store = trust_store_path()
    try:
        store.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock_fd = os.open(
            str(store) + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
    except OSError as exc:
        raise SettingsError(f"cannot write the trust store {store}: {exc.strerror}") from None
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        entries = _read_store(store)
        yield store, entries
        _write_store(store, entries)
    finally:
        os.close(lock_fd)


def _write_store(store: Path, entries: dict[str, dict[str, Any]]) -> None:
    import tempfile  # noqa: PLC0415 - only `acphost trust` writes the store

    text = json.dumps({"version": _VERSION, "trusted": entries}, indent=2, sort_keys=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=store.parent, prefix=".trusted.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, store)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as exc:
        raise SettingsError(f"cannot write the trust store {store}: {exc.strerror}") from None


def trust(path: str | os.PathLike[str], data: bytes) -> str:
    """Record that the user trusts this settings file with exactly this content.

    Args:
        path: the settings file.
        data: its bytes, as the caller read and checked them (what is hashed
            is what the caller showed the user, not a later re-read).

    Returns:
        The canonical path recorded.

    Raises:
        SettingsError: the file or its folder is a symbolic link
            (:func:`linked_through`), or the store cannot be read or written.

    """
    link = linked_through(path)
    if link is not None:
        raise _linked_error(path, link)
    canonical = _canonical(path)
    with _locked_store() as (_, entries):
        entries[canonical] = {
            "sha256": digest(data),
            "trustedAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
    return canonical


def revoke(path: str | os.PathLike[str]) -> bool:
    """Forget a trusted file (it need not exist any more).

    Args:
        path: the settings file, as trusted (or the canonical path ``--list`` shows).

    Returns:
        Whether it was trusted.

    Raises:
        SettingsError: the store cannot be read or written.

    """
    given = os.path.expanduser(os.fspath(path))
    # As recorded, as given, and with every link resolved: whichever form the user has.
    candidates = {_canonical(given), os.path.abspath(given), os.path.realpath(given)}
    with _locked_store() as (_, entries):
        found = [p for p in candidates if p in entries]
        for p in found:
            del entries[p]
    return bool(found)


def trusted_files() -> list[TrustEntry]:
    """Every trusted file, sorted by path, with whether it still matches.

    Raises:
        SettingsError: the store cannot be read.

    """
    out = []
    for path, entry in sorted(_read_store(trust_store_path()).items()):
        try:
            data = read_input(path, what="trusted settings file")
        except InputFileError:
            state: Literal["ok", "changed", "missing"] = "missing"
        else:
            state = "ok" if digest(data) == entry["sha256"] else "changed"
        out.append(TrustEntry(path, entry["sha256"], str(entry.get("trustedAt", "")), state))
    return out


def trust_status(path: str | os.PathLike[str], data: bytes) -> TrustStatus:
    """Whether this content of this settings file was trusted.

    Args:
        path: the settings file.
        data: the bytes about to be used (hashing what will be parsed leaves
            no window for a swap between the check and the use).

    Returns:
        ``trusted``, ``untrusted`` (never trusted), ``changed`` (trusted
        with another content) or ``linked`` (the file or its folder is a
        symbolic link, :func:`linked_through`: never trusted).

    Raises:
        SettingsError: the store cannot be read.

    """
    if linked_through(path) is not None:
        return "linked"
    return stored_status(_canonical(path), data)


def stored_status(canonical: str, data: bytes) -> TrustStatus:
    """What the store says of this content at this canonical path (no look at the disk).

    For a caller that read the file itself, never through a link
    (:func:`~._project.read_project_file`): the path is the one it read, in
    its resolved project folder, and the bytes are what it will parse.

    Args:
        canonical: the settings file's path, its project folder resolved.
        data: the bytes about to be used.

    Returns:
        ``trusted``, ``untrusted`` or ``changed``.

    Raises:
        SettingsError: the store cannot be read.

    """
    entry = _read_store(trust_store_path()).get(canonical)
    if entry is None:
        return "untrusted"
    return "trusted" if entry["sha256"] == digest(data) else "changed"
