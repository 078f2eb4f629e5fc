"""What the user does to sessions: open, close, rename, archive, switch tabs, modes, options.

A part of :class:`~acphost.tui.AcpApp` (see :mod:`acphost.tui._base`). Each
action that talks to the agent runs as a worker; names and descriptions
the agent sent reach the pickers as inert text.
"""

from __future__ import annotations

from textual import work
from textual.widgets import TabbedContent, TabPane

from .. import schema as s
from ..client import option_id, option_values
from ..errors import AcpError
from ._base import AppBase
from ._dialogs import PickerScreen, PickItem, TextScreen
from ._model import config_value_label, config_value_names
from ._session_view import SessionView

__all__ = ["SessionActions"]


class SessionActions(AppBase):
    """Ctrl+N, F4, F6 and F7, tab switching, F2 (mode) and F3 (model and options)."""

    @work(group="sessions", exit_on_error=False)
    async def action_new_session(self) -> None:
        """Ctrl+N: open a new session in a new tab."""
        client = self.client
        if client is None:
            self.say(self.no_session_note(), "warning")
            return
        await self.open_session(lambda: client.new_session(self.cwd, **self.session_options()))

    @work(group="sessions", exit_on_error=False)
    async def action_close_session(self) -> None:
        """F4: close the active session's tab (``session/close`` when supported)."""
        view = self.active_view
        if view is None:
            return
        try:
            await view.session.close()
        except AcpError as exc:
            self.log(f"session/close: {exc}")
        await self._remove_tab(view)

    async def _remove_tab(self, view: SessionView) -> None:
        self.history.finish(view.recording)
        view.recording = None
        pane = view.parent
        if isinstance(pane, TabPane) and pane.id:
            await self.query_one(TabbedContent).remove_pane(pane.id)
        self.refresh_status()

    # -- unstable session methods (only with --unstable, where the agent offers them) --

    def _unstable_refusal(self, capability: str, method: str) -> str:
        """Why ``method`` cannot be used now (``""``: it can)."""
        if not self.unstable:
            return f"{method} is an unstable ACP method: start acphost tui with --unstable"
        client = self.client
        if client is None:
            return "the agent is not running"
        caps = client.unstable.capabilities.session_capabilities
        if caps is None or getattr(caps, capability, None) is None:
            return f"this agent does not support {method}"
        return ""

    @work(group="sessions", exit_on_error=False)
    async def action_rename_session(self) -> None:
        """F6 (``--unstable``): rename the active session (``session/set_title``)."""
        view = self.active_view
        if view is None:
            return
        refusal = self._unstable_refusal("title", "session/set_title")
        if refusal or self.client is None:
            self.say(refusal, "warning")
            return
        title = await self.push_screen_wait(
            TextScreen("Rename the session", view.session.state.title or view.label)
        )
        if not title or self.client is None:
            return
        try:
            await self.client.unstable.set_title(view.session.id, title)
        except AcpError as exc:
            self.say(f"could not rename the session: {exc}", "error")
            return
        view.post_message(SessionView.Changed(view))

    @work(group="sessions", exit_on_error=False)
    async def action_archive_session(self) -> None:
        """F7 (``--unstable``): archive the session (``session/archive``), close its tab."""
        view = self.active_view
        if view is None:
            return
        refusal = self._unstable_refusal("archive", "session/archive")
        if refusal or self.client is None:
            self.say(refusal, "warning")
            return
        if view.busy:
            self.say("a turn is running: cancel it first (Esc)", "warning")
            return
        try:
            await self.client.unstable.archive(view.session.id)
        except AcpError as exc:
            self.say(f"could not archive the session: {exc}", "error")
            return
        self.say(f"archived {view.label!r} (the agent keeps it)")
        await self._remove_tab(view)

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

    @work(group="config", exit_on_error=False)
    async def action_pick_mode(self) -> None:
        """F2: choose the session mode."""
        view = self.active_view
        if view is None:
            self.say(self.no_session_note(), "warning")
            return
        modes = view.session.state.modes
        if modes is None or not modes.available_modes:
            self.say("this agent offers no modes", "warning")
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
            self.say(f"could not switch mode: {exc}", "error")
        self.refresh_status()

    @work(group="config", exit_on_error=False)
    async def action_pick_config(self) -> None:
        """F3: choose a config option's value (model first)."""
        view = self.active_view
        if view is None:
            self.say(self.no_session_note(), "warning")
            return
        options = view.session.state.config_options
        if not options:
            self.say("this agent offers no configuration options", "warning")
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
            self.say(f"could not set {chosen}: {exc}", "error")
        self.refresh_status()
