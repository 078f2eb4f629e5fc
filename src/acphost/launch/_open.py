"""One place that opens a run: spawn early, connect, authenticate, open the session, observe.

Every face (the command line's prompt run, its ``sessions`` and ``doctor``
commands, the TUI, a batch run, :func:`acphost.run`) turns its flags into a
:class:`RunOptions` and opens it with :func:`open_run`; the face then runs
its turns and decides its exit code. The order is the one that starts
fastest: the agent's process is spawned first, so its start-up overlaps ours
(the face's heavier parts are built in :attr:`RunOptions.prepare` meanwhile).

Leaving the run closes it, on every path (an error in any phase, Ctrl-C, a
cancelled task, the agent's crash): the history recording, then the client
and the agent's whole process group. Nothing it started outlives it.

Every agent runs in an OS sandbox by default (:attr:`RunOptions.confine`;
Landlock on Linux, ``docs/SANDBOX.md``): the assembly builds it before the
spawn, the agent and the terminals the host runs for it start inside it, and
the run's close removes its private temporary folder.

The work that plugs in here later has its fields, refused until it is
built: :attr:`RunOptions.protocol` (anything but 1) and
:attr:`RunOptions.mcp_tools`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, cast

from ._setup import UsageProblem, logger, start_agent

if TYPE_CHECKING:
    import os

    from ..client import AcpClient, ClientOptions, HostConfig, Observer, Session, SystemPromptMode
    from ..config import AgentSpec
    from ..history import HistoryRecorder, SessionRecording
    from ..host import Confinement
    from ..rpc import FrameTap
    from ..trace import TraceWriter
    from ..transport import StdioTransport

__all__ = [
    "MAX_SYSTEM_PROMPT_BYTES",
    "Phase",
    "Run",
    "RunOptions",
    "SessionChoice",
    "open_run",
    "read_system_prompt",
    "system_prompt_of",
]

#: Where a run is: the phase it is in (or failed in), then ``open`` and ``closed``.
Phase = Literal[
    "spawn", "prepare", "initialize", "authenticate", "session", "configure", "open", "closed"
]

#: The one protocol version spoken today (ACP "Initialization").
PROTOCOL_VERSION = 1


@dataclass(frozen=True, slots=True)
class SessionChoice:
    """Which session the run opens.

    Attributes:
        how: ``new``; ``load`` or ``resume`` the session ``session_id``; or
            ``reopen`` it: resumed when the agent offers
            ``sessionCapabilities.resume``, else loaded when it offers
            ``loadSession``, else :class:`~acphost.launch.UsageProblem`.
        session_id: the session to load, resume or reopen.
        mcp_servers: the MCP servers the session gets (wire dicts or schema objects).
        cannot_reopen: what the user can do instead, appended to the
            message when the agent can neither resume nor load.

    """

    how: Literal["new", "load", "resume", "reopen"] = "new"
    session_id: str | None = None
    mcp_servers: Sequence[Any] = ()
    cannot_reopen: str = ""


@dataclass(eq=False)
class RunOptions:
    """Everything a face chose for one run, as data.

    Attributes:
        agent: the agent to start (its argv, env and quirks).
        cwd: the agent's working directory and the session's workspace (the
            real project folder :func:`~acphost.launch.resolve` returned).
        close_grace: seconds the agent gets to exit after EOF, and after
            SIGTERM, when the run closes.
        client: the client's other options (timeouts, ``unstable``,
            ``notices``, ``keep_history``...); ``host``, ``tap`` and
            ``trace`` come from the fields below.
        host: what the agent may do through us (None: the client's default).
        taps: frame taps, for those who need the exact bytes (``-o jsonl``,
            a protocol log, the live check), in this order.
        trace: record every frame here (a path or a writer).
        observers: subscribed to the client's typed event stream, in order.
        recorder: the history recorder; the run's session is recorded.
        record_as: the agent's name in the history (default ``agent.name``).
        auth: an auth method id to authenticate with before the session opens.
        session: the session to open, or None (a run that only initializes,
            e.g. to list sessions or to check the agent).
        mode: ``session/set_mode`` once the session is open.
        model: ``session/set_model`` once the session is open.
        config: ``(id, value)`` config options set after the mode and model,
            in order; a boolean option takes ``true`` or ``false`` (or
            ``on``/``off``, ``yes``/``no``, ``1``/``0``).
        prepare: called once, right after the spawn and before the client
            connects: the face builds its heavier parts here (and may fill in
            the fields above), while the agent starts.
        system_prompt: the session's system prompt, sent on ``session/new``,
            ``session/load`` and ``session/resume`` (None: the agent's
            settings entry's ``system_prompt``, if any); an agent that does not
            advertise ``sessionCapabilities.systemPrompt`` (or its
            ``mode.override``, for ``override``) is refused before the session
            opens (:class:`~acphost.launch.UsageProblem`).
        system_prompt_mode: ``append`` (added to the agent's own
            instructions) or ``override`` (replaces them); None: the agent's
            settings entry's, else ``append``.
        confine: run the agent (and the host's terminals for it) in an OS
            sandbox: None (the default) leaves it to the agent's
            :attr:`~acphost.config.AgentSpec.sandbox`, whose own default
            confines it where the system can and, where it cannot, logs one
            warning that it runs unconfined; True insists (where it cannot be
            had, the run is refused with :class:`~acphost.launch.UsageProblem`);
            False runs it unconfined.
        confine_write: further folders the confined agent may write (the
            session's additional directories), beside its workspace. A
            confined run with no ``host`` gets a default
            :class:`~acphost.HostConfig` here, whose terminals are confined too.
        protocol: the ACP protocol version to negotiate: 1, 2 or ``auto``
            (offer 2, fall back to 1); only 1 is spoken yet.
        mcp_tools: offer the host's tools to the agent as an MCP server
            (not built yet).

    """

    agent: AgentSpec
    cwd: str
    close_grace: float = 2.0
    client: ClientOptions = field(default_factory=dict)  # type: ignore[assignment]
    host: HostConfig | None = None
    taps: list[FrameTap] = field(default_factory=list)
    trace: str | os.PathLike[str] | TraceWriter | None = None
    observers: list[Observer] = field(default_factory=list)
    recorder: HistoryRecorder | None = None
    record_as: str | None = None
    auth: str | None = None
    session: SessionChoice | None = field(default_factory=SessionChoice)
    mode: str | None = None
    model: str | None = None
    config: Sequence[tuple[str, str]] = ()
    prepare: Callable[[RunOptions], object] | None = None
    system_prompt: str | None = None
    system_prompt_mode: SystemPromptMode | None = None
    confine: bool | None = None
    confine_write: Sequence[str] = ()
    protocol: Literal[1, 2, "auto"] = 1
    mcp_tools: bool = False


# The words a boolean config option takes (any case).
_BOOLEAN = {"true": True, "on": True, "1": True, "yes": True}
_BOOLEAN.update({"false": False, "off": False, "0": False, "no": False})


class Run:
    """One open run: the agent, its client, its session; an async context manager.

    ``async with open_run(options) as run:`` opens it (every phase, in
    order) and closes it on the way out, whatever happened.
    :attr:`phase` says where it is; :attr:`failed_in`, where it failed to open.
    """

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.phase: Phase = "spawn"
        self.transport: StdioTransport | None = None
        self._client: AcpClient | None = None
        self._session: Session | None = None
        self.recording: SessionRecording | None = None
        #: The phase the run failed to open in, if it did.
        self.failed_in: Phase | None = None
        self._kill = False
        self._entered = False
        #: The OS sandbox the agent runs in, or None (see :attr:`unconfined`).
        self.confinement: Confinement | None = None
        #: Why the agent runs unconfined (None while it is confined).
        self.unconfined: str | None = None

    def __repr__(self) -> str:
        return f"<Run agent={self.options.agent.name!r} {self.phase}>"

    @property
    def client(self) -> AcpClient:
        """The connected client (from ``initialize`` on).

        Raises:
            RuntimeError: the client is not connected yet.

        """
        if self._client is None:
            raise RuntimeError("the run's client is not connected yet")
        return self._client

    @property
    def session(self) -> Session:
        """The run's session.

        Raises:
            RuntimeError: the run opens no session, or not yet.

        """
        if self._session is None:
            raise RuntimeError("the run has no open session")
        return self._session

    @property
    def pid(self) -> int | None:
        """The agent's process id, once it is spawned."""
        return self.transport.pid if self.transport is not None else None

    def kill(self) -> None:
        """SIGKILL the agent's whole process group now (asked during the spawn: once it is up).

        The run's open or turn then fails with the agent gone, and leaving
        the run reaps it. Once the run is closed it does nothing: the group is
        reaped, and its id may already name another process group.
        """
        if self.phase == "closed":
            return
        self._kill = True
        if self.transport is not None:
            self.transport.kill_now()

    async def __aenter__(self) -> Run:
        if self._entered:
            raise RuntimeError("a Run opens once: call open_run() again for a new one")
        self._entered = True
        try:
            await self._open()
        except BaseException:
            self.failed_in = self.phase
            self._hint_refusal()
            await self._close()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None:
            self._hint_refusal()
        await self._close()

    def _hint_refusal(self) -> None:
        """The run failed: if the agent's stderr shows the sandbox refused a path, say so once."""
        sandbox, transport = self.confinement, self.transport
        if sandbox is None or transport is None:
            return
        path = sandbox.refusal(transport.stderr_tail(40))
        if path is not None:
            _warn_refused(path)

    async def _open(self) -> None:
        options = self.options
        _refuse_unbuilt(options)
        self._confine()
        sandbox = self.confinement
        self.transport = await start_agent(
            options.agent,
            options.cwd,
            close_grace=options.close_grace,
            env=sandbox.env if sandbox is not None else None,
            confine=sandbox.preexec() if sandbox is not None else None,
        )
        if self._kill:  # asked while it started
            self.transport.kill_now()
        self.phase = "prepare"
        if options.prepare is not None:
            options.prepare(options)
        if sandbox is not None:
            self._confine_terminals(sandbox)
        from ..client import AcpClient  # noqa: PLC0415 - after the spawn, on purpose

        self.phase = "initialize"
        self._client = await AcpClient.connect(self.transport, **self._client_options())
        for observer in options.observers:
            self._client.events.subscribe(observer)
        if options.auth is not None:
            self.phase = "authenticate"
            await self._client.authenticate(options.auth)
        if options.session is None:
            self.phase = "open"
            return
        self.phase = "session"
        _check_system_prompt(self._client, options)
        self._session = session = await _open_session(self._client, options.session, options)
        self.phase = "configure"
        await _configure(session, options)
        # A run that failed to set up records nothing; neither does one whose
        # agent was killed meanwhile (a frame tap found a violation in the
        # session's answer): its face reports why, and no turn will follow.
        if options.recorder is not None and not self._kill:
            self.recording = options.recorder.open_session(
                options.record_as or options.agent.name,
                options.agent.argv,
                options.cwd,
                session,
                events=self._client.events,
                sandbox=self.sandbox_record(),
            )
        self.phase = "open"

    def sandbox_record(self) -> dict[str, Any] | None:
        """What a history record or a batch report keeps of the run's sandbox."""
        if self.confinement is not None:
            return self.confinement.record()
        if self.unconfined is not None:
            return {"mechanism": "none", "reason": self.unconfined}
        return None

    def _confine(self) -> None:
        """Build the sandbox the options ask for, or say why the agent runs without one."""
        options = self.options
        # The run's choice wins over the agent's (--sandbox and --no-sandbox set that).
        wanted = options.confine if options.confine is not None else options.agent.sandbox
        if wanted is False:
            self.unconfined = (
                "the OS sandbox is off for this run"
                if options.confine is False
                else 'the OS sandbox is off for this agent (--no-sandbox, or "sandbox": false)'
            )
            logger.info("sandbox: the agent runs unconfined: %s", self.unconfined)
            return
        from ..host import SandboxUnavailable, build_confinement  # noqa: PLC0415

        try:
            self.confinement = build_confinement(
                options.agent, options.cwd, write=options.confine_write
            )
        except SandboxUnavailable as exc:
            self.unconfined = str(exc)
            if wanted:
                raise UsageProblem(f"cannot run the agent in a sandbox: {exc}") from None
            _warn_unconfined(str(exc))
            return
        for line in self.confinement.describe():
            logger.info("sandbox: %s", line)

    def _confine_terminals(self, sandbox: Confinement) -> None:
        """The host's terminals for the agent start in its sandbox (a default host included)."""
        from ..host import HostConfig  # noqa: PLC0415

        options = self.options
        if options.host is None:
            options.host = HostConfig()
        if options.host.terminals is not None:
            options.host.terminals.confine = sandbox

    def _client_options(self) -> ClientOptions:
        from ..rpc import chain_taps  # noqa: PLC0415

        options = self.options
        taps = list(options.taps)
        client: ClientOptions = {
            **options.client,
            "host": options.host,
            "tap": chain_taps(*taps) if taps else None,
        }
        if options.trace is not None:
            client["trace"] = options.trace
        return client

    async def _close(self) -> None:
        """Close the client (or the bare agent), then the recording; the group never survives.

        The recording closes last: what the agent sends after its last answer
        (claude-agent-acp titles the session right after it) is read while the
        client closes, which reads the agent's output to its end.
        """
        recording, self.recording = self.recording, None
        client, transport = self._client, self.transport
        reaped = False
        try:
            try:
                if client is not None:
                    await client.close()
                elif transport is not None:
                    await transport.close()
                reaped = True
            finally:
                if recording is not None:
                    recording.close()
        except BaseException:
            # Cancelled (a second Ctrl-C) while closing: the group ends now.
            if not reaped and transport is not None:
                transport.kill_now()
            raise
        finally:
            self.phase = "closed"
            if self.confinement is not None:
                self.confinement.close()


_warned_unconfined: set[str] = set()


def _warn_unconfined(why: str) -> None:
    """One stderr line per process and reason: the agent runs without the OS sandbox."""
    if why in _warned_unconfined:
        return
    _warned_unconfined.add(why)
    logger.warning(
        "the agent runs unconfined (%s); --no-sandbox silences this, --sandbox insists", why
    )


def _warn_refused(path: str) -> None:
    """One stderr line per process: the sandbox refused the agent a path, and how to allow it."""
    if "refused" in _warned_unconfined:
        return
    _warned_unconfined.add("refused")
    import os  # noqa: PLC0415

    from ..safetext import sanitize_line  # noqa: PLC0415

    # A file (often a temporary one, renamed into place) is allowed by its folder.
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    logger.warning(
        "the OS sandbox refused the agent %s: to allow it, add its folder to the agent's "
        'settings entry ("sandbox": {"write": ["%s"]}), or run with --no-sandbox '
        "(docs/SANDBOX.md)",
        sanitize_line(path),
        sanitize_line(folder),
    )


def open_run(options: RunOptions) -> Run:
    """The run ``options`` describe, to open with ``async with``.

    Args:
        options: the face's choices.

    Returns:
        A :class:`Run`; entering it spawns the agent, connects (``initialize``),
        authenticates (``options.auth``), opens the session (new, loaded,
        resumed), applies the mode, model and config options, and starts the
        session's history record; leaving it closes everything.

    Raises:
        UsageProblem: (on entering) an option that is not supported yet;
            ``confine=True`` where the OS sandbox cannot be had (nothing is
            started); an
            empty system prompt, or one the agent does not advertise (nothing
            is sent after ``initialize``); the
            agent can neither resume nor load a session to reopen; a boolean
            config option given something else than true or false.
        AcpError: (on entering) the agent could not start, or failed a phase.

    """
    return Run(options)


def _refuse_unbuilt(options: RunOptions) -> None:
    """Refuse a malformed system prompt and the options not built yet, before the spawn."""
    prompt, mode = system_prompt_of(options)
    if prompt is not None:
        from ..client import SYSTEM_PROMPT_MODES  # noqa: PLC0415

        if mode not in SYSTEM_PROMPT_MODES:
            raise UsageProblem(f"unknown system prompt mode {mode!r}: use append or override")
        if not prompt.strip():
            raise UsageProblem("the system prompt is empty: give its text, or leave it out")
    if options.protocol != PROTOCOL_VERSION:
        raise UsageProblem(
            f"ACP protocol {options.protocol} is not supported yet: acphost speaks "
            f"version {PROTOCOL_VERSION} only (use protocol 1)"
        )
    if options.mcp_tools:
        raise UsageProblem("offering the host's tools as an MCP server is not built yet")


#: The largest ``--system-prompt @FILE`` read: far above any real prompt.
MAX_SYSTEM_PROMPT_BYTES = 1 << 20


def read_system_prompt(text: str | None) -> str | None:
    """A ``--system-prompt`` value: the text, or for ``@FILE`` the file's.

    The file is read with the package's bounded reader: a regular file of at
    most :data:`MAX_SYSTEM_PROMPT_BYTES`, UTF-8.

    Raises:
        UsageProblem: the file cannot be read, is too large or is not UTF-8.

    """
    if text is None or not text.startswith("@"):
        return text
    from ..config import InputFileError, read_text_input  # noqa: PLC0415

    try:
        return read_text_input(
            text[1:], what="the --system-prompt file", limit=MAX_SYSTEM_PROMPT_BYTES
        )
    except InputFileError as exc:
        raise UsageProblem(str(exc)) from None


def system_prompt_of(options: RunOptions) -> tuple[str | None, SystemPromptMode]:
    """The run's system prompt and mode: the options', else the agent's settings entry's.

    The mode is checked before the spawn (a settings entry's is checked when
    the file is read).
    """
    prompt = options.system_prompt
    if prompt is None:
        prompt = options.agent.system_prompt
    mode = options.system_prompt_mode or options.agent.system_prompt_mode or "append"
    return prompt, cast("SystemPromptMode", mode)


def _check_system_prompt(client: AcpClient, options: RunOptions) -> None:
    """Refuse a system prompt the agent cannot take, before any session request.

    The schema (``SystemPrompt``): a client MUST only send one when the agent
    advertises ``sessionCapabilities.systemPrompt``, and ``override`` only with
    its ``mode.override``.
    """
    prompt, mode = system_prompt_of(options)
    if prompt is None:
        return
    from ..client import describe_system_prompt_support  # noqa: PLC0415

    modes = client.system_prompt_modes
    if mode not in modes:
        what = "a system prompt" if not modes else f"a system prompt in {mode} mode"
        raise UsageProblem(
            f"agent {options.agent.name!r} cannot take {what}: it supports "
            f"{describe_system_prompt_support(modes)}"
        )


async def _open_session(client: AcpClient, choice: SessionChoice, options: RunOptions) -> Session:
    cwd, mcp = options.cwd, list(choice.mcp_servers)
    prompt, mode = system_prompt_of(options)
    how, sid = choice.how, choice.session_id
    if how == "new":
        return await client.new_session(
            cwd, mcp_servers=mcp, system_prompt=prompt, system_prompt_mode=mode
        )
    if sid is None:
        raise UsageProblem(f"no session id to {how}")
    if how == "reopen":
        caps = client.agent_capabilities
        session_caps = caps.session_capabilities
        if session_caps is not None and session_caps.resume is not None:
            how = "resume"
        elif caps.load_session:
            how = "load"
        else:
            raise UsageProblem(
                "the agent can neither resume nor load sessions (it offers neither "
                "sessionCapabilities.resume nor loadSession)" + choice.cannot_reopen
            )
    opener: Callable[..., Awaitable[Session]] = (
        client.resume_session if how == "resume" else client.load_session
    )
    return await opener(sid, cwd, mcp_servers=mcp, system_prompt=prompt, system_prompt_mode=mode)


async def _configure(session: Session, options: RunOptions) -> None:
    """Apply the mode, the model and each config option, in that order."""
    if options.mode:
        await session.set_mode(options.mode)
    if options.model:
        await session.set_model(options.model)
    if not options.config:
        return
    from .. import schema as s  # noqa: PLC0415

    for key, raw in options.config:
        option = session._find_option(key)
        value: str | bool = raw
        if isinstance(option, s.SessionConfigBoolean):
            if raw.lower() not in _BOOLEAN:
                raise UsageProblem(f"--config {key}: a boolean option takes true or false")
            value = _BOOLEAN[raw.lower()]
        await session.set_config_option(key, value)
