"""Going on with an earlier session: ``--continue``, ``--resume``, ``--replay-context``.

- ``--continue`` takes the newest session of this agent in this directory
  that this machine recorded: never one imported (``history import``), whose
  agent, directory, dates and agent session id are whatever its file said.
- ``--resume X`` takes a file written by ``--save-session``, a history id
  (or a prefix of one, as git abbreviates), or the agent's own session id.
- The session is reopened with ``session/resume`` when the agent offers it
  (nothing is replayed), else ``session/load`` (ACP "Session Setup"). An agent
  that can do neither is a usage error that names the way out:
- ``--replay-context`` starts a new session instead and gives its first
  prompt the transcript of the earlier session's whole conversation (every
  run that went on with it) from the history: as an embedded
  ``resource`` block when the agent accepts embedded context
  (``promptCapabilities.embeddedContext``), else as a text block with a
  clear header (every agent accepts text, schema ``PromptCapabilities``).

What can be checked without the agent (the history, the saved file) is
checked before it starts, so a typo never starts one. The run's session joins
the conversation of the one it goes on with (``Reopen.history_id``, given to
``HistoryRecorder.join``): ``acphost history`` shows the chain as one.

"This agent" is the name it was picked by (``-a``), or for
``--agent-command`` the whole command line (secrets redacted): every
program started with ``python ...`` is not the same agent.
"""

from __future__ import annotations

import argparse
import os
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..launch import UsageProblem
from ._edge import warn

if TYPE_CHECKING:
    from .. import schema as s
    from ..client import AcpClient
    from ..config import AgentSpec
    from ..history import HistoryStore
    from ._outputs import RunOutputs

__all__ = ["Reopen", "agent_key", "context_blocks", "find_target"]


def agent_key(spec: AgentSpec, outputs: RunOutputs) -> str:
    """The agent's name in the history: its ``-a`` name, or its command line.

    Args:
        spec: the agent.
        outputs: the run's outputs, whose redactor cleans a command line
            (built only then: it may hold a secret).

    Returns:
        What the history records as the agent, and what ``--continue`` looks for.

    """
    if spec.source != "--agent-command":
        return spec.name
    return shlex.join(outputs.redactor.redact_argv(spec.argv))


def _pick(agent: str) -> str:
    """How to pick the agent a history session ran."""
    return f"--agent-command {shlex.quote(agent)}" if " " in agent else f"-a {agent}"


@dataclass(frozen=True, slots=True)
class Reopen:
    """The earlier session a run goes on with.

    Attributes:
        session_id: the agent's session id.
        history_id: its record in the history, when known.
        transcript: with ``--replay-context``: the transcript to give a new session.
        flag: how the user named it, for messages (``--continue``, ``--resume X``).
        imported: the history record came from ``history import``, not from a
            run on this machine (the replayed context says so).
        protocol: the ACP protocol version the session was spoken in, as
            recorded (history or saved file); None when nothing says. A
            reopened session is asked for it unless ``--protocol`` says otherwise.

    """

    session_id: str
    history_id: str | None
    transcript: str | None
    flag: str
    imported: bool = False
    protocol: int | None = None


def _open_store(path: str, flag: str) -> HistoryStore | None:
    """The history store for reading, or None when there is none yet."""
    from ..history import HistoryError, HistoryStore  # noqa: PLC0415

    if not os.path.lexists(path):  # a link, even dangling, is refused by open
        return None
    try:
        return HistoryStore.open(path)
    except HistoryError as exc:
        raise UsageProblem(f"{flag}: {exc}") from None


def _transcript(store: HistoryStore, history_id: str) -> str:
    """The transcript of the whole conversation the session belongs to (every run of it)."""
    from ..history import conversation_text  # noqa: PLC0415

    return conversation_text(store.get_conversation(store.conversation_of(history_id)))


def _continue(agent: str, cwd: str, path: str, replay: bool) -> Reopen:
    from ..history import HistoryError  # noqa: PLC0415

    flag = "--continue"
    store = _open_store(path, flag)
    none = f"{flag}: the history has no session of agent {agent!r} in {cwd}"
    if store is None:
        raise UsageProblem(none)
    try:
        latest = store.latest_session(agent, cwd)
        if latest is None or latest.agent_session_id is None:
            raise UsageProblem(f"{none} (see: acphost history)")
        transcript = _transcript(store, latest.id) if replay else None
        protocol = store.get(latest.id).protocol
    except HistoryError as exc:
        raise UsageProblem(f"{flag}: {exc}") from None
    finally:
        store.close()
    return Reopen(latest.agent_session_id, latest.id, transcript, flag, protocol=protocol)


