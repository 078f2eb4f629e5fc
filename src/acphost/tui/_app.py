"""The Textual application: sessions in tabs, the composer, dialogs, status.

The app drives the library on its own asyncio loop: the connection is opened
in a worker, session updates reach each :class:`SessionView` through
``Session.add_listener`` (inline, in wire order), prompts run as workers that
await their :class:`~acphost.Turn`, and permission requests go through an
:class:`~acphost.host.Interactive` policy whose callback queues a dialog.
No protocol code lives here.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Awaitable, Callable
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Footer, TabbedContent, TabPane

from .. import schema as s
from .._errors import AcpError, AgentExited, AuthRequired
from ..client import (
    AcpClient,
    ClientContext,
    HostConfig,
    Session,
    auth_method_id,
    option_id,
    option_values,
)
from ..config import AgentSpec, Settings
from ..content import prompt_with_mentions
from ..host import (
    Verdict,
)
from ..launch import HostChoices, build_host_config
from ._composer import Composer, PromptArea
from ._dialogs import CrashScreen, PickerScreen, PickItem
from ._frames import ProtocolLog
from ._model import (
    ConnectionState,
    PendingPermission,
    PermissionQueue,
    StatusInfo,
    TerminalBuffers,
    config_value_label,
    config_value_names,
    format_usage,
)
from ._permission import PermissionScreen
from ._protocol_log import ProtocolLogScreen
from ._session_view import SessionView
from ._status import StatusBar

__all__ = ["AcpApp"]


class AcpApp(App[int]):
    """``acphost tui``: an interactive client for one agent.

    Args:
        spec: the agent to launch.
        cwd: the absolute workspace directory.
        settings: settings (MCP servers for new sessions).
        write: offer file writes (confined to the workspace).
        yolo: allow everything without asking; reads anywhere.
        init_timeout: seconds for ``initialize`` and session setup.

    """

    TITLE = "acphost"
    CSS = """
    Screen { layout: vertical; }
    TabbedContent { height: 1fr; }
    TabbedContent > ContentSwitcher { height: 1fr; }
    TabPane { padding: 0; height: 1fr; }
    #empty { color: $text-muted; padding: 1 2; }
    """

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("escape", "cancel_turn", "Cancel", show=False),
        Binding("ctrl+c", "cancel_turn", "Cancel", priority=True),
        Binding("f2", "pick_mode", "Mode", priority=True),
        Binding("f3", "pick_config", "Model", priority=True),
        Binding("ctrl+n", "new_session", "New", priority=True),
        Binding("ctrl+o", "list_sessions", "Sessions", priority=True),
        Binding("ctrl+l,f12", "protocol_log", "Log", priority=True),
        Binding("f4", "close_session", "Close tab", show=False, priority=True),
        Binding("ctrl+pagedown,alt+right", "next_tab", "Next tab", show=False, priority=True),
        Binding("ctrl+pageup,alt+left", "previous_tab", "Prev tab", show=False, priority=True),
        Binding("ctrl+r", "restart", "Restart agent", show=False, priority=True),
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
    ) -> None:
        super().__init__()
        self.spec = spec
        self.cwd = os.path.abspath(cwd)
        self.settings = settings
        self.write = write or yolo
        self.yolo = yolo
        self.init_timeout = init_timeout
        self.protocol = ProtocolLog()
        self.terminals = TerminalBuffers()
        self.permissions = PermissionQueue(on_change=self._permissions_changed)
        self.client: AcpClient | None = None
        self.connection = ConnectionState.CONNECTING
        self._client_context: ClientContext | None = None
        self._closing = False
        self._perm_shown: tuple[PendingPermission, PermissionScreen] | None = None
        self._pane_seq = 0
        self.status_info = StatusInfo(agent=spec.name)

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Tabs of sessions, the composer, the status bar, the key hints."""
        yield TabbedContent(id="sessions")
        yield Composer(self.cwd)
        yield StatusBar()
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        """Connect to the agent and open the first session."""
        self.query_one(PromptArea).focus()
        self.refresh_status()
        self.connect()

    # -- connection --------------------------------------------------------------------

    def _host_config(self) -> HostConfig:
        return build_host_config(
            HostChoices(write=self.write, yolo=self.yolo),
            self.spec,
            asker=self.permissions.ask,
            on_terminal_event=self.terminals.on_event,
        )

    @work(exclusive=True, group="connect", exit_on_error=False)
    async def connect(self, reopen: list[str] | None = None) -> None:
        """Start the agent, initialize, open (or reopen) sessions."""
        self._set_connection(ConnectionState.CONNECTING)
        context = AcpClient.start(
            self.spec.argv,
            env=dict(self.spec.env),
            cwd=self.cwd,
            host=self._host_config(),
            tap=self.protocol.record,
            init_timeout=self.init_timeout,
            session_timeout=self.init_timeout,
        )
        try:
            client = await context.__aenter__()
        except AgentExited as exc:
            self._set_connection(ConnectionState.CRASHED)
            self._crashed(exc.message, exc.stderr_tail)
            return
        except (AcpError, OSError) as exc:
            self._set_connection(ConnectionState.CRASHED)
            self._crashed(f"could not start {self.spec.name!r}: {exc}", "")
            return
        self._client_context = context
        self.client = client
        self._closing = False
        info = client.agent_info
        self.status_info.agent = info.name if info else self.spec.name
        self.status_info.version = info.version if info else ""
        self._set_connection(ConnectionState.CONNECTED)
        self.watch_agent(client)
        if reopen and client.agent_capabilities.load_session:
            for sid in reopen:
                await self._open(self._loader(client, sid))
        else:
            await self._open(lambda: client.new_session(self.cwd, **self._mcp()))

    def _loader(self, client: AcpClient, sid: str) -> Callable[[], Awaitable[Session]]:
        def load() -> Awaitable[Session]:
            return client.load_session(sid, self.cwd, **self._mcp())

        return load

    def _mcp(self) -> dict[str, Any]:
        return {"mcp_servers": self.settings.mcp_servers} if self.settings else {}

    async def _open(self, opener: Callable[[], Awaitable[Session]]) -> SessionView | None:
        """Open a session, authenticating first when the agent asks for it."""
        for _ in range(3):
            try:
                session = await opener()
            except AuthRequired as exc:
                if not await self._authenticate(exc):
                    return None
                continue
            except AcpError as exc:
                self.notify(f"could not open the session: {exc}", severity="error", timeout=8)
                return None
            return await self.add_session(session)
        return None

    async def _authenticate(self, exc: AuthRequired) -> bool:
        client = self.client
        if client is None:
            return False
        methods = list(exc.auth_methods or client.auth_methods)
        if not methods:
            self.notify(
                f"the agent requires authentication but offers no method: {exc}", severity="error"
            )
            return False
        self._set_connection(ConnectionState.AUTHENTICATING)
        items = [
            PickItem(
                auth_method_id(m),
                getattr(m, "name", auth_method_id(m)),
                (getattr(m, "description", None) or "")
                + (" (runs a login command)" if isinstance(m, s.AuthMethodTerminal) else ""),
            )
            for m in methods
        ]
        chosen = await self.push_screen_wait(
            PickerScreen("The agent requires authentication", items)
        )
        if chosen is None:
            self._set_connection(ConnectionState.CONNECTED)
            self.notify("not authenticated: the session was not opened", severity="warning")
            return False
        method = next(m for m in methods if auth_method_id(m) == chosen)
        try:
            if isinstance(method, s.AuthMethodTerminal):
                self._terminal_login(method)
            else:
                await client.authenticate(chosen)
        except AcpError as err:
            self.notify(f"authentication failed: {err}", severity="error")
            return False
        finally:
            self._set_connection(ConnectionState.CONNECTED)
        self.notify(f"authenticated with {chosen}")
        return True

    def _terminal_login(self, method: s.AuthMethodTerminal) -> None:
        """ACP terminal auth: run the agent's login command in the real terminal."""
        env = {**os.environ, **self.spec.env, **(method.env or {})}
        with self.suspend():
            subprocess.call([*self.spec.argv, *(method.args or [])], env=env, cwd=self.cwd)

    @work(group="watch", exit_on_error=False)
    async def watch_agent(self, client: AcpClient) -> None:
        """Wait for the agent process to end; unexpected ends are crashes."""
        info = await client.transport.exit_info(timeout=10**9)
        if client is not self.client or self._closing:
            return
        code = info.returncode
        message = (
            f"the agent exited with code {code}"
            if code is not None and code >= 0
            else f"the agent was killed by signal {-code}"
            if code is not None
            else "the agent closed its output"
        )
        self._set_connection(ConnectionState.CRASHED)
        for view in self.views():
            # A view whose turn was running reports the exit itself (run_turn).
            if not view.busy and view.stop_reason != "agent exited":
                view.transcript.add_notice(f"✗ {message}", "error")
        self._crashed(message, info.stderr_tail)

    def _crashed(self, message: str, stderr_tail: str) -> None:
        def chosen(what: str | None) -> None:
            if what == "restart":
                self.action_restart()
            elif what == "quit":
                self.exit(1)

        self.push_screen(CrashScreen(message, stderr_tail), chosen)

    async def _close_client(self) -> None:
        self._closing = True
        context, self._client_context = self._client_context, None
        self.client = None
        if context is not None:
            with contextlib.suppress(AcpError, OSError):
                await context.__aexit__(None, None, None)

    def _set_connection(self, state: ConnectionState) -> None:
        self.connection = state
        self.refresh_status()

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

    async def add_session(self, session: Session) -> SessionView:
        """Show a session in a new tab and activate it."""
        self._pane_seq += 1
        view = SessionView(session, self.terminals)
        pane_id = f"session-{self._pane_seq}"
        tabs = self.query_one(TabbedContent)
        await tabs.add_pane(TabPane(f"{self._pane_seq} {view.label}", view, id=pane_id))
        tabs.active = pane_id
        self._activated()
        return view

    def _activated(self) -> None:
        view = self.active_view
        composer = self.query_one(Composer)
        composer.set_commands(view.session.state.available_commands if view else [])
        self.refresh_status()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self) -> None:
        self._activated()
        self.query_one(PromptArea).focus()

    @on(SessionView.Changed)
    def _view_changed(self, event: SessionView.Changed) -> None:
        view = event.view
        if view is self.active_view:
            self.query_one(Composer).set_commands(view.session.state.available_commands)
        pane = view.parent
        if isinstance(pane, TabPane) and pane.id is not None:
            n = pane.id.rsplit("-", 1)[-1]
            with contextlib.suppress(Exception):
                self.query_one(TabbedContent).get_tab(pane.id).label = f"{n} {view.label}"
        self.refresh_status()

    # -- prompts -----------------------------------------------------------------------

    @on(PromptArea.Submitted)
    def _submitted(self, event: PromptArea.Submitted) -> None:
        view = self.active_view
        if view is None or self.client is None:
            self.notify(
                "no session yet: wait for the agent, or restart it (Ctrl+R)", severity="warning"
            )
            return
        if view.busy:
            self.notify("a turn is running: cancel it first (Esc)", severity="warning")
            return
        self.run_turn(view, prompt_with_mentions(event.text, view.session.cwd))

    @work(group="turns", exit_on_error=False)
    async def run_turn(self, view: SessionView, blocks: list[s.ContentBlock]) -> None:
        """Run one prompt turn in a session view."""
        await view.run_turn(blocks)

    def action_cancel_turn(self) -> None:
        """Esc / Ctrl+C: cancel the active session's turn."""
        view = self.active_view
        if view is None or view.session.turn is None:
            return
        self.notify("cancelling…", timeout=2)
        self._cancel(view)

    @work(group="cancel", exit_on_error=False)
    async def _cancel(self, view: SessionView) -> None:
        try:
            await view.session.cancel()
        except AcpError as exc:
            self.notify(f"cancel: {exc}", severity="error")
        view.transcript.refresh_cards()

    @work(group="sessions", exit_on_error=False)
    async def action_new_session(self) -> None:
        """Ctrl+N: open a new session in a new tab."""
        client = self.client
        if client is None:
            return
        await self._open(lambda: client.new_session(self.cwd, **self._mcp()))

    @work(group="sessions", exit_on_error=False)
    async def action_list_sessions(self) -> None:
        """Ctrl+O: the agent's sessions (``session/list``); pick one to load or resume."""
        client = self.client
        if client is None:
            return
        caps = client.agent_capabilities
        can_list = (
            caps.session_capabilities is not None and caps.session_capabilities.list is not None
        )
        if not can_list:
            self.notify("this agent cannot list its sessions", severity="warning")
            return
        try:
            infos = [i async for i in client.iter_sessions(cwd=self.cwd)]
        except AcpError as exc:
            self.notify(f"session/list failed: {exc}", severity="error")
            return
        open_ids = {v.session.id for v in self.views()}
        items = [
            PickItem(
                i.session_id,
                i.title or i.session_id[:8],
                " · ".join(
                    x for x in (i.updated_at or "", "open" if i.session_id in open_ids else "") if x
                ),
            )
            for i in reversed(infos)
        ]
        if not items:
            self.notify("the agent has no sessions for this directory")
            return
        sid = await self.push_screen_wait(PickerScreen("Sessions (newest first)", items))
        if sid is None:
            return
        for view in self.views():
            if view.session.id == sid:
                pane = view.parent
                if isinstance(pane, TabPane) and pane.id:
                    self.query_one(TabbedContent).active = pane.id
                return
        if caps.load_session:
            await self._open(lambda: client.load_session(sid, self.cwd, **self._mcp()))
        else:
            await self._open(lambda: client.resume_session(sid, self.cwd, **self._mcp()))

    @work(group="sessions", exit_on_error=False)
    async def action_close_session(self) -> None:
        """F4: close the active session's tab (``session/close`` when supported)."""
        view = self.active_view
        if view is None:
            return
        pane = view.parent
        with contextlib.suppress(AcpError):
            await view.session.close()
        if isinstance(pane, TabPane) and pane.id:
            await self.query_one(TabbedContent).remove_pane(pane.id)
        self._activated()

    def action_next_tab(self) -> None:
        """Switch to the next session tab."""
        self._step_tab(1)

    def action_previous_tab(self) -> None:
        """Switch to the previous session tab."""
        self._step_tab(-1)

    def _step_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        ids = [p.id for p in tabs.query(TabPane) if p.id]
        if len(ids) < 2 or tabs.active not in ids:
            return
        tabs.active = ids[(ids.index(tabs.active) + step) % len(ids)]

    # -- modes and config --------------------------------------------------------------

    @work(group="config", exit_on_error=False)
    async def action_pick_mode(self) -> None:
        """F2: choose the session mode."""
        view = self.active_view
        modes = view.session.state.modes if view else None
        if view is None or modes is None or not modes.available_modes:
            self.notify("this agent offers no modes", severity="warning")
            return
        items = [
            PickItem(m.id, m.name, m.description or "", current=m.id == modes.current_mode_id)
            for m in modes.available_modes
        ]
        mode = await self.push_screen_wait(PickerScreen("Session mode", items))
        if mode is None or mode == modes.current_mode_id:
            return
        try:
            await view.session.set_mode(mode)
        except AcpError as exc:
            self.notify(f"could not switch mode: {exc}", severity="error")
        self.refresh_status()

    @work(group="config", exit_on_error=False)
    async def action_pick_config(self) -> None:
        """F3: choose a config option's value (model first)."""
        view = self.active_view
        options = view.session.state.config_options if view else []
        if view is None or not options:
            self.notify("this agent offers no configuration options", severity="warning")
            return
        ordered = sorted(options, key=lambda o: getattr(o, "category", None) != "model")
        items = [
            PickItem(option_id(o), getattr(o, "name", option_id(o)), config_value_label(o))
            for o in ordered
        ]
        if len(items) == 1:
            chosen: str | None = items[0].value
        else:
            chosen = await self.push_screen_wait(PickerScreen("Configuration", items))
        if chosen is None:
            return
        option = next(o for o in options if option_id(o) == chosen)
        value: str | bool
        if isinstance(option, s.SessionConfigBoolean):
            value = not option.current_value
        else:
            current = getattr(option, "current_value", None)
            names = config_value_names(option)
            picked = await self.push_screen_wait(
                PickerScreen(
                    getattr(option, "name", chosen),
                    [
                        PickItem(v, names.get(v, v), current=v == current)
                        for v in option_values(option)
                    ],
                )
            )
            if picked is None:
                return
            value = picked
        try:
            await view.session.set_config_option(chosen, value)
        except AcpError as exc:
            self.notify(f"could not set {chosen}: {exc}", severity="error")
        self.refresh_status()

    # -- permissions -------------------------------------------------------------------

    def _permissions_changed(self) -> None:
        self.refresh_status()
        self.call_later(self._pump_permissions)

    def _pump_permissions(self) -> None:
        shown = self._perm_shown
        if shown is not None:
            item, screen = shown
            if item in self.permissions.items:
                return  # still waiting for the user
            # The request went away unanswered (its turn was cancelled).
            self._perm_shown = None
            if screen.is_attached and self.screen is screen:
                screen.dismiss(Verdict.reject("cancelled"))
        current = self.permissions.current
        if current is None or self._perm_shown is not None:
            return
        req = current.request
        client = self.client
        session = client.sessions.get(req.session_id) if client else None
        call = (
            session.state.tool_calls.get(req.tool_call_id)
            if session is not None and req.tool_call_id
            else None
        )
        label = ""
        if len(self.views()) > 1:
            for view in self.views():
                if view.session.id == req.session_id:
                    label = view.label
        screen = PermissionScreen(
            req, call, position=(1, len(self.permissions)), session_label=label
        )
        self._perm_shown = (current, screen)

        def answered(verdict: Verdict | None) -> None:
            if self._perm_shown is not None and self._perm_shown[0] is current:
                self._perm_shown = None
            self.permissions.answer(current, verdict or Verdict.reject("no answer"))
            self.call_later(self._pump_permissions)

        self.push_screen(screen, answered)

    # -- status and views --------------------------------------------------------------

    def refresh_status(self) -> None:
        """Recompute the status bar from the client and the active session."""
        info = self.status_info
        info.connection = self.connection
        info.pending_permissions = len(self.permissions)
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
            info.usage = format_usage(state.usage)
            info.title = state.title or ""
            info.stop_reason = view.stop_reason
            info.busy = view.busy
        else:
            info.mode = info.model = info.usage = info.title = info.stop_reason = ""
            info.busy = False
        with contextlib.suppress(Exception):
            self.query_one(StatusBar).show(info)

    def action_protocol_log(self) -> None:
        """Ctrl+L / F12: the protocol log."""
        if isinstance(self.screen, ProtocolLogScreen):
            self.screen.dismiss()
            return
        self.push_screen(ProtocolLogScreen(self.protocol))

    def action_toggle_keys(self) -> None:
        """F1: show or hide every key binding."""
        if self.screen.query("KeyPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    @work(exclusive=True, group="restart", exit_on_error=False)
    async def action_restart(self) -> None:
        """Ctrl+R: restart the agent and reopen the sessions (``session/load`` when offered)."""
        previous = [v.session.id for v in self.views()]
        await self._close_client()
        tabs = self.query_one(TabbedContent)
        await tabs.clear_panes()
        self.connect(reopen=previous)

    async def action_quit(self) -> None:
        """Ctrl+Q: close the agent and quit."""
        await self._close_client()
        self.exit(0)

    async def on_unmount(self) -> None:
        """Never leave the agent running."""
        await self._close_client()
