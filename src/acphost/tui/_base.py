"""What the parts of the app share: its attributes and the few methods they call.

:class:`~acphost.tui.AcpApp` is assembled from parts that change for
different reasons (the agent's lifecycle, the session actions); each part
derives from :class:`AppBase`, which declares what they may use, and the
app defines it.
"""

from __future__ import annotations

from typing import Any

from textual.app import App

from ..client import AcpClient, Budget, Session
from ..config import AgentSpec, Settings
from ..history import SessionRecord
from ..launch import Run
from ..redact import Redactor
from ._asks import AskQueue
from ._elicit import TuiElicitation
from ._frames import ProtocolLog
from ._history import AppHistory
from ._model import ConnectionState, ProtocolInfo, SandboxInfo
from ._session_view import SessionView
from ._terminals import TerminalBuffers

__all__ = ["AppBase"]


class AppBase(App[int]):
    """What the parts of the app share (declared for the type checker)."""

    spec: AgentSpec
    cwd: str
    settings: Settings | None
    write: bool
    yolo: bool
    init_timeout: float | None
    key_guard: float | None
    unstable: bool
    subagents: bool
    confine: bool | None
    #: Whether and how the running agent is confined (None until it starts).
    sandbox: SandboxInfo | None
    #: The protocol version the connection agreed on, and what was asked (None until then).
    agreed: ProtocolInfo | None
    budget: Budget | None
    redactor: Redactor
    history: AppHistory
    protocol: ProtocolLog
    terminals: TerminalBuffers
    asks: AskQueue
    elicitation: TuiElicitation
    client: AcpClient | None
    connection: ConnectionState
    auth_state: str
    _client_context: Run | None

    def say(self, message: str, severity: str = "information", timeout: float = 5) -> None:
        """Notify (inert text; defined by the app)."""
        raise NotImplementedError

    def refresh_status(self) -> None:
        """Recompute the status bar and the start screen (defined by the app)."""
        raise NotImplementedError

    def views(self) -> list[SessionView]:
        """The open session views (defined by the app)."""
        raise NotImplementedError

    async def add_session(self, session: Session, past: SessionRecord | None = None) -> SessionView:
        """Show a session in a new tab (defined by the app)."""
        raise NotImplementedError

    def action_quit(self) -> None:  # type: ignore[override]
        """Exit now (defined by the app)."""
        raise NotImplementedError

    def _relabel(self, view: SessionView) -> None:
        """Retitle a view's tab (defined by the app)."""
        raise NotImplementedError

    def attach(self, view: SessionView) -> None:
        """Give a view's session the budget and a recording (defined by the lifecycle)."""
        raise NotImplementedError

    @property
    def active_view(self) -> SessionView | None:
        """The session view of the active tab (defined by the app)."""
        raise NotImplementedError

    async def open_session(
        self, opener: Any, past: SessionRecord | None = None
    ) -> SessionView | None:
        """Open a session in a new tab (defined by the lifecycle)."""
        raise NotImplementedError

    def no_session_note(self) -> str:
        """Why no session is active, for an action that needs one (defined by the lifecycle)."""
        raise NotImplementedError

    def session_options(self) -> dict[str, Any]:
        """The options every opened session gets (MCP servers; defined by the lifecycle)."""
        raise NotImplementedError