def _saved_file(value: str) -> tuple[str, str | None, int | None]:
    """The session id (and history id, protocol version) a ``--save-session`` file holds."""
    from ..config import InputFileError, loads_strict, read_input  # noqa: PLC0415

    try:
        # A saved session is a few hundred bytes: the bounded, strict reader of
        # every file a user names (not a FIFO, device or huge file; plain JSON).
        data = loads_strict(read_input(value, what="the --resume file", limit=1 << 20), where=value)
        sid = data["sessionId"]
    except InputFileError as exc:
        raise UsageProblem(f"--resume {value}: {exc}") from None
    except (KeyError, TypeError) as exc:
        raise UsageProblem(f"--resume {value}: not a saved session file ({exc})") from None
    if not isinstance(sid, str):
        raise UsageProblem(f"--resume {value}: sessionId is not a string")
    from ..history import protocol_record  # noqa: PLC0415

    history_id = data.get("historyId")
    # The file is data: a version that is no whole number 1..65535 says nothing.
    protocol = protocol_record(data.get("protocol"))
    return sid, history_id if isinstance(history_id, str) else None, protocol


def _resume(value: str, agent: str, cwd: str, path: str, replay: bool) -> Reopen:
    from ..history import HistoryError, HistoryIdError  # noqa: PLC0415

    flag = f"--resume {value}"
    sid: str | None = None
    history_id: str | None = None
    protocol: int | None = None
    if os.path.isfile(value):
        sid, history_id, protocol = _saved_file(value)
    store = _open_store(path, flag) if replay or sid is None else None
    transcript = None
    imported = False
    if store is not None:
        try:
            if history_id is None:
                history_id = store.resolve_id(sid or value)
            record = store.get(history_id)
            if record.agent != agent:
                raise UsageProblem(
                    f"{flag}: that session in the history ran the agent {record.agent!r}, "
                    f"not {agent!r}: run with {_pick(record.agent)}"
                )
            if not replay and record.cwd != cwd:
                raise UsageProblem(
                    f"{flag}: that session ran in {record.cwd}; run from there or pass "
                    f"--cwd {record.cwd}"
                )
            sid = sid or record.agent_session_id
            imported = record.origin == "imported"
            protocol = protocol or record.protocol
            transcript = _transcript(store, history_id) if replay else None
        except HistoryIdError as exc:
            if exc.candidates:  # ambiguous: say which, do not guess
                raise UsageProblem(f"--resume: {exc}") from None
            history_id = None  # not in the history: the agent's own session id
        except HistoryError as exc:
            if replay:
                raise UsageProblem(f"{flag}: {exc}") from None
            warn(f"warning: {exc}; taking {value!r} as the agent's session id")
        finally:
            store.close()
    if replay and transcript is None:
        raise UsageProblem(
            f"--replay-context: {value!r} is not a session in acphost's history, "
            "so there is no transcript to give the agent (see: acphost history)"
        )
    return Reopen(sid or value, history_id, transcript, flag, imported, protocol)


def find_target(args: argparse.Namespace, agent: str, cwd: str, history_path: str) -> Reopen | None:
    """The session the command line asks to go on with, or None for a new one.

    Args:
        args: ``continue_``, ``resume`` and ``replay_context``.
        agent: the agent's name in the history (:func:`agent_key`); a
            history session must have run it.
        cwd: the workspace.
        history_path: the history store (read even with ``--no-history``).

    Raises:
        UsageProblem: nothing to continue, an ambiguous or foreign id, an
            unreadable saved file, ``--replay-context`` without a transcript.

    """
    replay = bool(args.replay_context)
    if args.continue_:
        return _continue(agent, cwd, history_path, replay)
    if args.resume:
        return _resume(args.resume, agent, cwd, history_path, replay)
    if replay:
        raise UsageProblem("--replay-context goes with --continue or --resume ID")
    return None


_INTRO = (
    "This conversation goes on from an earlier session with you, recorded by acphost "
    "(history {id}). Its transcript {where}; the new request follows it."
)
# An imported record says what its file said: not a session this machine had with
# this agent, so it is not presented as one.
_INTRO_IMPORTED = (
    "This conversation goes on from a session imported into acphost's history from a "
    "file (history {id}); it may not have been with you. Its transcript {where}; "
    "the new request follows it."
)


def context_blocks(client: AcpClient, target: Reopen) -> list[s.ContentBlock]:
    """The blocks that give a new session the earlier transcript (before the prompt).

    An embedded ``resource`` when the agent accepts embedded context, else
    one text block holding the transcript between clear markers.

    Args:
        client: the connected client (its prompt capabilities decide).
        target: the earlier session, with its transcript.

    Returns:
        The blocks to put in front of the user's prompt.

    """
    from .. import schema as s  # noqa: PLC0415
    from ..content import text  # noqa: PLC0415

    transcript = target.transcript or ""
    hid = (target.history_id or target.session_id)[:12]
    intro = _INTRO_IMPORTED if target.imported else _INTRO
    prompt_caps = client.agent_capabilities.prompt_capabilities
    if prompt_caps is not None and prompt_caps.embedded_context:
        resource = s.TextResourceContents(
            uri=f"acphost://history/{target.history_id or target.session_id}",
            text=transcript,
            mime_type="text/plain",
        )
        return [
            text(intro.format(id=hid, where="is the attached resource")),
            s.EmbeddedResourceContentBlock(resource=resource),
        ]
    body = transcript if transcript.endswith("\n") else transcript + "\n"
    return [
        text(
            intro.format(id=hid, where="is between the markers below")
            + f"\n\n--- transcript of the earlier session ---\n{body}"
            "--- end of the transcript ---"
        )
    ]
