"""The agent's life in the app: start, log in, open sessions, notice a crash, restart.

:class:`AgentLifecycle` is a part of :class:`~acphost.tui.AcpApp` (a mixin
over :class:`~acphost.tui._base.AppBase`), kept apart because it changes for different
reasons than the widgets do. The connection is opened in a worker on
Textual's own loop; a second worker waits for the process to end.

A restart keeps every tab and its transcript: each view goes on with the
same session reloaded (``session/load``) or resumed (``session/resume``) when
the agent offers either, else with a new session, below a marker that says
which.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Awaitable, Callable
from typing import Any

from textual import work

from .. import schema as s
from ..client import AcpClient, HostConfig, Session, auth_method_id
from ..config import protocol_options
from ..errors import AcpError, AgentExited, AuthRequired
from ..history import SessionRecord
from ..launch import HostChoices, Run, RunOptions, UsageProblem, build_host_config, open_run
from ._base import AppBase
from ._dialogs import CrashScreen, PickerScreen, PickItem
from ._model import ConnectionState, ProtocolInfo, SandboxInfo
from ._safe import sanitize
from ._session_view import SessionView

__all__ = ["AgentLifecycle"]

#: Seconds the agent gets to exit after EOF, and again after SIGTERM, when the
#: app closes it: a quit finishes within about a second even if it hangs.
CLOSE_GRACE = 0.5


class AgentLifecycle(AppBase):
    """Connecting, authenticating, opening sessions, crashes and restarts."""

    #: Sessions being opened now (``session/new``, ``/load``, ``/resume`` and their tab).
    _opening = 0

    def _host_config(self) -> HostConfig:
        outputs = (self.history.path,) if self.history.enabled else ()
        config = build_host_config(
            HostChoices(
                write=self.write,
                yolo=self.yolo,
                output_files=outputs,
                settings_file=self.settings.path if self.settings is not None else None,
            ),
            self.spec,
            asker=self.asks.ask,
            on_terminal_event=self.terminals.on_event,
            redactor=self.redactor,
        )
        config.elicitation = self.elicitation
        return config

    def _show_sandbox(self, run: Run) -> None:
        """Keep what the run's sandbox is (or why there is none) for the status and start screen."""
        self.sandbox = SandboxInfo.of(run.confinement, run.unconfined)

    def _tap(self, direction: str, line: bytes) -> None:
        # Every frame: the protocol log.
        self.protocol.record(direction, line)

    def _set_connection(self, state: ConnectionState) -> None:
        self.connection = state
        self.refresh_status()

    @work(exclusive=True, group="connect", exit_on_error=False)
    async def connect(self, reopen: list[SessionView] | None = None) -> None:
        """Start the agent, initialize, then open a session (or carry on the views)."""
        self._set_connection(ConnectionState.CONNECTING)
        self.auth_state = ""
        # The app's run is its connection: sessions open in tabs, each through
        # the login dialogs (_open_with_auth), so the run itself opens none.
        run = open_run(
            RunOptions(
                self.spec,
                self.cwd,
                close_grace=CLOSE_GRACE,
                client={
                    "init_timeout": self.init_timeout,
                    "session_timeout": self.init_timeout,
                    "unstable": self.unstable,
                    "subagents": self.subagents,
                },
                host=self._host_config(),
                taps=[self._tap],
                session=None,
                # The same for an agent picked on the start screen as for the named one.
                confine=self.confine,
                **protocol_options(self.spec),
            )
        )
        self._client_context = run
        self.sandbox = None
        self.agreed = None
        try:
            await run.__aenter__()
        except AgentExited as exc:
            self._client_context = None
            self._show_sandbox(run)
            self._set_connection(ConnectionState.CRASHED)
            self._crashed(exc.message, exc.stderr_tail)
            return
        except (AcpError, OSError) as exc:
            self._client_context = None
            self._show_sandbox(run)
            self._set_connection(ConnectionState.CRASHED)
            self._crashed(f"could not start {self.spec.name!r}: {exc}", "")
            return
        except UsageProblem as exc:
            # Refused before the spawn (--sandbox where the kernel refused the
            # ruleset): nothing ran, so there is no sandbox to show.
            self._client_context = None
            self._set_connection(ConnectionState.CRASHED)
            self._crashed(f"could not start {self.spec.name!r}: {exc}", "")
            return
        self._show_sandbox(run)
        self.client = client = run.client
        self.agreed = ProtocolInfo(client.protocol_version, run.options.protocol)
        self._set_connection(ConnectionState.CONNECTED)
        self.watch_agent(client)
        if reopen:
            for view in reopen:
                await self._carry_on(client, view)
        else:
            await self.open_session(lambda: client.new_session(self.cwd, **self.session_options()))

    async def _carry_on(self, client: AcpClient, view: SessionView) -> None:
        """Give a view its session back on the new connection, below a marker."""
        sid = view.session.id
        caps = client.agent_capabilities
        session_caps = caps.session_capabilities
        session = None
        if caps.load_session:
            how = "session reloaded"
            session = await self._open_with_auth(self._opener(client.load_session, sid))
        elif session_caps is not None and session_caps.resume is not None:
            how = "session resumed"
            session = await self._open_with_auth(self._opener(client.resume_session, sid))
        else:
            how = (
                "new session (the agent cannot reload one: it does not see the conversation above)"
            )
        if session is None:
            if how.startswith("session"):
                how = "new session (the old one could not be reopened)"
            session = await self._open_with_auth(self._opener(client.new_session))
        if session is not None:
            self.history.finish(view.recording)
            view.rebind(session, f"agent restarted · {how}")
            self.attach(view)

    def _opener(self, method: Callable[..., Awaitable[Session]], *args: Any) -> Any:
        def open_it() -> Awaitable[Session]:
            return method(*args, self.cwd, **self.session_options())

        return open_it

    def session_options(self) -> dict[str, Any]:
        """The options every opened session gets: the settings' MCP servers, the system prompt.

        The system prompt is the agent's (its settings entry's, or ``acphost
        tui --system-prompt``), sent on new, load and resume alike; an agent
        that cannot take it opens no session, and the error says why.
        """
        options: dict[str, Any] = (
            {"mcp_servers": self.settings.mcp_servers} if self.settings else {}
        )
        if self.spec.system_prompt is not None:
            options["system_prompt"] = self.spec.system_prompt
            options["system_prompt_mode"] = self.spec.system_prompt_mode or "append"
        return options

    async def open_session(
        self, opener: Callable[[], Awaitable[Session]], past: SessionRecord | None = None
    ) -> SessionView | None:
        """Open a session in a new tab, authenticating first when the agent asks for it.

        ``past`` is the session's recorded turns, shown above the new ones
        (a session resumed from the history, which the agent does not replay).
        """
        self._opening += 1
        try:
            session = await self._open_with_auth(opener)
            if session is None:
                return None
            if not self.auth_state:
                self.auth_state = "no login needed"
            return await self.add_session(session, past)
        finally:
            self._opening -= 1

    def no_session_note(self) -> str:
        """Why no session is active, for an action that needs one.

        Never "the agent has none": the modes, the options and the commands
        come with the session (``session/new`` response), so before it opens
        nothing is known about them yet.
        """
        connection = self.connection
        if connection is ConnectionState.WAITING:
            return "pick an agent first"
        if connection in (ConnectionState.CRASHED, ConnectionState.CLOSED):
            return "the agent is not running: restart it with Ctrl+R"
        if connection is not ConnectionState.CONNECTED or self._opening:
            return "still connecting: no session is open yet"
        return "no session is open: Ctrl+N opens one"

    def attach(self, view: SessionView) -> None:
        """Give a view's session the run's budget, and record it in the history."""
        view.session.budget = self.budget
        agreed = self.agreed.agreed if self.agreed is not None else None
        view.recording = self.history.start(self.spec, view.session, self.redactor, agreed)

    async def _open_with_auth(self, opener: Callable[[], Awaitable[Session]]) -> Session | None:
        for _ in range(3):
            try:
                return await opener()
            except AuthRequired as exc:
                if not await self._authenticate(exc):
                    return None
            except AcpError as exc:
                self.say(f"could not open the session: {exc}", "error", 8)
                return None
        return None

    async def _authenticate(self, exc: AuthRequired) -> bool:
        client = self.client
        if client is None:
            return False
        methods = list(exc.auth_methods or client.auth_methods)
        if not methods:
            self.say(f"the agent requires authentication but offers no method: {exc}", "error")
            return False
        self.auth_state = "login required"
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
            self.say("not logged in: the session was not opened", "warning")
            return False
        method = next(m for m in methods if auth_method_id(m) == chosen)
        try:
            if isinstance(method, s.AuthMethodTerminal):
                self._terminal_login(method)
            else:
                await client.authenticate(chosen)
        except AcpError as err:
            self.say(f"authentication failed: {err}", "error")
            return False
        finally:
            self._set_connection(ConnectionState.CONNECTED)
        self.auth_state = f"logged in ({getattr(method, 'name', chosen)})"
        self.say(f"logged in with {chosen}")
        return True

    def _terminal_login(self, method: s.AuthMethodTerminal) -> None:
        """ACP terminal auth: run the agent's login command in the real terminal."""
        env = {**os.environ, **self.spec.env, **(method.env or {})}
        with self.suspend():
            subprocess.call([*self.spec.argv, *(method.args or [])], env=env, cwd=self.cwd)

    @work(group="watch", exit_on_error=False)
    async def watch_agent(self, client: AcpClient) -> None:
        """Wait for the agent process to end; an end we did not cause is a crash."""
        info = await client.transport.exit_info(timeout=10**9)
        if client is not self.client:
            return  # closed by us (quit, restart)
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
                self.exit(1, return_code=1)

        tail = self.redactor.redact_text(stderr_tail)
        self.push_screen(CrashScreen(message, tail, guard=self.key_guard), chosen)

    async def close_client(self) -> None:
        """Close the agent (EOF, then signals to its process group); idempotent."""
        context, self._client_context = self._client_context, None
        self.client = None
        if context is not None:
            try:
                await context.__aexit__(None, None, None)
            except (AcpError, OSError) as exc:
                self.log(f"closing the agent: {sanitize(str(exc))}")

    @work(exclusive=True, group="restart", exit_on_error=False)
    async def action_restart(self) -> None:
        """Ctrl+R: restart the agent; every tab goes on with its session where possible."""
        views = self.views()
        await self.close_client()
        self.asks.cancel_all()
        for view in views:
            view.busy = view.cancelling = False
        self.connect(reopen=views or None)
