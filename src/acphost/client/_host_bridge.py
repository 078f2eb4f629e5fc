"""The bridge between the agent's requests and the host providers.

Decodes each agent→client request against the schema (bad params → -32602
with the path of the problem), finds the session and its workspace, consults
the permission broker — for every file read and write and every terminal,
whether or not the agent asked permission first — and calls the provider.

A method the host did not advertise is answered -32601, exactly as an
unknown one: the agent must not use capabilities it was not offered.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .. import schema as s
from ..errors import InvalidParams, MethodNotFound
from ..host import (
    HostConfig,
    PermissionBroker,
    PermissionOption,
    PermissionOutcome,
    PermissionRequest,
    ProtectedPaths,
    TerminalManager,
    Workspace,
    check_terminal_params,
    startup_files,
)
from ._peer import Emitter

if TYPE_CHECKING:
    from ..host import HostTools
from ._state import SessionState

__all__ = ["HostBridge", "SessionView"]

logger = logging.getLogger("acphost.host")


class SessionView(Protocol):
    """What the bridge reads of a session: its workspace roots and its state."""

    cwd: str
    additional_directories: tuple[str, ...]
    state: SessionState


class HostBridge:
    """Serves the agent's requests for one client (internal).

    Args:
        config: what the host offers and enforces.
        events: the client's event stream: the bridge tells it the
            permission questions, every decision the broker records, and
            the terminals' starts and exits.

    """

    def __init__(self, config: HostConfig, events: Emitter) -> None:
        self.config = config
        self.events = events
        perms = config.permissions
        self.broker = perms if isinstance(perms, PermissionBroker) else PermissionBroker(perms)
        # The broker knows every decision typed: no one reads them back from frames.
        self._unobserve = self.broker.observe(self._decided)
        # One watcher per terminal, telling its exit (see _terminal_create).
        self._watchers: set[asyncio.Task[None]] = set()
        self._sessions: Mapping[str, Any] = {}
        self._children: Mapping[str, Any] = {}
        self._workspaces: dict[str, Workspace] = {}
        #: Each open session's MCP server of the host's tools (see :meth:`open_tools`).
        self._tools: dict[str, HostTools] = {}
        # Elicitations the user has not answered yet, by session; a cancelled
        # turn answers them ``cancel`` (see cancel_session).
        self._asking: dict[str, set[asyncio.Task[Any]]] = {}
        self._withdrawn: set[asyncio.Task[Any]] = set()
        handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            s.SESSION_REQUEST_PERMISSION: self._request_permission,
        }
        if config.fs is not None:
            handlers[s.FS_READ_TEXT_FILE] = self._read_text_file
            if config.allow_write:
                handlers[s.FS_WRITE_TEXT_FILE] = self._write_text_file
        if config.terminals is not None:
            handlers[s.TERMINAL_CREATE] = self._terminal_create
            handlers[s.TERMINAL_OUTPUT] = self._terminal_output
            handlers[s.TERMINAL_WAIT_FOR_EXIT] = self._terminal_wait
            handlers[s.TERMINAL_KILL] = self._terminal_kill
            handlers[s.TERMINAL_RELEASE] = self._terminal_release
        if config.elicitation is not None:
            handlers[s.ELICITATION_CREATE] = self._elicitation_create
        self._handlers = handlers

    def attach(
        self, sessions: Mapping[str, Any], children: Mapping[str, Any] | None = None
    ) -> None:
        """Bind to the registry of sessions (by id) the agent's requests name.

        Args:
            sessions: the live registry; each value is a :class:`SessionView`.
            children: the subagents' child sessions, also :class:`SessionView`
                objects: a request on a child's id passes its root session's
                workspace and policy.

        """
        self._sessions = sessions
        self._children = children if children is not None else {}

    def capabilities(
        self,
        *,
        auth_terminal: bool = False,
        notices: bool = True,
        compaction: bool = True,
        subagents: bool = False,
    ) -> s.ClientCapabilities:
        """The client capabilities matching what is configured.

        Args:
            auth_terminal: the host runs terminal logins itself.
            notices: the host shows ``notice`` updates (``session.notices``).
            compaction: the host follows compaction updates (``session.compaction``).
            subagents: the host follows child sessions (``subagents``: stable
                in the protocol, defined so far in the unstable schema's
                ``ClientCapabilities``, hence sent as an extra member).

        """
        cfg = self.config
        elicitation = None
        if cfg.elicitation is not None:
            elicitation = s.ElicitationCapabilities(
                form=s.ElicitationFormCapabilities() if cfg.elicitation.form else None,
                url=s.ElicitationUrlCapabilities() if cfg.elicitation.url else None,
            )
        return s.ClientCapabilities(
            fs=s.FileSystemCapabilities(
                read_text_file=cfg.fs is not None,
                write_text_file=cfg.fs is not None and cfg.allow_write,
            ),
            terminal=cfg.terminals is not None,
            auth=s.AuthCapabilities(terminal=auth_terminal),
            elicitation=elicitation,
            # Session.set_config_option handles boolean options (schema 1.18).
            session=s.ClientSessionCapabilities(
                config_options=s.SessionConfigOptionsCapabilities(
                    boolean=s.BooleanConfigOptionCapabilities()
                ),
                notices=s.NoticeCapabilities() if notices else None,
                compaction=s.CompactionCapabilities() if compaction else None,
            ),
            extra={"subagents": {}} if subagents else None,
        )

    # -- dispatch ------------------------------------------------------------------

    async def handle(self, method: str, params: Any) -> Any:
        """Answer one agent request (the connection's ``on_request``).

        Raises:
            MethodNotFound: unknown, or not advertised to this agent.
            InvalidParams: the params do not match the schema, or name an
                unknown session.
            RequestError: the provider or the policy refused.

        """
        handler = self._handlers.get(method)
        if handler is None:
            raise MethodNotFound(f"Method not found: {method}")
        return await handler(params)

    def _session(self, session_id: str) -> SessionView:
        session: SessionView | None = self._sessions.get(session_id) or self._children.get(
            session_id
        )
        if session is None:
            raise InvalidParams(f"unknown session {session_id!r}")
        return session

    def _workspace(self, session_id: str) -> Workspace:
        ws = self._workspaces.get(session_id)
        if ws is None:
            session = self._session(session_id)
            try:
                ws = Workspace([session.cwd, *session.additional_directories])
            except ValueError as exc:
                raise InvalidParams(f"the session's workspace is unusable: {exc}") from None
            self._workspaces[session_id] = ws
        return ws

    # -- permissions -------------------------------------------------------------------

    def begin_turn(self, session_id: str) -> None:
        """A prompt starts: permission requests of the session are live again."""
        self.broker.begin_turn(session_id)

    def cancel_session(self, session_id: str) -> None:
        """The turn is cancelled: answer its pending and new requests ``cancelled``.

        Permission requests are answered ``cancelled`` by the broker (ACP
        "Cancellation": the client MUST); a form the user is still filling
        in for the session is withdrawn and answered with the ``cancel``
        action (schema ``ElicitationCancelAction``), so an agent waiting on
        it can end the turn.
        """
        self.broker.cancel_session(session_id)
        for task in self._asking.pop(session_id, ()):
            if not task.done():
                self._withdrawn.add(task)
                task.cancel()

    async def _request_permission(self, params: Any) -> Any:
        req = _decode(s.RequestPermissionRequest, params)
        session = self._session(req.session_id)
        # The request carries the tool call, announced or not (merged into state).
        call = session.state.merge_tool_call(req.tool_call)
        # Some agents (Qwen Code) put workspace-relative paths in diff content;
        # the request resolves them against the session's cwd, as the jail would.
        locations = [loc.path for loc in call.locations]
        diffs = [c for c in call.content if isinstance(c, s.DiffToolCallContent)]
        locations += [d.path for d in diffs]
        request = PermissionRequest.for_tool_call(
            req.session_id,
            call.tool_call_id,
            title=call.title or None,
            kind=call.kind,
            locations=locations,
            cwd=session.cwd,
            raw_input=call.raw_input,
            tool_name=call.name,
            options=[PermissionOption(o.option_id, o.name, o.kind) for o in req.options],
            protect=self._protected(req.session_id),
            # The agent's own tool writes what it shows: a diff's newText is
            # the file's whole new content (schema ``Diff.newText``), judged
            # like an fs/write_text_file's (a git HEAD completes a repository).
            writes=[(d.path, d.new_text) for d in diffs],
            workspace=self._workspace(req.session_id).roots,
        )
        events = self.events
        if events.observed:
            events._permission_asked(req.session_id, request)
        outcome = await self.broker.request(request)
        if outcome.option_id is None:
            return {"outcome": {"outcome": "cancelled"}}
        return {"outcome": {"outcome": "selected", "optionId": outcome.option_id}}

    def _decided(self, request: PermissionRequest, outcome: PermissionOutcome, asked: bool) -> None:
        events = self.events
        if events.observed:
            events._permission_decided(request, outcome, asked)

    def _protected(self, session_id: str) -> ProtectedPaths:
        """The protected paths of a session: its workspace's and the host's output files.

        With them, the user's git configuration and shell startup files
        when the workspace holds them (it is the home directory): an agent
        that wrote ``~/.gitconfig`` or ``~/.bash_profile`` would run its code
        on the next allowed ``git status`` or login shell.
        """
        return ProtectedPaths(
            self._workspace(session_id).roots, self.config.protected_paths, startup_files()
        )

    # -- files -------------------------------------------------------------------

    async def _read_text_file(self, params: Any) -> Any:
        req = _decode(s.ReadTextFileRequest, params)
        ws = self._workspace(req.session_id)
        assert self.config.fs is not None
        protect = self._protected(req.session_id)

        async def authorize(path: str) -> None:
            # The policy judges the canonical path of the file the jail opened;
            # the host's own files (settings with other agents' keys, the
            # history, output files) are protected from reads as from writes.
            await self.broker.check(
                PermissionRequest.for_fs_read(
                    req.session_id, path, requested=req.path, protect=protect
                )
            )

        content = await self.config.fs.read_text_file(
            ws, req.path, req.line, req.limit, authorize=authorize
        )
        return {"content": content}

    async def _write_text_file(self, params: Any) -> Any:
        req = _decode(s.WriteTextFileRequest, params)
        ws = self._workspace(req.session_id)
        assert self.config.fs is not None
        protect = self._protected(req.session_id)

        async def authorize(path: str) -> None:
            # The canonical path the jail will replace, before anything is created.
            await self.broker.check(
                PermissionRequest.for_fs_write(
                    req.session_id, path, requested=req.path, protect=protect, content=req.content
                )
            )

        await self.config.fs.write_text_file(ws, req.path, req.content, authorize=authorize)
        return {}

    # -- terminals -----------------------------------------------------------------

    @property
    def _terminals(self) -> TerminalManager:
        assert self.config.terminals is not None
        return self.config.terminals

    async def _terminal_create(self, params: Any) -> Any:
        # Malformed args/env/cwd/limit are refused, not defaulted (schema v1.25).
        check_terminal_params(params)
        req = _decode(s.CreateTerminalRequest, params)
        ws = self._workspace(req.session_id)
        env = [(v.name, v.value) for v in req.env or ()]
        cwd = self._terminals.resolve_cwd(ws, req.cwd)
        # The policy sees the environment too: it can change what the command
        # runs (GIT_CONFIG_*, PATH, LD_PRELOAD), so it is part of the request;
        # and the directory the command really starts in.
        await self.broker.check(
            PermissionRequest.for_terminal(
                req.session_id, req.command, req.args, cwd=cwd, env=env, workspace=ws.roots
            )
        )
        terminal_id = await self._terminals.create(
            req.session_id,
            ws,
            req.command,
            args=req.args,
            env=dict(env) or None,
            cwd=cwd,
            output_byte_limit=req.output_byte_limit,
        )
        events = self.events
        if events.observed:
            events._terminal_started(
                req.session_id, terminal_id, req.command, tuple(req.args or ()), cwd
            )
        # Watched from its creation (the terminal is known to the manager
        # now): a release or the client's close kills it, so the watch ends.
        watcher = asyncio.get_running_loop().create_task(
            self._watch_terminal(req.session_id, terminal_id),
            name=f"acphost.host.terminal.{terminal_id}",
        )
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
        return {"terminalId": terminal_id}

    async def _watch_terminal(self, session_id: str, terminal_id: str) -> None:
        try:
            status = await self._terminals.wait_for_exit(session_id, terminal_id)
        except Exception as exc:  # released before the watch began: nothing to tell
            logger.debug("terminal %s not watched: %s", terminal_id, exc)
            return
        events = self.events
        if events.observed:
            events._terminal_exited(session_id, terminal_id, _exit_status(status))

    async def _terminal_output(self, params: Any) -> Any:
        req = _decode(s.TerminalOutputRequest, params)
        out = self._terminals.output(req.session_id, req.terminal_id)
        result: dict[str, Any] = {"output": out.output, "truncated": out.truncated}
        if out.exit_status is not None:
            result["exitStatus"] = _exit_status(out.exit_status)
        return result

    async def _terminal_wait(self, params: Any) -> Any:
        req = _decode(s.WaitForTerminalExitRequest, params)
        status = await self._terminals.wait_for_exit(req.session_id, req.terminal_id)
        return _exit_status(status)

    async def _terminal_kill(self, params: Any) -> Any:
        req = _decode(s.KillTerminalRequest, params)
        await self._terminals.kill(req.session_id, req.terminal_id)
        return {}

    async def _terminal_release(self, params: Any) -> Any:
        req = _decode(s.ReleaseTerminalRequest, params)
        await self._terminals.release(req.session_id, req.terminal_id)
        return {}

    # -- elicitation -----------------------------------------------------------------

    async def _elicitation_create(self, params: Any) -> Any:
        req = _decode(s.CreateElicitationRequest, params)
        assert self.config.elicitation is not None
        task = asyncio.ensure_future(self.config.elicitation(req))
        sid = req.session_id
        if sid is None:
            return await task
        self._asking.setdefault(sid, set()).add(task)
        try:
            try:
                await asyncio.wait({task})
            except asyncio.CancelledError:
                task.cancel()  # the request itself was cancelled, not the turn
                raise
            if task.cancelled() and task in self._withdrawn:
                return {"action": "cancel"}
            return task.result()
        finally:
            self._withdrawn.discard(task)
            asking = self._asking.get(sid)
            if asking is not None:
                asking.discard(task)
                if not asking:
                    del self._asking[sid]

    def elicitation_complete(self, params: Any) -> None:
        """The agent says a URL elicitation finished; the handler hears it if it listens."""
        elicitation_id = params.get("elicitationId") if isinstance(params, dict) else None
        logger.info("elicitation complete: %r", elicitation_id)
        complete = getattr(self.config.elicitation, "complete", None)
        if isinstance(elicitation_id, str) and callable(complete):
            complete(elicitation_id)

    # -- lifecycle -----------------------------------------------------------------------

    async def open_tools(
        self, cwd: str, *, protocol: int, beside: Sequence[Any] = (), http: bool = False
    ) -> tuple[HostTools, list[Any]] | None:
        """Start the host's tools as an MCP server for a session about to open.

        Args:
            cwd: the session's working directory (absolute).
            protocol: the agreed ACP version (the server entries' shape).
            http: serve them over HTTP on 127.0.0.1 (an agent that takes
                MCP over HTTP but not over stdio), not through the stdio relay.
            beside: the other MCP servers of the session (wire dicts): a
                server of the user's with the tools' name is theirs to keep,
                and the host's tools are then not offered.

        Returns:
            The server and its ``mcpServers`` entries; None when not offered
            (the host has neither files nor terminals, or the name is taken).
            Name the session with :meth:`bind_tools` once the agent answered,
            or close it.

        """
        cfg = self.config
        if cfg.fs is None and cfg.terminals is None:
            return None
        from ..host import HostTools  # noqa: PLC0415 - only when offered

        if any(isinstance(m, dict) and m.get("name") == HostTools.NAME for m in beside):
            logger.warning(
                "an MCP server named %r is configured: the host's own tools are not offered",
                HostTools.NAME,
            )
            return None

        tools = HostTools(
            self.handle,
            cwd=cwd,
            fs_read=cfg.fs is not None,
            fs_write=cfg.fs is not None and cfg.allow_write,
            terminal=cfg.terminals is not None,
            http=http,
        )
        await tools.start()
        return tools, tools.servers(protocol=protocol)

    async def bind_tools(self, tools: HostTools, session_id: str) -> None:
        """The session opened: its tools serve it, until :meth:`release_session`."""
        tools.bind(session_id)
        old = self._tools.get(session_id)
        self._tools[session_id] = tools
        if old is not None and old is not tools:  # the same session opened again
            await old.close()

    async def release_session(self, session_id: str) -> None:
        """Free what a closed session holds (permissions, terminals, tools, workspace)."""
        self._workspaces.pop(session_id, None)
        tools = self._tools.pop(session_id, None)
        if tools is not None:
            await tools.close()
        # Its pending permission prompts are cancelled and its grants and
        # sticky decisions dropped (unless remembered per agent).
        self.broker.forget_session(session_id)
        if self.config.terminals is not None:
            await self.config.terminals.release_session(session_id)

    async def close(self) -> None:
        """Close the permission broker (even one the host passed in) and kill every terminal.

        Every terminal's exit is told before this returns.
        """
        self.broker.close()
        tools, self._tools = list(self._tools.values()), {}
        for server in tools:
            await server.close()
        if self.config.terminals is not None:
            await self.config.terminals.close()
        if self._watchers:
            await asyncio.gather(*self._watchers, return_exceptions=True)
        self._unobserve()


def _decode(cls: Any, params: Any) -> Any:
    try:
        return cls.from_wire(params)
    except s.SchemaError as exc:
        raise InvalidParams(f"Invalid params: {exc}") from None


def _exit_status(status: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if status.exit_code is not None:
        out["exitCode"] = status.exit_code
    if status.signal is not None:
        out["signal"] = status.signal
    return out
