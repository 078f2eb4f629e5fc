"""``acphost -s NAME PROMPT`` the long way; what ``acphost status`` and ``cancel`` share.

The run resolves its agent and options as any run does, finds the name's
host (:mod:`acphost.launch._named`) or starts one
(:mod:`acphost.cli._named_host`), and sends its prompt; the host renders the
run's turn for the run's output and terminal, and the run writes it
(:mod:`acphost.cli._named_client`, where a warm run that repeats a command
line goes straight, by its shortcut). The run exits with the code the
command line gives any turn.

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
import functools
import hashlib
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from ..launch import EXIT_ERROR, EXIT_INTERRUPTED, UsageProblem, fail
from ..safetext import sanitize
from ._edge import warn
from ._named_start import HostFailed, start_host
from ._parser import usage_error

if TYPE_CHECKING:
    from ..launch import NamedPlace
    from ._prepare import Prepared

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
#: ``_fingerprint``'s default: resolve the settings file the run applies.
_RESOLVE: Any = object()
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


def _fingerprint(
    args: argparse.Namespace, history: str | None = None, applied: Any = _RESOLVE
) -> dict[str, Any]:
    """What a run must share with a live host: its session options, less who and where.

    The agent and the workspace are the name's place already (its agent key,
    the digest of its command, and real path): ``-a demo`` and the default
    agent that is the demo, ``--cwd .`` and no ``--cwd``, are the same
    session. The environment that changes what the host does is part of it,
    as resolved: the history it records into (``--no-history``,
    ``ACPHOST_NO_HISTORY``, ``ACPHOST_HISTORY``) and the settings files it
    reads (``ACPHOST_SETTINGS``, the user's settings file). ``applied`` is
    the settings file the run applies, when it has resolved it already.
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
    if applied is _RESOLVE:
        applied = _applied_settings(args)
    options["file_contents"] = _contents(args, applied)
    return options


def _applied_settings(args: argparse.Namespace) -> Any:
    """The settings file a run of ``args`` applies, resolved as the run resolves it."""
    from ..config import SettingsError, project_dir, settings_for  # noqa: PLC0415

    named = args.settings or os.environ.get("ACPHOST_SETTINGS")
    try:
        where = project_dir(os.path.abspath(os.path.expanduser(args.cwd or os.curdir)))
        return settings_for(named, where).path
    except (SettingsError, OSError):
        return None  # the run says what is wrong with them before it gets here


def _session_files(args: argparse.Namespace, applied: Any) -> list[str | None]:
    """The files whose contents set a session up (None where there is none).

    The settings file the run applies (``applied``: the named one, else the
    project's when trusted, else the user's; trusting or revoking a project
    changes it), the permission rules and a ``--system-prompt @FILE``.
    """
    paths: list[str | None] = [str(applied) if applied is not None else None]
    paths.append(args.permission_policy and os.path.expanduser(args.permission_policy))
    prompt = getattr(args, "system_prompt", None)
    paths.append(
        os.path.expanduser(prompt[1:]) if isinstance(prompt, str) and prompt[:1] == "@" else None
    )
    return paths


def _contents(args: argparse.Namespace, applied: Any) -> str:
    """A digest of :func:`_session_files` as they are now.

    A file tightened since the host started (the sandbox turned on, a rule
    that now rejects) makes a run's options other than the host's, which
    then makes way (or, busy, refuses) rather than serve the run with the
    looser ones.
    """
    from .._infile import InputFileError, read_input  # noqa: PLC0415

    digest = hashlib.sha256()
    for path in _session_files(args, applied):
        digest.update(b"\0")
        if path is None:
            continue
        try:
            data = read_input(path, what="a session's file")
        except InputFileError as exc:  # the run itself says what is wrong with it
            digest.update(f"unread: {exc}".encode())
        else:
            digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


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


def _request(prepared: Prepared) -> dict[str, Any]:
    """The ``prompt`` request this run sends, less its prompt, token, ticket and terminal."""
    args = prepared.args
    return {
        "op": "prompt",
        "output": args.output,
        "queue": not args.no_queue,
        "options": _fingerprint(args, prepared.outputs.history_path, prepared.settings.path),
        "keep_alive": args.keep_alive,
        "limits": {"max_tokens": args.max_tokens, "max_cost": args.max_cost},
        "subagent_timeout": args.subagent_timeout,
    }


def _settings_files(prepared: Prepared) -> list[str]:
    """The files a run reads or looks for: a shortcut holds while none changes.

    Those of :func:`_session_files`, every settings file that could apply
    instead (one made or trusted since changes which applies) and the trust
    store.
    """
    from ..config import project_settings_path, trust_store_path, user_settings_path  # noqa: PLC0415

    explicit = prepared.args.settings or os.environ.get("ACPHOST_SETTINGS")
    found = [
        *_session_files(prepared.args, prepared.settings.path),
        prepared.settings.path,
        os.path.expanduser(explicit) if explicit else None,
        project_settings_path(prepared.cwd),
        user_settings_path(),
        trust_store_path(),
    ]
    return sorted({os.path.abspath(str(f)) for f in found if f is not None})


def _skipped_project_settings(prepared: Prepared) -> bool:
    """Whether the run skipped a project settings file (untrusted, changed, linked).

    Each run says so (once) the long way; a shortcut would not: such a run
    leaves none.
    """
    from ..config import project_settings_path  # noqa: PLC0415

    if prepared.args.settings or os.environ.get("ACPHOST_SETTINGS"):
        return False  # a named file: the project's is not looked at
    project = project_settings_path(prepared.cwd)
    used = prepared.settings.path
    return os.path.lexists(project) and (
        used is None or os.path.abspath(str(used)) != os.path.abspath(str(project))
    )


async def _ensure_host(place: NamedPlace, args: argparse.Namespace, config: dict[str, Any]) -> None:
    """Return once the name's host listens, starting one when none is alive."""
    from ..launch import connect_named  # noqa: PLC0415

    async def start(fd: int) -> None:
        await start_host(place, fd, config)

    _, writer = await connect_named(place, start, timeout=args.init_timeout)
    writer.close()  # the host takes a connection that sends nothing as gone


def run_named(prepared: Prepared, argv: list[str] | None = None) -> int:
    """Run a checked ``acphost -s NAME PROMPT``; return the exit code.

    The long way: the agent and the options are resolved (``prepared``),
    the name's host found or started, then the prompt goes to it as a warm
    run's does (:mod:`acphost.cli._named_client`). Accepted by the host, the
    run leaves a shortcut for the runs that repeat its command line.

    Args:
        prepared: the checked run.
        argv: the command line as typed (for the shortcut), if known.

    """
    from ..launch import NamedUnavailable, options_digest, place_of  # noqa: PLC0415
    from . import _named_client as client  # noqa: PLC0415
    from ._continue import agent_key  # noqa: PLC0415
    from ._prepare import prompt_blocks  # noqa: PLC0415

    args, prompt = prepared.args, prepared.prompt
    assert prompt is not None
    place = place_of(
        agent_key(prepared.spec, prepared.outputs),
        prepared.cwd,
        args.session,
        command=command_digest(prepared.spec),
    )
    base = _request(prepared)
    blocks, missing = prompt_blocks(prompt, prepared.cwd)
    for name in missing:
        warn(f"@{name}: no such file; it is not attached")
    config = host_config(place, args, base["options"])
    shortcut = (
        argv is not None
        and args.prompt == argv[-1:]
        and not missing
        and not _skipped_project_settings(prepared)
    )

    def remember() -> None:
        if shortcut and argv is not None:
            client.remember(
                argv,
                _settings_files(prepared),
                [os.path.abspath(os.path.expanduser(args.cwd))] if args.cwd else [],
                sock_path=place.socket,
                token_file=place.token_file,
                name=args.session,
                request=base,
                options_digest=options_digest(base["options"]),
            )

    ticket = client.taken_ticket
    retries = 0
    while True:
        try:
            asyncio.run(_ensure_host(place, args, config))
        except NamedUnavailable as exc:
            if exc.report is not None:
                return _report(exc.report, place)
            fail(str(exc))
            return EXIT_ERROR
        except HostFailed as exc:
            for line in exc.text.splitlines() or ["the session host failed to start"]:
                fail(line)
            return exc.code
        request = {
            **base,
            "prompt": [b.to_wire() for b in blocks],
            "text": prompt,
            "ticket": ticket,
            "token": place.read_token(),
            "tty": client.terminal_facts(),
        }
        sys.stdout.flush()  # what was said before goes first
        sys.stderr.flush()
        try:
            sock = client.connect(place.socket)
            return client.converse(
                sock,
                request,
                args.session,
                remember,
                log=place.log,
                on_denied=functools.partial(_another_host, place, request["token"]),
            )
        except client.HostGone as gone:
            if gone.started:
                sys.stderr.write(client.stopped_mid_turn(place.folder, gone.ticket))
                return EXIT_ERROR
            ticket = gone.ticket if gone.ticket is not None else ticket
        except client.NotOurs as exc:
            fail(f"session {args.session}: {exc}; not used")
            return EXIT_ERROR
        except OSError:
            pass  # the host stopped between its answer and our connection: the next one
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


def _another_host(place: NamedPlace, token: str | None) -> bool:
    """Whether the name's host changed since ``token`` was read (it makes a new one)."""
    return place.read_token() != token


def _start_failure(place: NamedPlace) -> int | None:
    """The last host could not start the agent: print why; its exit code (None: it did)."""
    report = place.read_failure()
    return None if report is None else _report(report, place)


def _report(report: dict[str, Any], place: NamedPlace) -> int:
    """Print the host's account of its agent's failure to start; its exit code."""
    text = report.get("text")
    text = text if isinstance(text, str) and text else f"the agent did not start (see {place.log})"
    text = sanitize(text)  # a file on disk: data, shown safe
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


def run_named_main(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """``acphost -s NAME PROMPT``: check the flags, the prompt, the agent; run; the exit code."""
    from ._prepare import prepare_run  # noqa: PLC0415
    from ._sysprompt import system_prompt_options  # noqa: PLC0415

    try:
        check_named_flags(args)
        prepared = prepare_run(args)
    except UsageProblem as exc:
        return usage_error(str(exc))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    try:
        # What the host would build the session with, checked here: a bad
        # --system-prompt is one line, as in a plain run, not a host that fails.
        system_prompt_options(args, prepared.spec)
    except UsageProblem as exc:
        prepared.outputs.close()
        return usage_error(str(exc))
    try:
        return run_named(prepared, argv)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except UsageProblem as exc:
        return usage_error(str(exc))
    except OSError as exc:
        fail(f"session {args.session}: {exc}")
        return EXIT_ERROR
    finally:
        prepared.outputs.close()
