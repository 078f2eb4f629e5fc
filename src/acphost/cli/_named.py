"""``acphost -s NAME PROMPT``: a prompt for a named session; ``acphost status``, ``cancel``.

The run connects to the name's host (:mod:`acphost.launch._named`), starting
one when none is alive (:mod:`acphost.cli._named_host`), sends its prompt and
streams its own turn: the host sends the turn's session updates (their wire
form) and the run keeps its own session state fed with them, so the same
renderers show it as any run (``-o text``, ``simple``); with ``-o jsonl`` or
``json`` the host sends the turn's frames as they crossed the wire. The end
carries the usage line, the warnings and the exit code the command line
gives any turn.

A prompt to a busy session waits its turn (``--no-queue``: exit 4 at once).
Ctrl-C while waiting takes the prompt out of the queue (exit 130); during
the turn, it cancels the turn (the run exits 130 when the agent has ended
it; a second Ctrl-C leaves at once). If the host dies, a run still waiting
starts (or finds) the next one and keeps its place; the run whose turn was
running says the host died (exit 1).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from ..launch import (
    EXIT_BUSY,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    UsageProblem,
    fail,
)
from ._edge import warn
from ._named_start import HostFailed, start_host
from ._parser import usage_error
from ._run import PromptRun

if TYPE_CHECKING:
    from ..client import SessionState
    from ..launch import NamedPlace
    from ._prepare import Prepared
    from ._render import Renderer

__all__ = [
    "check_named_flags",
    "host_config",
    "run_named",
    "run_named_main",
    "send_request",
    "session_options",
]

#: Options of a prompt run that are the run's own; every other option is the
#: session's (its host's), and a run must share them to use a live host.
_RUN_ONLY = frozenset(
    {
        "prompt",
        "output",
        "verbose",
        "session",
        "keep_alive",
        "no_queue",
        "max_tokens",
        "max_cost",
        "subagent_timeout",
        "init_timeout",
        "commands_timeout",
        "list_caps",
        "list_modes",
        "list_commands",
        "continue_",
        "resume",
        "replay_context",
        "save_session",
        "trace",
        "ask",
    }
)
#: Options the name's place stands for (its agent and workspace).
_PLACE = ("agent", "agent_command", "cwd")
#: Options naming a file: made absolute, so the host (and a comparison) read the same one.
_PATHS = ("settings", "permission_policy", "audit_log", "cwd")
#: The flags a named run refuses, and why.
_REFUSED = (
    ("continue_", "--continue", "a named session continues itself"),
    ("resume", "--resume", "a named session continues itself"),
    ("replay_context", "--replay-context", "a named session continues itself"),
    ("ask", "--ask", "its host decides permissions by the policy flags (no terminal reaches it)"),
    ("trace", "--trace", "its host records the frames of every turn; use -o jsonl"),
    ("save_session", "--save-session", "the name is the handle to the session"),
    ("list_caps", "--list-caps", "it runs prompts only"),
    ("list_modes", "--list-modes", "it runs prompts only"),
    ("list_commands", "--list-commands", "it runs prompts only"),
)
_LABEL = 60
_RETRY = -1
#: How many hosts a waiting prompt follows when they stop before its turn.
_MAX_RETRIES = 5


def check_named_flags(args: argparse.Namespace) -> None:
    """Refuse the flags a named run cannot honour.

    Raises:
        UsageProblem: naming the flag and why.

    """
    from ..launch import check_session_name  # noqa: PLC0415

    check_session_name(args.session)
    for dest, flag, why in _REFUSED:
        if getattr(args, dest, None):
            raise UsageProblem(f"{flag} cannot be used with --session: {why}")


def session_options(args: argparse.Namespace) -> dict[str, Any]:
    """The session's options as this run has them (paths absolute): all but the run's own."""
    out: dict[str, Any] = {}
    for key, value in sorted(vars(args).items()):
        if key in _RUN_ONLY:
            continue
        if key in _PATHS and isinstance(value, str) and value:
            out[key] = os.path.abspath(os.path.expanduser(value))
        else:
            out[key] = list(value) if isinstance(value, tuple) else value
    return out


def _fingerprint(args: argparse.Namespace, history: str | None = None) -> dict[str, Any]:
    """What a run must share with a live host: its session options, less who and where.

    The agent and the workspace are the name's place already (its agent key,
    the digest of its command, and real path): ``-a demo`` and the default
    agent that is the demo, ``--cwd .`` and no ``--cwd``, are the same
    session. The environment that changes what the host does is part of it,
    as resolved: the history it records into (``--no-history``,
    ``ACPHOST_NO_HISTORY``, ``ACPHOST_HISTORY``) and the settings files it
    reads (``ACPHOST_SETTINGS``, the user's settings file).
    """
    from ..config import user_settings_path  # noqa: PLC0415

    options = session_options(args)
    for key in _PLACE:
        options.pop(key, None)
    explicit = os.environ.get("ACPHOST_SETTINGS")
    options["history_file"] = history
    options["settings_files"] = [
        os.path.abspath(os.path.expanduser(explicit)) if explicit else None,
        str(user_settings_path()),
    ]
    return options


def command_digest(spec: Any) -> str | None:
    """A digest of an ``--agent-command`` agent's unredacted command (None for a named agent).

    The history's agent key redacts the command line: two commands that
    differ only in a secret must still be two sessions. Only the digest is
    kept (``name.json``), never the command.
    """
    if spec.source != "--agent-command":
        return None
    whole = json.dumps([list(spec.argv), sorted(spec.env.items())])
    return hashlib.sha256(whole.encode()).hexdigest()


def _label(prompt: str, redact: Any) -> str:
    """What ``status`` shows of a prompt: its first line, redacted, shortened."""
    first = redact(prompt.strip()).splitlines()[0] if prompt.strip() else ""
    return first if len(first) <= _LABEL else first[: _LABEL - 1] + "…"


class _State:
    """What the run renders from: a session state fed with the host's updates."""

    def __init__(self) -> None:
        from ..client import SessionState  # noqa: PLC0415

        self.state: SessionState = SessionState(keep_history=False)


class _Child:
    """A subagent as the renderers see it: its id, its label, its own session state."""

    def __init__(self, child_id: str, label: str) -> None:
        from ..client import SessionState  # noqa: PLC0415

        self.id = child_id
        self.label = label
        self.state: SessionState = SessionState(keep_history=False)


class NamedRun(PromptRun):
    """One ``acphost -s NAME PROMPT``: the run's side of the named session."""

    def __init__(self, prepared: Prepared) -> None:
        super().__init__(prepared)
        self.started = False
        self.ticket: int | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.view: Renderer | None = None
        self.shown = _State()
        self.children: dict[str, _Child] = {}
        self.stop = asyncio.Event()

    async def main(self, prompt: str | None) -> int:
        """Send the prompt to the name's host and show its turn; the exit code."""
        from ..launch import NamedUnavailable, connect_named, place_of  # noqa: PLC0415
        from ._continue import agent_key  # noqa: PLC0415
        from ._prepare import prompt_blocks  # noqa: PLC0415

        assert prompt is not None
        args = self.args
        place = place_of(
            agent_key(self.spec, self.outputs),
            self.cwd,
            args.session,
            command=command_digest(self.spec),
        )
        fingerprint = _fingerprint(args, self.outputs.history_path)
        blocks, missing = prompt_blocks(prompt, self.cwd)
        for name in missing:
            warn(f"@{name}: no such file; it is not attached")
        request = {
            "op": "prompt",
            "prompt": [b.to_wire() for b in blocks],
            "frames": self.jsonl,
            "queue": not args.no_queue,
            "options": fingerprint,
            "label": _label(prompt, self.outputs.redactor.redact_text),
            "keep_alive": args.keep_alive,
            "limits": {"max_tokens": args.max_tokens, "max_cost": args.max_cost},
            "subagent_timeout": args.subagent_timeout,
        }
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self.on_sigint)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, self.on_stop, sig)

        async def start(fd: int) -> None:
            await start_host(place, fd, host_config(place, args, fingerprint))

        retries = 0
        try:
            while True:
                try:
                    reader, writer = await connect_named(place, start, timeout=args.init_timeout)
                except NamedUnavailable as exc:
                    if exc.report is not None:
                        return _report(exc.report, place)
                    fail(str(exc))
                    return EXIT_ERROR
                except HostFailed as exc:
                    for line in exc.text.splitlines() or ["the session host failed to start"]:
                        fail(line)
                    return exc.code
                self.writer = writer
                send_request(
                    writer, {**request, "ticket": self.ticket, "token": place.read_token()}
                )
                try:
                    code = await self.converse(reader)
                finally:
                    writer.close()
                if code != _RETRY:
                    return code
                failed = _start_failure(place)
                if failed is not None:  # the host could not start the agent: say why, once
                    return failed
                retries += 1
                if retries > _MAX_RETRIES:
                    fail(
                        f"the host of session {args.session} stopped {retries} times before "
                        f"this prompt's turn began (see {place.log})"
                    )
                    return EXIT_ERROR
        finally:
            if self.view is not None:
                self.view.close()
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(sig)

    def on_sigint(self) -> None:
        """Ctrl-C: a waiting prompt leaves the queue; a running turn is cancelled."""
        self.interrupted += 1
        if self.interrupted == 1 and self.started and self.writer is not None:
            (self.view.note if self.view is not None else warn)(
                "cancelling (Ctrl-C again to leave at once)"
            )
            send_request(self.writer, {"op": "cancel"})
            return
        self.stop.set()  # closing our end cancels on the host's side

    def output_gone(self) -> None:
        """The reader of stdout went away (or it cannot be written): leave now."""
        self.output_closed = True
        self.stop.set()

    def on_stop(self, sig: signal.Signals) -> None:
        """SIGTERM, SIGHUP: leave at once (the host cancels our turn or prompt)."""
        self.stop_signal = int(sig)
        self.interrupted += 1
        self.stop.set()

    async def converse(self, reader: asyncio.StreamReader) -> int:
        """Read the host's messages until this run's turn ends; the exit code (or retry)."""
        from ..launch import receive_message as receive  # noqa: PLC0415

        stopping = asyncio.ensure_future(self.stop.wait())
        try:
            while True:
                incoming = asyncio.ensure_future(receive(reader))
                await asyncio.wait({incoming, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stopping.done():
                    incoming.cancel()
                    if self.output_closed and not self.interrupted:
                        if self.output_error is not None:
                            fail(f"cannot write the output: {self.output_error}")
                        return EXIT_ERROR
                    return self.interrupted_code()
                message = incoming.result()
                if message is None or message.get("t") == "gone":
                    if not self.started:
                        return _RETRY  # the host stopped or died: the next one takes over
                    self.close_view()
                    fail(
                        "the session host stopped during this turn (it was killed or crashed); "
                        "the turn's end is unknown; the next run continues the session"
                    )
                    return EXIT_ERROR
                code = self.handle(message)
                if code is not None:
                    return code
        finally:
            stopping.cancel()

    def handle(self, message: dict[str, Any]) -> int | None:
        """One message from the host; the exit code once the run is over."""
        kind = message.get("t")
        if kind == "u":
            self.show(message.get("updates"))
        elif kind == "c":
            self.show_child(message)
        elif kind == "f":
            line = message.get("line")
            if isinstance(line, str):
                self.tap(str(message.get("direction")), line.encode())
        elif kind == "queued":
            ticket = message.get("ticket")
            self.ticket = ticket if isinstance(ticket, int) else None
            ahead = message.get("ahead")
            if isinstance(ahead, int) and ahead > 0 and sys.stderr.isatty():
                warn(f"session {self.args.session}: queued, {ahead} before this prompt")
        elif kind == "start":
            self.started = True
            if self.jsonl:
                self.selected_agent_line()
            else:
                self.view = self.renderer(self.shown)  # type: ignore[arg-type]
        elif kind == "note":
            (self.view.note if self.view is not None else warn)(str(message.get("text")))
        elif kind == "end":
            return self.end(message)
        elif kind == "error":
            self.close_view()
            text = str(message.get("text") or "")
            if text:
                sys.stderr.write(text if text.endswith("\n") else text + "\n")
            return _code(message.get("code"), EXIT_ERROR)
        elif kind == "busy":
            fail(
                f"session {self.args.session} is busy (a turn is running or waiting); "
                "leave out --no-queue to wait for it"
            )
            return EXIT_BUSY
        elif kind == "full":
            fail(
                f"session {self.args.session} has {message.get('waiting')} prompts waiting, "
                "its most; try again once some have run"
            )
            return EXIT_BUSY
        elif kind == "refused":
            return usage_error(str(message.get("message")))
        return None

    def show(self, updates: Any) -> None:
        """Apply the turn's updates to the run's state and render them."""
        state, view = self.shown.state, self.view
        for update in _decoded(updates):
            if type(update) not in state.inert:
                state.apply(update)
            if view is not None:
                view.update(update)

    def show_child(self, message: dict[str, Any]) -> None:
        """A subagent's updates: applied to its own state, shown tagged with its label."""
        child_id, label = message.get("id"), message.get("label")
        if not isinstance(child_id, str) or not isinstance(label, str):
            return
        child = self.children.get(child_id)
        if child is None:
            child = self.children[child_id] = _Child(child_id, label)
        child.label = label
        view = self.view
        for update in _decoded(message.get("updates")):
            if type(update) not in child.state.inert:
                child.state.apply(update)
            if view is not None:
                view.child(child, update)  # type: ignore[arg-type]

    def close_view(self) -> None:
        if self.view is not None:
            view, self.view = self.view, None
            view.close()

    def end(self, message: dict[str, Any]) -> int:
        """The turn ended: the usage line, the warnings, the exit code."""
        self.close_view()
        usage = message.get("usage")
        if self.args.output == "text" and isinstance(usage, str) and usage:
            self.out.write(f"[usage] {self.edge.field(usage)}\n")
            self.out.flush()
        warnings = message.get("warnings")
        for line in warnings if isinstance(warnings, list) else ():
            warn(str(line))
        code = _code(message.get("code"), EXIT_ERROR)
        if code == EXIT_INTERRUPTED and self.stop_signal is not None:
            return self.interrupted_code()
        return code


def _decoded(updates: Any) -> list[Any]:
    """Session updates from their wire form, read as the client reads the agent's."""
    from ..client import decode_update  # noqa: PLC0415

    return (
        [decode_update(raw) for raw in updates if isinstance(raw, dict)]
        if isinstance(updates, list)
        else []
    )


def _start_failure(place: NamedPlace) -> int | None:
    """The last host could not start the agent: print why; its exit code (None: it did)."""
    report = place.read_failure()
    return None if report is None else _report(report, place)


def _report(report: dict[str, Any], place: NamedPlace) -> int:
    """Print the host's account of its agent's failure to start; its exit code."""
    text = report.get("text")
    text = text if isinstance(text, str) and text else f"the agent did not start (see {place.log})"
    sys.stderr.write(text if text.endswith("\n") else text + "\n")
    return _code(report.get("code"), EXIT_ERROR)


def _code(value: Any, default: int) -> int:
    return value if isinstance(value, int) and 0 <= value < 256 else default


def send_request(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    """Send the host one request of the run's side of the wire."""
    from ..launch import send_message  # noqa: PLC0415

    send_message(writer, message)


def host_config(
    place: NamedPlace, args: argparse.Namespace, fingerprint: dict[str, Any]
) -> dict[str, Any]:
    """What a new host is told on its stdin: the run's flags, the name, the options."""
    return {
        "args": {
            **vars(args),
            **session_options(args),
            "cwd": place.cwd,  # the workspace the name is of, as a real path
            "prompt": [],
            "output": "text",
        },
        "place": {
            "agent": place.agent,
            "cwd": place.cwd,
            "name": place.name,
            "command": place.command,
        },
        "fingerprint": fingerprint,
        "keep_alive": args.keep_alive,  # None: the session's earlier one, else the default
    }


def run_named_main(args: argparse.Namespace) -> int:
    """``acphost -s NAME PROMPT``: check the flags, the prompt, the agent; run; the exit code."""
    from ._prepare import prepare_run  # noqa: PLC0415

    try:
        check_named_flags(args)
        prepared = prepare_run(args)
    except UsageProblem as exc:
        return usage_error(str(exc))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    try:
        return run_named(prepared)
    finally:
        prepared.outputs.close()


def run_named(prepared: Prepared) -> int:
    """Run a checked ``acphost -s NAME PROMPT``; return the exit code."""
    run = NamedRun(prepared)
    try:
        return asyncio.run(run.main(prepared.prompt))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except UsageProblem as exc:
        return usage_error(str(exc))
    except OSError as exc:
        fail(f"session {prepared.args.session}: {exc}")
        return EXIT_ERROR
