"""Which paths an agent's sandbox grants: the policy, over the Landlock mechanism.

Every process acphost starts for an agent (the agent itself, the terminals
it asks for, and all their children) is confined the same way:

- **writes** in the workspace (and further roots the caller names), a
  private temporary folder made for the run (``TMPDIR``, ``TMP`` and
  ``TEMP`` point at it; removed when the run ends), the agent's own state
  and cache folders (declared per preset, extended by a settings entry's
  ``"sandbox": {"write": [...]}``), and the devices a process needs;
- **reads** (and execution) everywhere except the secrets a coding agent
  never needs (:data:`DEFAULT_DENY`, other agents' folders, acphost's own
  settings, trust, history and state; extended by ``"sandbox": {"deny": [...]}``).

Landlock only grants. Reading "everything but" a denied path is granted as
read rights on every *sibling* of the denied path and of each of its
ancestors, and the right to list (never read) the ancestors themselves: a
file created later directly beside a denied path's ancestors (a new file in
the home folder) is not readable by the agent, and the names inside a
denied folder can be listed, not their contents. A write root that holds a
denied path is carved the same way.

Paths are judged where they really are (Landlock follows the file reached,
not the name used): denied paths and write roots are resolved to their real
paths; a state folder that a symbolic link moves into a denied place is not
granted; a denied path that another mount shows elsewhere is denied there
too (:mod:`._mounts`).

Where the kernel allows it, the agent also gets a private view
(:mod:`._namespace`): a ``/dev/pts`` of its own, and empty folders over the
user's runtime folder, the ssh-agent's, X11's and the denied folders, whose
sockets it then cannot name. Its environment goes without :data:`UNSET`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._namedwire import short_socket_folder
from ..config import AgentSpec, agent_state_dirs, config_dir, data_dir, state_dir
from . import _landlock as ll
from . import _mounts
from . import _namespace as ns

__all__ = [
    "DEFAULT_DENY",
    "DEVICES",
    "Confinement",
    "SandboxUnavailable",
    "build_confinement",
    "sandbox_support",
]

logger = logging.getLogger("acphost.host.sandbox")

#: Secrets no coding agent needs to read (``~`` is the user's home).
DEFAULT_DENY: tuple[str, ...] = (
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.netrc",
    "~/.git-credentials",
    "~/.pypirc",
    "~/.docker/config.json",
    "~/.kube",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.password-store",
    "~/.local/share/keyrings",
)

#: The devices a process needs to write (terminals, the null device, shared memory).
DEVICES: tuple[str, ...] = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
)


#: Variables that lead to the user's agents and buses by a socket's path: the
#: confined agent's environment goes without them.
UNSET: tuple[str, ...] = (
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
)

_REFUSED = re.compile(r"Permission denied|permission denied|EACCES|EPERM")
_MISSING = re.compile(r"No such file or directory|ENOENT")
_PATH = re.compile(r"(?<![\w.~])/[^\s'\"`:,;()]+")


class SandboxUnavailable(Exception):
    """The sandbox cannot be had here (the message says why, in one line)."""


def sandbox_support() -> tuple[int, str]:
    """The Landlock ABI version, and why not when it is 0."""
    import sys  # noqa: PLC0415

    if not sys.platform.startswith("linux"):
        return 0, f"no OS sandbox on {sys.platform} yet (Landlock is Linux's)"
    abi = ll.abi_version()
    if abi == 0:
        return 0, "this Linux kernel offers no Landlock (5.13 or later, with Landlock enabled)"
    return abi, ""


@dataclass
class Confinement:
    """One run's sandbox: the ruleset, the private temporary folder, what was granted.

    Made by :func:`build_confinement`; closed by the run that made it.

    Attributes:
        abi: the Landlock ABI version the ruleset uses.
        write: the real paths the agent may write (workspace first).
        deny: the real paths it may not read.
        temp: its private temporary folder.
        env: the variables its processes get (``TMPDIR``, ``TMP``, ``TEMP``,
            ``XDG_RUNTIME_DIR``: all the private temporary folder).
        unset: the variables its processes go without (:data:`UNSET`).
        namespace: its private view of the file system (:mod:`._namespace`),
            or None (then ``no_namespace`` says why).

    """

    abi: int
    write: tuple[str, ...]
    deny: tuple[str, ...]
    temp: str
    env: dict[str, str] = field(default_factory=dict)
    _ruleset: ll.Ruleset | None = None
    _temp_id: tuple[int, int] | None = None
    unset: tuple[str, ...] = UNSET
    namespace: ns.NamespacePlan | None = None
    no_namespace: str = ""

    mechanism = "landlock"

    def preexec(self) -> Callable[[], None]:
        """The child's hook: its private namespace, no new privileges, then the ruleset.

        See :mod:`._namespace` and :mod:`._landlock`: the namespace comes
        first, since Landlock forbids the confined process to mount.

        Raises:
            RuntimeError: the confinement is closed.

        """
        if self._ruleset is None or self._ruleset.fd < 0:
            raise RuntimeError("the sandbox of this run is closed")
        if self.namespace is None:
            return self._ruleset.preexec()
        enter = self.namespace.preexec()
        # The child's own /dev/pts (and its ptmx, bound on /dev/ptmx) are
        # granted in the child: they do not exist out here.
        devices = self._ruleset.handled
        restrict = self._ruleset.preexec(
            [("/dev/pts", devices, True), ("/dev/pts/ptmx", devices, False)]
        )

        def hook() -> None:
            enter()
            restrict()

        return hook

    def environ(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` as the confined processes get it: without :attr:`unset`, with :attr:`env`."""
        return {**{k: v for k, v in base.items() if k not in self.unset}, **self.env}

    @property
    def private(self) -> str | None:
        """None when the agent has its private view (or will: not started yet), else why not."""
        if self.namespace is None:
            return self.no_namespace
        outcome, code = self.namespace.outcome
        if outcome == ns.UNAVAILABLE:
            name = errno.errorcode.get(code, str(code))
            return f"the kernel refused a user or mount namespace ({name})"
        return None

    def views(self) -> list[str]:
        """Whether the agent reaches the user's other terminals and sockets (two lines).

        After the spawn, what the child really got; before it, what it will
        try for.
        """
        unset = ", ".join(self.unset)
        why = self.private
        if why is None:
            hidden = ", ".join(_tilde(p) for p in self.namespace.hide) if self.namespace else ""
            sockets = f"hidden in {hidden}" if hidden else "no folder of the user's sockets found"
            return [
                "other terminals: private (a /dev/pts of its own, in a mount namespace)",
                f"sockets by path: {sockets}; its environment has no {unset}",
            ]
        return [
            f"other terminals: reachable ({why})",
            f"sockets by path: reachable ({why}); its environment has no {unset}",
        ]

    def describe(self) -> list[str]:
        """What is granted, one line each (for ``-v`` and ``acphost doctor``); ``~`` is home."""
        return [
            f"Landlock ABI {self.abi}, inherited by every process the agent starts",
            "writes: " + ", ".join(_tilde(p) for p in self.write),
            "reads: everywhere except " + (", ".join(_tilde(p) for p in self.deny) or "nothing"),
            "devices: " + ", ".join(d for d in DEVICES if os.path.exists(d)),
            *self.views(),
        ]

    def refusal(self, stderr: str) -> str | None:
        """A path the sandbox likely refused, from the agent's stderr, or None.

        The first absolute path on a line that reports a permission error
        (``Permission denied``, ``EACCES``, ``EPERM``) and that lies outside
        the writable roots or inside a denied path; or, on a line that
        reports a missing file, inside a folder the namespace hides (it
        shows the agent an empty folder there).
        """
        hidden = self.namespace.hide if self.namespace is not None else ()
        for line in stderr.splitlines():
            refused, missing = _REFUSED.search(line), hidden and _MISSING.search(line)
            if not refused and not missing:
                continue
            for match in _PATH.finditer(line):
                path = os.path.normpath(match.group(0))
                if refused:
                    denied = any(ns.under(path, d) for d in self.deny)
                    if denied or not any(ns.under(path, w) for w in self.write):
                        return path
                elif any(ns.under(path, h) and path != h for h in hidden):
                    return path
        return None

    def record(self) -> dict[str, Any]:
        """What a history record or a batch report keeps of it."""
        return {
            "mechanism": self.mechanism,
            "abi": self.abi,
            "write": list(self.write),
            "deny": list(self.deny),
            "namespace": "private" if self.private is None else f"none: {self.private}",
        }

    def close(self) -> None:
        """Close the ruleset; remove the private temporary folder (the one we made)."""
        if self._ruleset is not None:
            self._ruleset.close()
            self._ruleset = None
        if self.namespace is not None:
            self.namespace.close()
        temp, made = self.temp, self._temp_id
        self._temp_id = None
        if made is None:
            return
        # Only the folder mkdtemp made: same device and inode, never through a link.
        with contextlib.suppress(OSError):
            st = os.lstat(temp)
            if (st.st_dev, st.st_ino) == made:
                _remove_tree(temp)


