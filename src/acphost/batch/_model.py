"""What a batch is made of: runs (pure descriptions that can travel) and their outcomes.

A :class:`Run` says everything a machine needs to carry one run out: the
agent to start, the prompt, where its workspace comes from and the limits.
It holds no open file, process or loop, so it pickles (the Ray executor sends
it to another machine). A :class:`RunOutcome` is what came back; its JSON
form is one entry of ``report.json``'s ``runs`` (the contract ``docs/BATCH.md``
documents for scripts).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config import parse_protocol
from ..history import protocol_record, sandbox_record

if TYPE_CHECKING:
    from ..client import Budget, HostConfig
    from ..config import AgentSpec, ProtocolChoice
    from ..redact import Redactor

__all__ = [
    "STATUSES",
    "ChangedFile",
    "HostFactory",
    "Limits",
    "OutcomeError",
    "Run",
    "RunError",
    "RunOutcome",
    "WorkspaceSource",
    "redactor_for",
]

#: Every status a run can end with.
STATUSES = ("ok", "error", "timeout", "cancelled", "budget")

#: Builds a run's host configuration (files, terminals, permissions) for its agent.
#: Called once per run, where the run executes: with the Ray executor it is
#: pickled, so it must be a module-level function (or a ``functools.partial``
#: of one) and everything it refers to must exist on the workers.
HostFactory = Callable[["AgentSpec"], "HostConfig"]


def redactor_for(
    agents: Iterable[AgentSpec], mcp_servers: Iterable[Mapping[str, Any]] = ()
) -> Redactor:
    """The redactor of what a batch stores, built as the command line builds its own.

    :meth:`Redactor.from_config` over every agent of the batch and the MCP
    servers its sessions get (what ``settings.json`` configured): their
    environment values, secret arguments, headers, and the host's own
    credential-named variables, which the agents inherit. So a batch's
    traces, patches, outcomes and reports hide what ``acphost --trace`` hides.
    """
    from ..redact import Redactor  # noqa: PLC0415 - loads the redaction patterns

    return Redactor.from_config(agents=agents, mcp_servers=mcp_servers)


class OutcomeError(ValueError):
    """A stored run outcome is not in the documented shape (the message says where)."""


@dataclass(frozen=True, slots=True)
class WorkspaceSource:
    """The directory every run of a prompt starts from.

    Attributes:
        path: the absolute directory (the session's cwd is the same place
            in each run's own copy).
        git_root: the top of the git work tree ``path`` is in, if any.
        commit: the commit runs start from (``HEAD`` when the batch was
            planned); None when ``path`` is not in a git repository.
        subdir: ``path`` relative to ``git_root`` (``""`` at the top).

    """

    path: str
    git_root: str | None = None
    commit: str | None = None
    subdir: str = ""

    @property
    def is_git(self) -> bool:
        """True when runs start from a git commit (a worktree each)."""
        return self.commit is not None

    def describe(self) -> str:
        """One line for reports: the path, and the commit when there is one."""
        return f"{self.path} @ {self.commit[:12]}" if self.commit else self.path


@dataclass(frozen=True, slots=True)
class Limits:
    """What one run may take.

    Attributes:
        timeout: seconds from the agent's start to the end of the turn
            (None: no limit); past it the turn is cancelled (status ``timeout``).
        budget: tokens or cost per run, enforced on what the agent reports
            (status ``budget`` when crossed).
        init_timeout: seconds for ``initialize`` and ``session/new``.
        cancel_grace: seconds the agent gets to end a cancelled turn before
            its process group is killed.

    """

    timeout: float | None = None
    budget: Budget | None = None
    init_timeout: float = 60.0
    cancel_grace: float = 5.0


@dataclass(frozen=True, slots=True)
class Run:
    """One agent, one prompt, one repetition: a pure description.

    Attributes:
        id: unique in its plan, safe as a file name; names its results.
        agent: the agent to start (command, arguments, environment).
        prompt_id: the prompt's id (from a JSONL prompts file, else ``p1``...).
        prompt: the prompt text (``@path`` mentions become resource links,
            as on the command line).
        repeat: which repetition (0-based).
        workspace: where the run's workspace comes from.
        limits: timeout, budget, grace periods.
        host: builds the run's host configuration; None: the library's
            default (reads inside the workspace, terminals, reads allowed).
        mcp_servers: MCP servers for ``session/new`` (wire form).
        system_prompt: the session's system prompt (None: the agent's
            settings entry's, if any); an agent that cannot take it fails
            the run with the reason.
        system_prompt_mode: ``append`` or ``override`` (None: the agent's
            settings entry's, else ``append``).
        subagents: advertise ``clientCapabilities.subagents`` (the agent may
            then run subagents as child sessions, which the outcome lists);
            False: the agent shows them as tool calls, if at all.

    """

    id: str
    agent: AgentSpec
    prompt_id: str
    prompt: str
    repeat: int
    workspace: WorkspaceSource
    limits: Limits = field(default_factory=Limits)
    host: HostFactory | None = None
    mcp_servers: tuple[Mapping[str, Any], ...] = ()
    system_prompt: str | None = None
    system_prompt_mode: str | None = None
    subagents: bool = True

    @property
    def fingerprint(self) -> str:
        """What must match for an earlier outcome of this id to count on resume.

        The agent's command line, the prompt, the system prompt, the
        protocol asked for and the starting point: change any of them and
        the run is carried out again.
        """
        ws = self.workspace
        data: list[Any] = [self.agent.argv, self.prompt, self.repeat, ws.path, ws.commit]
        system = self.system_prompt if self.system_prompt is not None else self.agent.system_prompt
        if system is not None:  # absent, the fingerprints of earlier results still match
            mode = self.system_prompt_mode or self.agent.system_prompt_mode or "append"
            data.append([system, mode])
        if not self.subagents:  # the default leaves the fingerprints of earlier results
            data.append("no-subagents")
        # Likewise protocol 1 without MCP tools, the default, adds nothing.
        if self.agent.protocol not in (None, 1):
            data.append(f"protocol-{self.agent.protocol}")
        if self.agent.mcp_tools:
            data.append("mcp-tools")
        return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """One file a run changed in its workspace.

    Attributes:
        path: relative to the workspace root, ``/``-separated.
        change: ``added``, ``modified`` or ``deleted``.

    """

    path: str
    change: str


@dataclass(frozen=True, slots=True)
class RunError:
    """Why a run did not end well.

    Attributes:
        message: one paragraph, secrets redacted.
        stderr_tail: the agent's last stderr lines, secrets redacted.

    """

    message: str
    stderr_tail: str = ""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How one run ended: an entry of ``report.json``'s ``runs``.

    Attributes:
        id: the run's id.
        agent: the agent's name.
        prompt_id: the prompt's id.
        prompt: the prompt text.
        repeat: the repetition (0-based).
        status: one of :data:`STATUSES`.
        stop_reason: the agent's ``stopReason``, when the turn ended.
        started_at: ISO 8601 UTC time the run started.
        duration_s: seconds from the start of the run to its end.
        final_text: the agent's message text of the turn (redacted).
        usage: what the agent reported (tokens, context, cost), or None.
        changed_files: the files the run changed.
        diff: the patch against the starting point, relative to the output
            directory; None when nothing changed.
        trace: the redacted JSONL trace, relative to the output directory.
        error: why it failed, for ``error`` (and ``timeout`` with details).
        history_id: the session's id in the local history, when recorded.
        workspace: the kept workspace (``--keep-workspaces``), else None.
        node: where it ran (``local``, or the Ray node's address).
        fingerprint: :attr:`Run.fingerprint` of the run it came from.
        subagents: the child sessions the agent ran for subagents, in the
            order it announced them: ``{"id", "label", "activity",
            "stop_reason", "text"}`` each (``text``: its message text,
            redacted and bounded; ``activity`` as the run ended, e.g.
            ``idle``, or ``running`` when the run ended first).
        sandbox: the OS sandbox the run's agent ran in (``{"mechanism",
            "abi", "write", "deny"}``, or ``{"mechanism": "none", "reason"}``);
            None when the run did not get as far as starting it.
        protocol: the ACP protocol version the run's agent agreed on (1 or
            2); None when the run did not get as far as ``initialize``.
        protocol_asked: what the run asked for (1, 2 or ``auto``); None in
            results written before it was recorded.

    """

    id: str
    agent: str
    prompt_id: str
    prompt: str
    repeat: int
    status: str
    stop_reason: str | None = None
    started_at: str = ""
    duration_s: float = 0.0
    final_text: str = ""
    usage: dict[str, Any] | None = None
    changed_files: tuple[ChangedFile, ...] = ()
    diff: str | None = None
    trace: str | None = None
    error: RunError | None = None
    history_id: str | None = None
    workspace: str | None = None
    node: str = "local"
    fingerprint: str = ""
    subagents: tuple[dict[str, Any], ...] = ()
    sandbox: dict[str, Any] | None = None
    protocol: int | None = None
    protocol_asked: ProtocolChoice | None = None

    @property
    def succeeded(self) -> bool:
        """The turn ended on its own: status ``ok`` and stop reason ``end_turn``."""
        return self.status == "ok" and self.stop_reason == "end_turn"

    @property
    def finished(self) -> bool:
        """True unless the run was cancelled (a cancelled run is run again on resume)."""
        return self.status != "cancelled"

    def to_json(self) -> dict[str, Any]:
        """The JSON object ``report.json`` and ``runs/<id>/result.json`` hold."""
        return {
            "id": self.id,
            "agent": self.agent,
            "prompt_id": self.prompt_id,
            "prompt": self.prompt,
            "repeat": self.repeat,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "started_at": self.started_at,
            "duration_s": round(self.duration_s, 3),
            "final_text": self.final_text,
            "usage": self.usage,
            "changed_files": [{"path": c.path, "change": c.change} for c in self.changed_files],
            "diff": self.diff,
            "trace": self.trace,
            "error": None
            if self.error is None
            else {"message": self.error.message, "stderr_tail": self.error.stderr_tail},
            "history_id": self.history_id,
            "workspace": self.workspace,
            "node": self.node,
            "fingerprint": self.fingerprint,
            "subagents": [dict(child) for child in self.subagents],
            "sandbox": self.sandbox,
            "protocol": self.protocol,
            "protocol_asked": self.protocol_asked,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "run") -> RunOutcome:
        """Read an outcome back, checking every field.

        Raises:
            OutcomeError: a field is missing or of the wrong type.

        """
        f = _Fields(data, where)
        status = f.get("status", str)
        if status not in STATUSES:
            raise OutcomeError(f"{where}.status: {status!r} is not one of {', '.join(STATUSES)}")
        changed = []
        for i, item in enumerate(f.get("changed_files", list, [])):
            g = _Fields(item, f"{where}.changed_files[{i}]")
            changed.append(ChangedFile(g.get("path", str), g.get("change", str)))
        error = None
        raw_error = f.get("error", dict, None)
        if raw_error is not None:
            g = _Fields(raw_error, f"{where}.error")
            error = RunError(g.get("message", str), g.get("stderr_tail", str, ""))
        return cls(
            id=f.get("id", str),
            agent=f.get("agent", str),
            prompt_id=f.get("prompt_id", str),
            prompt=f.get("prompt", str),
            repeat=f.get("repeat", int),
            status=status,
            stop_reason=f.get("stop_reason", str, None),
            started_at=f.get("started_at", str, ""),
            duration_s=float(f.get("duration_s", (int, float), 0.0)),
            final_text=f.get("final_text", str, ""),
            usage=f.get("usage", dict, None),
            changed_files=tuple(changed),
            diff=f.get("diff", str, None),
            trace=f.get("trace", str, None),
            error=error,
            history_id=f.get("history_id", str, None),
            workspace=f.get("workspace", str, None),
            node=f.get("node", str, "local"),
            fingerprint=f.get("fingerprint", str, ""),
            subagents=tuple(
                _subagent(item, f"{where}.subagents[{i}]")
                for i, item in enumerate(f.get("subagents", list, []))
            ),
            sandbox=sandbox_record(f.get("sandbox", dict, None)),
            protocol=protocol_record(f.data.get("protocol")),
            protocol_asked=_asked(f.data.get("protocol_asked")),
        )


def _asked(value: Any) -> ProtocolChoice | None:
    """A result's ``protocol_asked``: 1, 2 or ``auto``; anything else is "not said"."""
    try:
        return parse_protocol(value) if isinstance(value, (int, str)) else None
    except ValueError:
        return None


def _subagent(data: Any, where: str) -> dict[str, Any]:
    """One entry of an outcome's ``subagents``, checked (see :attr:`RunOutcome.subagents`)."""
    g = _Fields(data, where)
    return {
        "id": g.get("id", str),
        "label": g.get("label", str, ""),
        "activity": g.get("activity", str, None),
        "stop_reason": g.get("stop_reason", str, None),
        "text": g.get("text", str, ""),
    }


_REQUIRED = object()


class _Fields:
    """Typed access to one JSON object; messages name the field's path."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise OutcomeError(f"{where}: expected an object, got {type(data).__name__}")
        self.data = data
        self.where = where

    def get(self, key: str, types: type | tuple[type, ...], default: Any = _REQUIRED) -> Any:
        value = self.data.get(key)
        if value is None:
            if default is _REQUIRED:
                raise OutcomeError(f"{self.where}.{key}: missing")
            return default
        wanted = types if isinstance(types, tuple) else (types,)
        if (isinstance(value, bool) and bool not in wanted) or not isinstance(value, wanted):
            raise OutcomeError(
                f"{self.where}.{key}: expected {wanted[0].__name__}, got {type(value).__name__}"
            )
        return value
