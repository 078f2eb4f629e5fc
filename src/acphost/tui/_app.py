"""The Textual application: the start screen, sessions in tabs, the composer, dialogs.

The app drives the library on its own asyncio loop: the connection lives in
a worker (:mod:`acphost.tui._lifecycle`), session updates reach each
:class:`SessionView` through ``Session.add_listener`` (inline, in wire
order), prompts run as workers that await their :class:`~acphost.Turn`, and
the agent's questions (permission requests, elicitations) wait in one
:class:`~acphost.tui._asks.AskQueue` and are shown one at a time, oldest
first, each in a guarded dialog. No protocol code lives here.

Quitting never waits inside a message handler: Ctrl+Q (or the command
palette's Quit, or Ctrl+C twice while no turn runs) exits at once, and the
agent is closed while the app unmounts, with a short grace.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import Footer, TabbedContent, TabPane

from ..client import Budget, Session
from ..config import AgentSpec, Settings
from ..history import SessionRecord, history_enabled
from ..launch import Run
from ..redact import Redactor
from ._asks import AskQueue, PendingAsk
from ._composer import Composer, PromptArea
from ._elicit import TuiElicitation
from ._frames import ProtocolLog
from ._history import AppHistory
from ._history_actions import HistoryActions
from ._keys import KeysScreen, priority_keys
from ._lifecycle import AgentLifecycle
from ._links import LinkScreen, link_problem
from ._modal import OnceModal
from ._model import ConnectionState, StartInfo, StatusInfo, format_usage, home_relative
from ._protocol_log import ProtocolLogScreen
from ._questions import AgentQuestions
from ._safe import sanitize
from ._session_actions import SessionActions
from ._session_view import SessionView
from ._start import StartPanel
from ._status import StatusBar
from ._subagent_screen import SubagentActions
from ._terminals import TerminalBuffers
from ._turn_actions import TurnActions
from ._urlcard import UrlCard

__all__ = ["AcpApp"]


class AcpApp(
    AgentQuestions, TurnActions, HistoryActions, SessionActions, SubagentActions, AgentLifecycle
):
    """``acphost tui``: an interactive client for one agent.

    Args:
        spec: the agent to launch.
        cwd: the absolute workspace directory.
        settings: settings (MCP servers for new sessions, the agents to pick from).
        write: offer file writes (confined to the workspace).
        yolo: allow everything without asking; reads anywhere.
        init_timeout: seconds for ``initialize`` and session setup.
        choices: the configured agents to pick from on the start screen
            (none, or one: start ``spec`` at once).
        key_guard: seconds during which a dialog the agent opens ignores keys.
        history: record every session in the local history (the store at
            ``$ACPHOST_HISTORY``, else the user data directory); ``None``:
            unless ``ACPHOST_NO_HISTORY`` says not to.
        unstable: enable unstable ACP methods (renaming and archiving
            sessions where the agent offers them); never sent without it.
        budget: the budget each session gets (``--max-cost``, ``--max-tokens``).
        subagents: advertise subagents (``acphost tui --no-subagents``: not);
            each child then shows as a card in its parent's transcript.
        confine: the OS sandbox around the agent, whichever is started
            (``--sandbox``: True, insist; ``--no-sandbox``: False; None:
            the agent's settings, by default confined where the system can);
            see :attr:`~acphost.launch.RunOptions.confine`.

    """

    TITLE = "acphost"
    CSS = """
    Screen { layout: vertical; }
    #start-box { height: 1fr; }
    #start-box.-hidden { display: none; }
    TabbedContent { height: 1fr; }
    TabbedContent.-hidden { display: none; }
    TabbedContent > ContentSwitcher { height: 1fr; }
    TabPane { padding: 0; height: 1fr; }
    """

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("escape", "cancel_turn", "Cancel", show=False),
        Binding("ctrl+c", "interrupt", "Cancel", priority=True),
        Binding("f2", "pick_mode", "Mode", priority=True),
        Binding("f3", "pick_config", "Model", priority=True),
        Binding("ctrl+n", "new_session", "New", priority=True),
        Binding("ctrl+o", "list_sessions", "Sessions", priority=True),
        Binding("ctrl+l,f12", "protocol_log", "Log", priority=True),
        Binding("f4", "close_session", "Close tab", show=False, priority=True),
        Binding("f5", "subagents", "Subagents", show=False, priority=True),
        Binding("ctrl+pagedown,alt+right", "next_tab", "Next tab", show=False, priority=True),
        Binding("ctrl+pageup,alt+left", "previous_tab", "Prev tab", show=False, priority=True),
        Binding("ctrl+r", "restart", "Restart agent", show=False, priority=True),
        Binding("f6", "rename_session", "Rename", show=False, priority=True),
        Binding("f7", "archive_session", "Archive", show=False, priority=True),
        Binding("f1", "toggle_keys", "Keys", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        spec: AgentSpec,
        cwd: str,
        *,
        settings: Settings | None = None,
        write: bool = False,
        yolo: bool = False,
        init_timeout: float | None = 60.0,
        choices: Sequence[AgentSpec] = (),
        key_guard: float | None = 0.5,
        history: bool | None = None,
        unstable: bool = False,
        budget: Budget | None = None,
        subagents: bool = True,
        confine: bool | None = None,
    ) -> None:
        super().__init__()
        self.spec = spec
        self.cwd = os.path.abspath(cwd)
        self.settings = settings
        self.write = write or yolo
        self.yolo = yolo
        self.init_timeout = init_timeout
        self.key_guard = key_guard
        self.choices = list(choices) if len(choices) > 1 else []
        self.unstable = unstable
        self.subagents = subagents
        self.confine = confine
        self.sandbox = None
        self.agreed = None
        self.budget = budget if budget is not None and not budget.empty else None
        # One redactor for everything the app shows or keeps: the protocol log
        # and its copies, crash reports, the history, the audit log.
        self.redactor = Redactor.from_config(agent=spec, settings=settings)
        self.protocol = ProtocolLog(redactor=self.redactor)
        record = history_enabled() if history is None else history
        self.history = AppHistory(enabled=record, warn=self._history_failed)
        self.terminals = TerminalBuffers()
        self.asks = AskQueue(on_change=self._asks_changed)
        self.elicitation = TuiElicitation(self.asks, self._elicitation_complete)
        self.client = None
        self.connection = ConnectionState.WAITING if self.choices else ConnectionState.CONNECTING
        self.auth_state = ""
        self._client_context: Run | None = None
        self._shown: tuple[PendingAsk[Any, Any], OnceModal[Any]] | None = None
        self._url_cards: dict[str, UrlCard] = {}
        self._interrupted_at: float | None = None
        self._pane_seq = 0
        self.status_info = StatusInfo(agent=spec.name)

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """The start screen (until a session opens), tabs, composer, status, key hints."""
        yield StartPanel(self.start_info(), id="start-box")
        yield TabbedContent(id="sessions", classes="-hidden")
        yield Composer(self.cwd)
        yield StatusBar()
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        """Connect to the agent, or let the user pick one first."""
        self.refresh_status()
        if self.choices:
            with contextlib.suppress(NoMatches):
                self.query_one("#agent-picker").focus()
            return
        self.query_one(PromptArea).focus()
        self.connect()

    @on(StartPanel.Picked)
    def _agent_picked(self, event: StartPanel.Picked) -> None:
        spec = next((c for c in self.choices if c.name == event.name), None)
        if spec is None:
            return
        self.spec = spec
        self.choices = []
        self.redactor = Redactor.from_config(agent=self.spec, settings=self.settings)
        self.protocol.redactor = self.redactor
        self.status_info.agent = self.spec.name
        self.query_one(PromptArea).focus()
        self.connect()

    def start_info(self) -> StartInfo:
        """What the start screen shows now."""
        client = self.client
        info = client.agent_info if client is not None else None
        name = (info.title or info.name) if info is not None else self.spec.name
        if self.write and self.yolo:
            access = "reads anywhere, writes and commands allowed (--yolo)"
        elif self.write:
            access = "reads in the workspace; writes and commands ask first"
        else:
            access = "reads in the workspace; no writes (--write allows them)"
        demo = self.spec.source == "built-in" and self.spec.name == "demo"
        hint = (
            "type tour and press Enter for a walk through every feature (help lists the keywords)"
            if demo
            else "type a message; @ mentions a file, / lists the agent's commands"
        )
        if self.choices:
            name = "(pick one below)"
        return StartInfo(
            agent=name,
            version=(info.version if info is not None else "") or "",
            source=self.spec.source if self.spec.source == "built-in" and not self.choices else "",
            connection=self.connection,
            auth=self.auth_state,
            workspace=home_relative(self.cwd),
            access=access,
            hint=hint if not self.choices else "",
            choices=[(c.name, c.description or " ".join(c.argv)) for c in self.choices],
            sandbox=self.sandbox,
            protocol=self.agreed,
        )

    # -- links -------------------------------------------------------------------------

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """Open a link, the agent's or not, only if it is http(s) and the user says so.

        The one path every link takes (Markdown link clicks, the URL card, a URL
        elicitation): anything but http/https is refused with a notice; the rest
        is shown whole in a confirmation dialog first (see :mod:`acphost.tui._links`).

        Args:
            url: the URL.
            new_tab: passed on to Textual (a web-served app opens a new tab).

        """
        problem = link_problem(url)
        if problem:
            self.say(f"link not opened: {problem}", "warning")
            return
        open_now = super().open_url

        def answered(yes: bool | None) -> None:
            if yes:
                open_now(url, new_tab=new_tab)

        self.push_screen(LinkScreen(url, guard=self.key_guard), answered)

    # -- notices -----------------------------------------------------------------------

    def say(self, message: str, severity: str = "information", timeout: float = 5) -> None:
        """A toast; the text may quote the agent, so it is inert (no markup, controls shown)."""
        level = severity if severity in ("information", "warning", "error") else "information"
        self.notify(sanitize(message), severity=level, timeout=timeout, markup=False)  # type: ignore[arg-type]

    def _history_failed(self, message: str) -> None:
        # The recorder warns once; the app goes on without recording.
        self.say(f"history: {message}", "warning", 10)

    # -- sessions ----------------------------------------------------------------------

    def views(self) -> list[SessionView]:
        """The open session views, in tab order."""
        return list(self.query(SessionView))

    @property
    def active_view(self) -> SessionView | None:
        """The session view of the active tab."""
        try:
            tabs = self.query_one(TabbedContent)
        except NoMatches:
            return None
        pane = tabs.active_pane
        if pane is None:
            return None
        found = pane.query(SessionView)
        return found.first() if found else None

    async def add_session(self, session: Session, past: SessionRecord | None = None) -> SessionView:
        """Show a session in a new tab and activate it (the first one replaces the start)."""
        self._pane_seq += 1
        first = not self.views()
        view = SessionView(session, self.terminals, start=self.start_info(), past=past)
        self.attach(view)
        pane_id = f"session-{self._pane_seq}"
        tabs = self.query_one(TabbedContent)
        await tabs.add_pane(TabPane(Content(f"{self._pane_seq} {view.label}"), view, id=pane_id))
        tabs.active = pane_id
        if first:
            tabs.remove_class("-hidden")
            self.query_one("#start-box").add_class("-hidden")
        self._activated()
        return view

    def _activated(self) -> None:
        view = self.active_view
        # A tab activated while the app is closing comes after its widgets left.
        for composer in self.query(Composer):
            composer.set_commands(view.session.state.available_commands if view else [])
        self.refresh_status()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self) -> None:
        self._activated()
        for area in self.query(PromptArea):
            area.focus()

    @on(SessionView.Changed)
    def _view_changed(self, event: SessionView.Changed) -> None:
        view = event.view
        if view is self.active_view:
            self.query_one(Composer).set_commands(view.session.state.available_commands)
        self._relabel(view)
        self.refresh_status()

    def _relabel(self, view: SessionView) -> None:
        pane = view.parent
        if isinstance(pane, TabPane) and pane.id is not None:
            n = pane.id.rsplit("-", 1)[-1]
            with contextlib.suppress(NoMatches):
                # Content, not a str: a str label is parsed as markup.
                self.query_one(TabbedContent).get_tab(pane.id).label = Content(f"{n} {view.label}")

    # -- status --------------------------------------------------------------------------

    def refresh_status(self) -> None:
        """Recompute the status bar and the start screen from the client and the active view."""
        info = self.status_info
        client = self.client
        agent = client.agent_info if client is not None else None
        if agent is not None:
            info.agent, info.version = agent.name, agent.version or ""
        info.connection = self.connection
        info.sandbox = self.sandbox
        info.protocol = self.agreed
        info.pending_asks = len(self.asks)
        view = self.active_view
        if view is not None:
            state = view.session.state
            modes = state.modes
            mode = ""
            if modes is not None:
                names = {m.id: m.name for m in modes.available_modes}
                mode = names.get(modes.current_mode_id, modes.current_mode_id)
            info.mode = mode
            model = view.session.model_option()
            info.model = str(getattr(model, "current_value", "")) if model is not None else ""
            info.usage = format_usage(state.usage, tokens=view.tokens, budget=view.session.budget)
            info.budgeted = view.session.budget is not None
            info.title = state.title or ""
            info.stop_reason = view.stop_reason
            info.busy = view.busy
            info.cancelling = view.cancelling and view.busy
            running = view.session.running_subagents()
            info.subagents = len(running)
            info.subagents_cancellable = any(child.can_cancel for child in running)
        else:
            info.mode = info.model = info.usage = info.title = info.stop_reason = ""
            info.busy = info.cancelling = info.budgeted = False
            info.subagents = 0
            info.subagents_cancellable = False
        with contextlib.suppress(NoMatches):
            self.query_one(StatusBar).show(info)
        with contextlib.suppress(NoMatches):
            self.query_one("#start-box", StartPanel).show(self.start_info())

    # -- screens -------------------------------------------------------------------------

    def action_protocol_log(self) -> None:
        """Ctrl+L / F12: the protocol log."""
        if isinstance(self.screen, ProtocolLogScreen):
            self.screen.dismiss()
            return
        self.push_screen(ProtocolLogScreen(self.protocol))

    def action_toggle_keys(self) -> None:
        """F1: the keys, the app's first."""
        if isinstance(self.screen, KeysScreen):
            self.screen.answer(None)
        else:
            self.push_screen(KeysScreen(priority_keys(self.BINDINGS)))

    # -- quitting ------------------------------------------------------------------------

    def action_quit(self) -> None:  # type: ignore[override]
        """Ctrl+Q (and the command palette's Quit): exit now; the agent closes on unmount."""
        code = 1 if self.connection is ConnectionState.CRASHED else 0
        self.exit(code, return_code=code)

    async def on_unmount(self) -> None:
        """Never leave the agent running."""
        self.asks.cancel_all()
        await self.close_client()
        self.history.close()