def _remove_tree(top: str) -> None:
    """Remove the folder ``top`` and all it holds, without recursion and without links.

    What the agent left there may be nested deeper than Python's recursion
    (``shutil.rmtree`` recurses) and may hold symbolic links: each folder is
    opened relative to its parent's descriptor with ``O_NOFOLLOW``, so a link
    swapped in for a folder is removed as a link, never followed. Each folder
    is listed once.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        root = os.open(top, flags)
    except OSError:
        return
    # (the open folder, its name in its parent, the names it holds still to do)
    stack: list[tuple[int, str | None, Iterator[str]]] = [(root, None, _names(root))]
    try:
        while stack:
            fd, _, todo = stack[-1]
            for entry in todo:
                try:
                    child = os.open(entry, flags, dir_fd=fd)
                except OSError:  # not a folder (or a link to one): unlink it
                    with contextlib.suppress(OSError):
                        os.unlink(entry, dir_fd=fd)
                    continue
                stack.append((child, entry, _names(child)))
                break
            else:
                fd, name, _ = stack.pop()
                os.close(fd)
                if name is not None:
                    with contextlib.suppress(OSError):
                        os.rmdir(name, dir_fd=stack[-1][0])
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(top)


def _names(fd: int) -> Iterator[str]:
    try:
        return iter(os.listdir(fd))
    except OSError:
        return iter(())


def _tilde(path: str) -> str:
    home = os.path.expanduser("~")
    if os.path.isabs(home) and home != os.sep and ns.under(path, home):
        return "~" + path[len(home.rstrip(os.sep)) :]
    return path


def _homes(env: Mapping[str, str]) -> list[str]:
    """The home folders a denied ``~`` path is expanded for: the agent's, ours, the account's.

    An empty, relative or root ``HOME`` counts as unset: the account's home
    folder (from the password database) is denied whatever the variables say.
    """
    import pwd  # noqa: PLC0415 - Linux only, where the sandbox is

    found: list[str] = []
    for home in (env.get("HOME", ""), os.environ.get("HOME", "")):
        if os.path.isabs(home) and os.path.normpath(home) != os.sep:
            found.append(os.path.normpath(home))
    with contextlib.suppress(KeyError, OSError):
        found.append(os.path.normpath(pwd.getpwuid(os.getuid()).pw_dir))
    return list(dict.fromkeys(h for h in found if h != os.sep))


def _expander(env: Mapping[str, str], home: str | None = None) -> Callable[[str], str | None]:
    """Expand a declared path as ``env`` would: ``~`` and ``$VARS``; None when a variable is unset.

    ``~`` is ``env``'s ``HOME`` (an agent may be given a home of its own);
    ``$XDG_CONFIG_HOME``, ``$XDG_STATE_HOME``, ``$XDG_DATA_HOME`` and
    ``$XDG_CACHE_HOME`` take their specification's defaults when unset or relative.
    """
    if home is None:
        home = env.get("HOME", "")
        if not os.path.isabs(home) or os.path.normpath(home) == os.sep:
            found = _homes(env)
            home = found[0] if found else os.sep

    def tilde(text: str) -> str:
        if text == "~" or text.startswith("~/"):
            return home + text[1:]
        return text

    defaults = {
        "XDG_CONFIG_HOME": "~/.config",
        "XDG_STATE_HOME": "~/.local/state",
        "XDG_DATA_HOME": "~/.local/share",
        "XDG_CACHE_HOME": "~/.cache",
    }
    values = {k: v for k, v in env.items() if v}
    for name, default in defaults.items():
        if not os.path.isabs(values.get(name, "")):
            values[name] = tilde(default)
    pattern = re.compile(r"\$(?:\{(\w+)\}|(\w+))")

    def expand(entry: str) -> str | None:
        missing = False

        def value(match: re.Match[str]) -> str:
            nonlocal missing
            found = values.get(match.group(1) or match.group(2))
            missing = missing or found is None
            return found or ""

        text = pattern.sub(value, tilde(entry))
        if missing or not os.path.isabs(text):
            return None
        return os.path.normpath(text)

    return expand


def _carve(root: str, access: int, deny: Sequence[str], out: list[tuple[str, int]]) -> None:
    """Grant ``access`` on ``root`` minus the denied paths beneath it (see the module)."""
    inside = [d for d in deny if ns.under(d, root)]
    if not inside:
        out.append((root, access))
        return
    if root in inside:
        return
    out.append((root, access & ll.READ_DIR))  # its names, not its files
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.is_symlink():
                continue  # its target is judged where it lives
        _carve(entry.path, access, inside, out)


def _denied(spec: AgentSpec, env: Mapping[str, str], own: Sequence[str]) -> list[str]:
    """The real paths the agent may not read: defaults and others' folders, then the entry's.

    Expanded for the agent's home and for ours: an agent given a home of its
    own can still name the user's by its full path.
    """
    found: list[str] = []
    mine = {os.path.normpath(w) for w in own}
    for expand in [_expander(env, home) for home in _homes(env)]:
        for entry in DEFAULT_DENY:
            path = expand(entry)
            if path is not None:
                found.append(path)
        for entry in agent_state_dirs():
            path = expand(entry)
            # Another agent's folder is denied unless it is one of this
            # agent's own: exactly that folder, never one a broader write
            # root ("~") happens to hold (that root is carved around it).
            if path is not None and path not in mine:
                found.append(path)
        for entry in spec.sandbox_deny:
            path = expand(entry)
            if path is not None:
                found.append(path)
    found += [str(d) for d in (config_dir(), state_dir(), data_dir())]
    found.append(_named_sockets())
    # Only what exists is carved out: a grant cannot be split around a name
    # that is not there (one made later beneath a granted folder is readable).
    real = {os.path.realpath(p) for p in found if os.path.lexists(p)}
    # The same files mounted again elsewhere (a bind mount) are denied there
    # too, and so are terminals bound outside /dev/pts (a container's console).
    mounts = _mounts.read_mounts()
    aliases = _mounts.second_paths(sorted(real), mounts) + _mounts.other_terminals(mounts)
    real |= {os.path.realpath(p) for p in aliases if os.path.lexists(p)}
    return [p for p in sorted(real) if not any(ns.under(p, d) for d in real if d != p)]


def _named_sockets() -> str:
    """The folder of named sessions' sockets in ``/tmp``, made now if missing (``0700``).

    Only what exists can be carved out of a grant: made now, an agent whose
    workspace holds ``/tmp`` can neither make it first (and plant a socket a
    run would speak to) nor replace a live host's socket in it.
    """
    folder = short_socket_folder()
    with contextlib.suppress(OSError):  # another's, or /tmp read-only: named runs refuse it
        os.mkdir(folder, 0o700)
    return folder


def _state_roots(spec: AgentSpec, env: Mapping[str, str]) -> list[str]:
    """The agent's declared state folders (expanded, not resolved); missing folders are made.

    A missing entry is made as a folder (owner-only) unless its name has an
    extension (``~/.claude.json`` is a file the agent writes in place).
    """
    roots: list[str] = []
    expand = _expander(env)
    # A spec built by hand for a known agent (no folders declared) gets its preset's.
    for entry in spec.sandbox_write or agent_state_dirs(spec.name, spec.command):
        path = expand(entry)
        if path is None:
            continue
        if not os.path.lexists(path) and not os.path.splitext(os.path.basename(path))[1]:
            try:
                os.makedirs(path, mode=0o700, exist_ok=True)
            except OSError as exc:
                logger.info("sandbox: cannot make %s (%s): not granted", path, exc.strerror)
                continue
        if os.path.exists(path):
            roots.append(path)
    return roots


def runtime_folders(env: Mapping[str, str]) -> list[str]:
    """The user's runtime folders (``$XDG_RUNTIME_DIR``, ``/run/user/UID``).

    D-Bus, the keyring, Wayland and podman keep their sockets there; the
    private view covers them (:func:`_socket_folders`).
    """
    return [p for p in (env.get("XDG_RUNTIME_DIR", ""), f"/run/user/{os.getuid()}") if p]


def in_runtime_folder(path: str, env: Mapping[str, str]) -> bool:
    """Whether ``path`` lies in a runtime folder: a confined agent sees it covered."""
    return any(ns.under(path, folder) for folder in runtime_folders(env))


def _socket_folders(env: Mapping[str, str], deny: Sequence[str]) -> list[str]:
    """The folders whose sockets the agent must not reach by their path.

    The user's runtime folder (D-Bus, the keyring, Wayland, podman), the
    ssh-agent's and the gpg-agent's, X11's; and the denied folders: an ssh
    ``ControlMaster`` socket in ``~/.ssh``, the gpg-agent's in ``~/.gnupg``.
    """
    found = [*runtime_folders(env), "/tmp/.X11-unix"]
    for name in ("SSH_AUTH_SOCK", "GPG_AGENT_INFO"):
        value = env.get(name, "").split(":")[0]
        if os.path.isabs(value):
            found.append(os.path.dirname(value))
    return found + list(deny)


def build_confinement(
    spec: AgentSpec,
    workspace: str,
    *,
    write: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
) -> Confinement:
    """Build the sandbox of one run of ``spec`` in ``workspace`` (nothing runs yet).

    Args:
        spec: the agent (its declared ``sandbox_write`` and ``sandbox_deny``).
        workspace: the session's workspace (its real path is granted).
        write: further roots the agent may write (additional directories).
        env: the agent's environment, for ``$VARS`` in declared paths
            (default: ours overlaid with ``spec.env``).

    Returns:
        The confinement; close it when the run ends.

    Raises:
        SandboxUnavailable: no Landlock here, or the kernel refused the ruleset.

    """
    abi, why = sandbox_support()
    if abi == 0:
        raise SandboxUnavailable(why)
    child_env = {**os.environ, **spec.env} if env is None else dict(env)
    state = _state_roots(spec, child_env)
    deny = _denied(spec, child_env, state)
    grants: list[str] = [os.path.realpath(workspace)]
    for home in _homes(child_env):
        if ns.under(home, grants[0]):
            # Its secrets stay unreadable (carved out), but its start-up files do not.
            logger.warning(
                "sandbox: the workspace %s holds the home folder %s: the agent may write "
                "anywhere in it (~/.bashrc included); run from a project's folder to keep "
                "its writes there",
                grants[0],
                home,
            )
            break
    grants += [os.path.realpath(p) for p in write]
    for path in state:
        real = os.path.realpath(path)
        # A link (planted, maybe, by an agent that once ran unconfined) must not
        # turn a state folder into a denied one, or into a folder holding one.
        if real != path and any(ns.under(real, d) or ns.under(d, real) for d in deny):
            logger.warning(
                "sandbox: not granting %s: a symbolic link leads it to or around a "
                "denied place (%s)",
                path,
                real,
            )
            continue
        grants.append(real)
    temp = tempfile.mkdtemp(prefix="acphost-agent-")
    st = os.lstat(temp)
    temp_id = (st.st_dev, st.st_ino)
    try:
        ruleset = ll.Ruleset(abi)
    except ll.LandlockError as exc:
        _remove_tree(temp)
        raise SandboxUnavailable(f"the kernel refused a Landlock ruleset ({exc})") from None
    confinement = Confinement(
        abi,
        tuple(dict.fromkeys([*grants, temp])),
        tuple(deny),
        temp,
        # Its runtime folder too: where D-Bus and others look for a socket
        # when their variable is unset.
        {"TMPDIR": temp, "TMP": temp, "TEMP": temp, "XDG_RUNTIME_DIR": temp},
        ruleset,
        temp_id,
    )
    usable, confinement.no_namespace = ns.namespace_support()
    if usable:
        hide = ns.hidden_folders(_socket_folders(child_env, deny), [*grants, temp])
        confinement.namespace = ns.NamespacePlan(hide)
    try:
        rules: list[tuple[str, int]] = []
        _carve(os.sep, ll.ACCESS_READ, deny, rules)
        # A write root is carved only around the denied paths inside it: one
        # declared inside a denied folder (the demo's sessions in acphost's
        # state folder) is the agent's own.
        for root in grants:
            _carve(root, ruleset.handled, deny, rules)
        # The folder we just made: opened by the name mkdtemp returned (no
        # one else can write its parent's entry for it in the meantime).
        rules.append((temp, ruleset.handled))
        rules += [(device, ruleset.handled) for device in DEVICES]
        ll.add_rules(ruleset, rules)
    except (OSError, ll.LandlockError) as exc:
        confinement.close()
        raise SandboxUnavailable(f"cannot build the sandbox: {exc}") from None
    return confinement
