"""What the host offers an agent and the rules it enforces: :class:`HostConfig`.

It lives with the providers it names (files, terminals, the permission
broker, forms) so that every layer above the host, the client included,
configures a run with one object from below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import schema as s
from ._fs import FileSystemProvider
from ._permissions import PermissionBroker
from ._policy import AllowReads, PermissionPolicy
from ._terminals import TerminalManager

__all__ = ["ElicitationHandler", "HostConfig"]


class ElicitationHandler(Protocol):
    """Answers ``elicitation/create``: ask the user, return the wire response object.

    A handler may also define ``complete(elicitation_id: str) -> None``: it is
    called (synchronously, in wire order) when the agent sends
    ``elicitation/complete`` for a URL elicitation.
    """

    form: bool
    url: bool

    async def __call__(self, request: s.CreateElicitationRequest) -> dict[str, Any]:
        """Return a ``CreateElicitationResponse`` as a wire object (accept/decline/cancel)."""
        ...


def _default_fs() -> FileSystemProvider | None:
    return FileSystemProvider()


def _default_terminals() -> TerminalManager | None:
    return TerminalManager()


@dataclass
class HostConfig:
    """What the host offers the agent, and the rules it enforces.

    Only what is configured here is advertised in ``initialize``.

    Attributes:
        fs: the file provider (``None``: no file access at all).
        allow_write: advertise and serve ``fs/write_text_file`` (still
            confined to the workspace and mediated by the policy).
        terminals: the terminal manager (``None``: no terminals).
        permissions: a policy, or a ready :class:`~acphost.host.PermissionBroker`
            (for an audit log or per-agent memory). A broker passed here
            belongs to the client from then on: it is closed (pending
            requests cancelled, audit log closed) when the client closes, so
            give each client its own.
        elicitation: the elicitation handler (``None``: not advertised).
        protected_paths: the host's own output files (audit log, trace,
            saved session, history store, acphost's own folders; a directory
            protects everything below it). The agent's reads and writes there
            are refused unless a permission rule names them (writes to
            ``.git`` and ``.acphost`` in the workspace likewise). Open them with
            :func:`acphost.host.open_output`.

    """

    fs: FileSystemProvider | None = field(default_factory=_default_fs)
    allow_write: bool = False
    terminals: TerminalManager | None = field(default_factory=_default_terminals)
    permissions: PermissionPolicy | PermissionBroker = field(default_factory=AllowReads)
    elicitation: ElicitationHandler | None = None
    protected_paths: tuple[str, ...] = ()
