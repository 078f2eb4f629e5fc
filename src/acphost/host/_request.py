"""What a permission decision is about, and how it is shown to a human.

A :class:`PermissionRequest` is built once, by the host, from what will
actually happen: paths resolved the way the jail resolves them, the command
as the argv (or shell line) that will run, its ``cwd`` and environment
overrides, the tool's name. Policies match it, the broker remembers "always"
answers by it, the audit log records it, and :func:`describe_request` turns it
into the lines a prompt shows: what is shown is what is approved.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import RequestError
from ._commands import command_key, shell_line_of
from ._jail import resolve_path
from ._protect import ProtectedPaths

__all__ = ["PermissionOption", "PermissionRequest", "describe_request", "request_facts"]

# The operation a request describes. "tool_call" is the agent's own
# session/request_permission; the others are the host mediating a request the
# agent made without asking (the host is in charge of every operation).
OPERATION_TOOL_CALL = "tool_call"
OPERATION_FS_READ = "fs_read"
OPERATION_FS_WRITE = "fs_write"
OPERATION_TERMINAL_CREATE = "terminal_create"

# The tool kind a mediated operation counts as.
_KIND_OF_OPERATION = {
    OPERATION_FS_READ: "read",
    OPERATION_FS_WRITE: "edit",
    OPERATION_TERMINAL_CREATE: "execute",
}
# Tool kinds whose paths are never judged as protected writes: they read, or
# they run a command (which no path rule can confine; commands are gated).
_UNPROTECTED_KINDS = frozenset({"read", "search", "think", "switch_mode", "execute"})
# Tool kinds that read their paths: the host's own files are protected from them.
_READING_KINDS = frozenset({"read", "search"})
# Keys agents use for the working directory in an execute tool's raw input.
_CWD_KEYS = ("cwd", "workdir", "directory")

_ACTIONS = {
    OPERATION_TOOL_CALL: "tool call",
    OPERATION_FS_READ: "read a file",
    OPERATION_FS_WRITE: "write a file",
    OPERATION_TERMINAL_CREATE: "run a command in a terminal",
}


@dataclass(frozen=True, slots=True)
class PermissionOption:
    """One choice the agent offers in ``session/request_permission``.

    Attributes:
        option_id: the agent's opaque id, echoed back when chosen.
        name: the label to show.
        kind: ``allow_once``, ``allow_always``, ``reject_once``,
            ``reject_always``, or an unknown string (never chosen automatically).

    """

    option_id: str
    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """What a policy decides on: an agent's request or a host-mediated operation.

    Build it with :meth:`for_tool_call`, :meth:`for_fs_read`,
    :meth:`for_fs_write` or :meth:`for_terminal`, which resolve paths and
    fill every field consistently.

    Attributes:
        session_id: the session asking.
        tool_call_id: the tool call concerned, when known.
        title: the tool call's title, as the agent wrote it.
        tool_kind: the ``ToolKind`` (``read``, ``edit``, ``execute``...) or ``None``.
        paths: the files concerned, canonical (resolved as the jail resolves
            them): tool-call locations, the file read or written, a terminal's cwd.
        command: the command line as one shell-quoted string (environment
            assignments first), for display and whole-line rules.
        options: the agent's options (empty for mediated operations).
        raw_input: the tool call's raw input (shown, and part of what an
            "always" answer covers).
        operation: ``"tool_call"``, ``"fs_read"``, ``"fs_write"`` or
            ``"terminal_create"``.
        tool_name: the tool's programmatic name (``ToolCall.name``), if given.
        argv: the program and its arguments, when the command is an argv.
        shell_line: the line, when the command is a shell line (run by ``/bin/sh -c``).
        cwd: the command's working directory, canonical, when known.
        env: the environment overrides the command runs with, in order.
        requested_paths: the paths as the agent wrote them, aligned with
            ``paths``; empty when they are the same.
        protected: the protected areas among ``paths`` that this request
            would write (see :class:`~acphost.host.ProtectedPaths`).
        workspace: the session's canonical workspace roots, when known: a
            command's program found there is the agent's.

    """

    session_id: str
    tool_call_id: str | None = None
    title: str | None = None
    tool_kind: str | None = None
    paths: tuple[str, ...] = ()
    command: str | None = None
    options: tuple[PermissionOption, ...] = ()
    raw_input: object = field(default=None, compare=False)
    operation: str = OPERATION_TOOL_CALL
    tool_name: str | None = None
    argv: tuple[str, ...] | None = None
    shell_line: str | None = None
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    requested_paths: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()
    workspace: tuple[str, ...] = field(default=(), compare=False)

    @property
    def kind(self) -> str | None:
        """The tool kind, or the one a mediated operation implies (``read``, ``edit``...)."""
        return self.tool_kind or _KIND_OF_OPERATION.get(self.operation)

    @property
    def command_key(self) -> object:
        """The command's identity: equal for ``git status`` as argv, line or ``sh -c``.

        A request built by hand with only ``command`` counts it as a shell line.
        """
        if self.argv is None and self.shell_line is None:
            return command_key(None, self.command, self.env)
        return command_key(self.argv, self.shell_line, self.env)

    @classmethod
    def for_tool_call(
        cls,
        session_id: str,
        tool_call_id: str,
        *,
        title: str | None,
        kind: str | None,
        locations: Iterable[str],
        cwd: str,
        raw_input: object = None,
        tool_name: str | None = None,
        options: Sequence[PermissionOption] = (),
        protect: ProtectedPaths | None = None,
        writes: Iterable[tuple[str, str]] = (),
        workspace: Sequence[str] = (),
    ) -> PermissionRequest:
        """Describe the agent's ``session/request_permission``.

        Relative locations are taken as relative to the session's ``cwd``
        (some agents send them); every location is resolved the way the jail
        resolves paths. An execute tool's command and working directory are
        read from its raw input (``command`` as a string is a shell line, as
        a list an argv; ``cwd``, ``workdir`` or ``directory``): the agent
        runs it, so this is its claim, shown and matched as such.

        Args:
            session_id: the session asking.
            tool_call_id: the tool call.
            title: its title.
            kind: its ``ToolKind``.
            locations: the paths it names (locations, diff paths).
            cwd: the session's working directory.
            raw_input: its raw input.
            tool_name: its ``name``.
            options: the agent's options.
            protect: the protected paths of the session's workspace.
            writes: ``(path, text)`` pairs the tool call says it writes (each
                diff's ``path`` and ``newText``). With the file path and
                whole content a raw input names (``file_path``/``path``/...,
                ``content``/``newText``/...), they are judged as an
                ``fs/write_text_file`` of that text would be: the agent's
                edit tool writes what it was allowed to write
                (:meth:`~acphost.host.ProtectedPaths.written_areas`).
            workspace: the session's canonical workspace roots.

        Returns:
            The request (operation ``tool_call``).

        """
        requested = tuple(dict.fromkeys(locations))
        paths = tuple(_resolve_loosely(p, cwd) for p in requested)
        argv, line = _command_of(raw_input)
        run_dir = _cwd_of(raw_input, cwd) if (argv or line) else None
        protected: tuple[str, ...] = ()
        if protect is not None and kind not in _UNPROTECTED_KINDS:
            protected = protect.written_areas(_claimed_writes(paths, writes, raw_input, cwd))
        elif protect is not None and kind in _READING_KINDS:
            # A read of the host's own files is protected like a write there
            # (the file the raw input names counts too: the agent reads it).
            read = (*paths, *_raw_file(raw_input, cwd))
            protected = tuple(
                dict.fromkeys(a for a in map(protect.output_area, read) if a is not None)
            )
        return cls(
            session_id=session_id,
            tool_call_id=tool_call_id,
            title=title or None,
            tool_kind=kind,
            paths=paths,
            command=_display(argv, line, ()),
            options=tuple(options),
            raw_input=raw_input,
            tool_name=tool_name or None,
            argv=argv,
            shell_line=line,
            cwd=run_dir,
            requested_paths=requested if requested != paths else (),
            protected=protected,
            workspace=tuple(workspace),
        )

    @classmethod
    def for_fs_read(
        cls,
        session_id: str,
        path: str,
        *,
        requested: str | None = None,
        protect: ProtectedPaths | None = None,
    ) -> PermissionRequest:
        """Describe an ``fs/read_text_file`` for mediation by the broker.

        Args:
            session_id: the session reading.
            path: the canonical path the jail opened.
            requested: the path as the agent wrote it.
            protect: the protected paths: a read of the host's own files and
                folders (settings, trust store, history, output files) is
                protected like a write there
                (:meth:`~acphost.host.ProtectedPaths.output_area`).

        Returns:
            A request with operation ``fs_read`` and tool kind ``read``.

        """
        area = protect.output_area(os.path.normpath(path)) if protect is not None else None
        return cls(
            session_id=session_id,
            title=f"read {path}",
            tool_kind="read",
            paths=(path,),
            operation=OPERATION_FS_READ,
            requested_paths=(requested,) if requested not in (None, path) else (),
            protected=(area,) if area is not None else (),
        )

    @classmethod
    def for_fs_write(
        cls,
        session_id: str,
        path: str,
        *,
        requested: str | None = None,
        tool_call_id: str | None = None,
        protect: ProtectedPaths | None = None,
        content: str | None = None,
    ) -> PermissionRequest:
        """Describe an ``fs/write_text_file`` for mediation by the broker.

        Args:
            session_id: the session writing.
            path: the canonical path the jail will replace.
            requested: the path as the agent wrote it.
            tool_call_id: the tool call it belongs to, when known.
            protect: the protected paths of the session's workspace.
            content: the text to be written: a git ``HEAD`` makes its
                directory a git directory, a protected area
                (:meth:`~acphost.host.ProtectedPaths.area`).

        Returns:
            A request with operation ``fs_write`` and tool kind ``edit``.

        """
        path = os.path.normpath(path)
        return cls(
            session_id=session_id,
            tool_call_id=tool_call_id,
            title=f"write {path}",
            tool_kind="edit",
            paths=(path,),
            operation=OPERATION_FS_WRITE,
            requested_paths=(requested,) if requested not in (None, path) else (),
            protected=protect.areas((path,), content) if protect is not None else (),
        )

    @classmethod
    def for_terminal(
        cls,
        session_id: str,
        command: str,
        args: Sequence[str] | None = None,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        tool_call_id: str | None = None,
        workspace: Sequence[str] = (),
    ) -> PermissionRequest:
        """Describe a ``terminal/create`` for mediation by the broker.

        The environment the agent asks for is part of what runs: an overlay
        such as ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_0=core.fsmonitor``,
        ``PATH`` or ``LD_PRELOAD`` turns an allowed ``git status`` into any
        program. So its ``NAME=value`` assignments, shell-quoted, come first in
        ``command`` (as a shell would spell them): a rule for ``git status``
        or ``git *`` does not match, and a prompt shows them.

        Args:
            session_id: the session creating the terminal.
            command: the command (a shell line when ``args`` is empty).
            args: the arguments, if the agent gave an argv.
            cwd: the canonical working directory the command will start in.
            env: the environment variables the agent sets, in its order.
            tool_call_id: the tool call it belongs to, when known.
            workspace: the session's canonical workspace roots (a program
                found there is the agent's).

        Returns:
            A request with operation ``terminal_create``, tool kind
            ``execute``, ``argv`` or ``shell_line``, ``cwd`` and ``env``.

        """
        pairs = tuple(env.items() if isinstance(env, Mapping) else env or ())
        argv = (command, *args) if args else None
        line = None if args else command
        display = _display(argv, line, pairs)
        return cls(
            session_id=session_id,
            tool_call_id=tool_call_id,
            title=f"run {display}",
            tool_kind="execute",
            paths=(os.path.normpath(cwd),) if cwd else (),
            command=display,
            operation=OPERATION_TERMINAL_CREATE,
            argv=argv,
            shell_line=line,
            cwd=os.path.normpath(cwd) if cwd else None,
            env=pairs,
            workspace=tuple(workspace),
        )


def request_facts(request: PermissionRequest) -> list[tuple[str, str]]:
    """Every fact a permission decision is about, as ``(label, value)`` pairs.

    This is what an "always" answer remembers and what a prompt shows (see
    :func:`describe_request`), decisive facts first: the action, what runs
    (argv or shell line), where (cwd), with what environment, on which
    paths (canonical, with the path the agent wrote when it differs), the
    protected areas; then the tool's name and kind, the raw input of a tool
    call (in full, canonical JSON), and last the agent's free-text title.

    Args:
        request: the request.

    Returns:
        The facts, values raw (neither shortened nor sanitised).

    """
    facts = [("action", _ACTIONS.get(request.operation, request.operation))]
    if request.argv is not None:
        facts.append(("argv", shlex.join(request.argv)))
        wrapped = shell_line_of(request.argv, None, request.env)
        if wrapped is not None:
            facts.append(("shell line", wrapped))
    elif request.shell_line is not None:
        facts.append(("shell line", request.shell_line))
    elif request.command:
        facts.append(("command", request.command))
    if request.cwd is not None:
        facts.append(("cwd", request.cwd))
    facts.extend(("env", f"{name}={shlex.quote(value)}") for name, value in request.env)
    shown_paths = request.paths if request.operation != OPERATION_TERMINAL_CREATE else ()
    for index, path in enumerate(shown_paths):
        facts.append(("path", os.path.normpath(path)))
        if index < len(request.requested_paths) and request.requested_paths[index] != path:
            facts.append((_REQUESTED_AS, request.requested_paths[index]))
    facts.extend(("protected", area) for area in request.protected)
    if request.tool_name:
        facts.append(("tool", request.tool_name))
    facts.append(("kind", request.kind or "unknown"))
    if request.operation == OPERATION_TOOL_CALL:
        if request.raw_input is not None:
            facts.append(("input", _canonical(request.raw_input)))
        facts.append(("title", request.title or "(untitled)"))
    return facts


def describe_request(request: PermissionRequest) -> list[str]:
    """Return the lines a permission prompt shows: what is approved, readable.

    The facts of :func:`request_facts`, in that order: what will run (the
    action, argv or shell line, cwd, environment overrides) comes first.
    Nothing can hide in it by its sheer size:

    * a run of blank or invisible characters (spaces, zero-width and format
      characters, the Braille blank) shows as ``⟨N blank characters⟩``, and
      a value longer than a few lines shows its head and tail around
      ``⟨N characters left out⟩``;
    * a repeated row (``path``, ``env``, ``protected``) shows its first
      few, then ``… and N more paths`` (N counted): 120 paths cannot push
      the command and the rows after them (kind, input, title) off the
      screen, and the count says there is more.

    What an "always" answer covers is every fact in full (the broker's key
    is :func:`request_facts`, not these lines): the very request described,
    with each row left out here, and no other.

    The lines are raw otherwise: the face sanitises each before a terminal.

    Args:
        request: the request to show.

    Returns:
        Lines of the form ``label: value``, without trailing newlines.

    """
    lines: list[str] = []
    shown: dict[str, int] = {}
    left_out: dict[str, int] = {}
    last = ""
    for label, value in request_facts(request):
        group = "path" if label == _REQUESTED_AS else label
        if group != last:
            _count_left_out(lines, last, left_out)
            last = group
        if label in _REPEATED:
            shown[label] = shown.get(label, 0) + 1
            if shown[label] > _MAX_REPEATED:
                left_out[label] = left_out.get(label, 0) + 1
                continue
        elif label == _REQUESTED_AS and shown.get("path", 0) > _MAX_REPEATED:
            continue  # it belongs to a path left out
        lines.append(f"{label}: {_shown(value)}")
    _count_left_out(lines, last, left_out)
    return lines


# Rows an agent can repeat at will (one per path or variable), and how many
# of each a description shows before it counts the rest.
_REPEATED = {"path": "paths", "env": "environment overrides", "protected": "protected areas"}
_MAX_REPEATED = 5
_REQUESTED_AS = "  requested as"


def _count_left_out(lines: list[str], label: str, left_out: dict[str, int]) -> None:
    count = left_out.pop(label, 0)
    if count:
        lines.append(f"{label}: … and {count} more {_REPEATED[label]}")


# Characters that show nothing: with enough of them, a value can push what
# matters off the screen or out of a dialog.
_BLANKS = re.compile(
    r"[\s\u2800\u3164\u115f\u1160\uffa0\u00ad\u034f\u061c\u180e"
    r"\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]{3,}"
)
_SHOWN_MAX = 400
_HEAD, _TAIL = 300, 80


def _shown(value: str) -> str:
    value = _BLANKS.sub(lambda m: f" ⟨{len(m.group())} blank characters⟩ ", value)
    if len(value) > _SHOWN_MAX:
        left_out = len(value) - _HEAD - _TAIL
        value = f"{value[:_HEAD]} ⟨{left_out} characters left out⟩ {value[-_TAIL:]}"
    return value


def _canonical(value: object) -> str:
    """A tool's raw input as one line of canonical JSON (sorted keys)."""
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


def _display(
    argv: Sequence[str] | None, line: str | None, env: Sequence[tuple[str, str]]
) -> str | None:
    if argv is not None:
        text = shlex.join(argv)
    elif line is not None:
        text = line
    else:
        return None
    if env:
        assignments = [f"{shlex.quote(name)}={shlex.quote(value)}" for name, value in env]
        text = " ".join([*assignments, text])
    return text


def _resolve_loosely(path: str, base: str) -> str:
    """Resolve a tool-call path; a malformed one is kept as written, normalised."""
    try:
        return resolve_path(path, base=base)
    except RequestError:
        joined = path if os.path.isabs(path) else os.path.join(base, path)
        return os.path.normpath(joined)


def _command_of(raw_input: object) -> tuple[tuple[str, ...] | None, str | None]:
    """The argv or shell line an execute tool runs, from its raw input (best effort)."""
    if not isinstance(raw_input, dict):
        return None, None
    cmd = raw_input.get("command", raw_input.get("cmd"))
    if isinstance(cmd, str) and cmd:
        return None, cmd
    if isinstance(cmd, list) and cmd and all(isinstance(c, str) for c in cmd):
        return tuple(cmd), None
    return None, None


# Keys agents use in an edit tool's raw input for the file it writes
# (Claude Code, Gemini CLI, Qwen Code: ``file_path``; OpenCode: ``filePath``),
# for the whole text it leaves there (``content``; ``newText`` as in a diff),
# and for a fragment of it (``new_string``, ``edits``: the file is unknown).
_PATH_KEYS = ("file_path", "filePath", "path", "abs_path", "absolute_path", "file", "target_file")
_TEXT_KEYS = ("content", "newText", "new_text", "contents", "file_text", "text")
_FRAGMENT_KEYS = ("new_string", "newString", "new_str", "old_string", "oldString", "edits")


def _raw_file(raw_input: object, cwd: str) -> tuple[str, ...]:
    """The file a tool's raw input names (``file_path``, ``path``...), resolved; or none."""
    if isinstance(raw_input, dict):
        for key in _PATH_KEYS:
            value = raw_input.get(key)
            if isinstance(value, str) and value:
                return (_resolve_loosely(value, cwd),)
    return ()


def _claimed_writes(
    paths: Sequence[str], writes: Iterable[tuple[str, str]], raw_input: object, cwd: str
) -> list[tuple[str, str | None]]:
    """Each path a tool call writes, with the whole text it says it leaves there.

    The texts come from the diffs (``writes``) and from the raw input's file
    path and content; a path with no whole text known is paired with ``None``
    (see :meth:`~acphost.host.ProtectedPaths.written_areas`).
    """
    known: dict[str, list[str]] = {}
    unknown: list[str] = list(paths)
    for path, text in writes:
        known.setdefault(_resolve_loosely(path, cwd), []).append(text)
    if isinstance(raw_input, dict):
        whole = next((v for k in _TEXT_KEYS if isinstance(v := raw_input.get(k), str)), None)
        if any(k in raw_input for k in _FRAGMENT_KEYS):
            whole = None  # an edit's fragment: what the whole file becomes is unknown
        for resolved in _raw_file(raw_input, cwd):
            if whole is not None:
                known.setdefault(resolved, []).append(whole)
            else:
                unknown.append(resolved)
    pairs: list[tuple[str, str | None]] = [(p, t) for p, texts in known.items() for t in texts]
    pairs += [(p, None) for p in dict.fromkeys(unknown) if p not in known]
    return pairs


def _cwd_of(raw_input: object, session_cwd: str) -> str:
    """The working directory an execute tool claims, resolved; the session's by default."""
    if isinstance(raw_input, dict):
        for key in _CWD_KEYS:
            value = raw_input.get(key)
            if isinstance(value, str) and value:
                return _resolve_loosely(value, session_cwd)
    return _resolve_loosely(session_cwd, session_cwd)
