"""The TUI's model layer: plain objects the widgets read, testable without an app.

Nothing here imports Textual. The session itself (messages, tool calls, plan,
modes...) is :class:`acphost.SessionState`; this module only adds what the
interactive face needs on top of it:

- :class:`PermissionQueue`: permission requests waiting for the user, in order;
- :class:`TerminalBuffers`: live terminal output by terminal id;
- :class:`PromptHistory`, fuzzy file and slash-command completion;
- small formatting helpers shared by the widgets (status, usage, locations).
"""

from __future__ import annotations

import asyncio
import enum
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .. import schema as s
from ..host import (
    PermissionRequest,
    TerminalCreated,
    TerminalEvent,
    TerminalExited,
    TerminalOutputReceived,
    Verdict,
)

__all__ = [
    "Choice",
    "ConnectionState",
    "PermissionQueue",
    "PromptHistory",
    "StatusInfo",
    "TerminalBuffers",
    "choices_for",
    "command_matches",
    "config_value_label",
    "config_value_names",
    "format_usage",
    "fuzzy_rank",
    "location_text",
    "workspace_files",
]


class ConnectionState(enum.Enum):
    """Where the connection to the agent is in its life."""

    CONNECTING = "connecting"
    AUTHENTICATING = "authenticating"
    CONNECTED = "connected"
    CRASHED = "crashed"
    CLOSED = "closed"


# -- permissions -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer the permission dialog offers.

    Attributes:
        key: the key that picks it.
        label: what to show (the agent's option name when it sent options).
        kind: the ``PermissionOptionKind`` it stands for.
        verdict: what the broker gets; it maps the verdict back to the
            agent's option *by kind*.

    """

    key: str
    label: str
    kind: str
    verdict: Verdict


_KIND_KEYS = {"allow_once": "a", "allow_always": "A", "reject_once": "r", "reject_always": "R"}
_KIND_LABELS = {
    "allow_once": "Allow once",
    "allow_always": "Always allow",
    "reject_once": "Reject",
    "reject_always": "Always reject",
}
_KIND_ORDER = ("allow_once", "allow_always", "reject_once", "reject_always")


def _verdict_for(kind: str) -> Verdict | None:
    if kind == "allow_once":
        return Verdict.allow("allowed by the user")
    if kind == "allow_always":
        return Verdict.allow("always allowed by the user", always=True)
    if kind == "reject_once":
        return Verdict.reject("rejected by the user")
    if kind == "reject_always":
        return Verdict.reject("always rejected by the user", always=True)
    return None


def choices_for(request: PermissionRequest) -> list[Choice]:
    """The dialog's choices: the agent's options by kind, or the four standard ones.

    Host-mediated operations (a write or terminal the agent did not ask
    about) carry no options; they get allow/reject, once or always. Options
    of a kind this version does not know are left out: the broker can only
    answer by kind (ACP "Requesting Permission": option ids are opaque).
    """
    kinds: list[tuple[str, str]] = []
    if request.options:
        seen: set[str] = set()
        for option in request.options:
            if option.kind in _KIND_KEYS and option.kind not in seen:
                seen.add(option.kind)
                kinds.append((option.kind, option.name or _KIND_LABELS[option.kind]))
        kinds.sort(key=lambda kl: _KIND_ORDER.index(kl[0]))
    if not kinds:
        kinds = [(k, _KIND_LABELS[k]) for k in _KIND_ORDER]
    out = []
    for kind, label in kinds:
        verdict = _verdict_for(kind)
        assert verdict is not None
        out.append(Choice(_KIND_KEYS[kind], label, kind, verdict))
    return out


@dataclass(eq=False, slots=True)
class PendingPermission:
    """A permission request waiting for the user, and the future its answer resolves."""

    request: PermissionRequest
    future: asyncio.Future[Verdict]


class PermissionQueue:
    """Permission requests waiting for the user, oldest first.

    The interactive policy :meth:`ask`-s and awaits; the UI shows
    :attr:`current` and calls :meth:`answer`. A request whose turn is
    cancelled leaves the queue by itself (its waiter is cancelled).
    """

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self.items: list[PendingPermission] = []
        self.on_change = on_change

    def __len__(self) -> int:
        return len(self.items)

    @property
    def current(self) -> PendingPermission | None:
        """The request to show now."""
        return self.items[0] if self.items else None

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    async def ask(self, request: PermissionRequest) -> Verdict:
        """Queue a request and wait for the user's verdict."""
        item = PendingPermission(request, asyncio.get_running_loop().create_future())
        self.items.append(item)
        self._changed()
        try:
            return await item.future
        finally:
            if item in self.items:
                self.items.remove(item)
                self._changed()

    def answer(self, item: PendingPermission, verdict: Verdict) -> None:
        """Resolve a queued request with the user's verdict."""
        if not item.future.done():
            item.future.set_result(verdict)
        if item in self.items:
            self.items.remove(item)
            self._changed()

    def count(self, session_id: str | None = None) -> int:
        """How many requests wait (for one session, or all)."""
        if session_id is None:
            return len(self.items)
        return sum(1 for i in self.items if i.request.session_id == session_id)


# -- terminals -----------------------------------------------------------------------


@dataclass(slots=True)
class TerminalBuffer:
    """The output of one terminal so far, and how it ended."""

    command: str = ""
    chunks: list[str] = field(default_factory=list)
    exit_text: str | None = None
    size: int = 0

    @property
    def text(self) -> str:
        """All output so far."""
        return "".join(self.chunks)


class TerminalBuffers:
    """Live terminal output by terminal id, fed from ``TerminalManager(on_event=...)``.

    Output arrives before the tool call that shows the terminal (the agent
    creates the terminal first), so it is buffered here and widgets replay it.

    Args:
        limit: bytes kept per terminal (the oldest chunks are dropped).

    """

    def __init__(self, limit: int = 256 * 1024) -> None:
        self.buffers: dict[str, TerminalBuffer] = {}
        self.limit = limit
        self._listeners: dict[str, list[Callable[[str], None]]] = {}

    def get(self, terminal_id: str) -> TerminalBuffer:
        """The buffer of a terminal (created empty when unknown)."""
        buf = self.buffers.get(terminal_id)
        if buf is None:
            buf = self.buffers[terminal_id] = TerminalBuffer()
        return buf

    def watch(self, terminal_id: str, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(text)`` with new output (and ``""`` on exit); returns the remover."""
        self._listeners.setdefault(terminal_id, []).append(listener)
        return lambda: self._listeners.get(terminal_id, []).remove(listener)

    def on_event(self, event: TerminalEvent) -> None:
        """The ``TerminalManager`` event hook."""
        if isinstance(event, TerminalCreated):
            self.get(event.terminal_id).command = " ".join([event.command, *event.args])
            return
        buf = self.get(event.terminal_id)
        if isinstance(event, TerminalOutputReceived):
            buf.chunks.append(event.text)
            buf.size += len(event.text)
            while buf.size > self.limit and len(buf.chunks) > 1:
                buf.size -= len(buf.chunks.pop(0))
            text = event.text
        elif isinstance(event, TerminalExited):
            status = event.exit_status
            buf.exit_text = (
                f"exit code {status.exit_code}"
                if status.exit_code is not None
                else f"killed by {status.signal}"
            )
            text = ""
        for listener in list(self._listeners.get(event.terminal_id, ())):
            listener(text)


# -- composer -------------------------------------------------------------------------


class PromptHistory:
    """Prompts sent, newest last, browsed with up/down like a shell."""

    def __init__(self, limit: int = 500) -> None:
        self.entries: list[str] = []
        self.limit = limit
        self._pos: int | None = None
        self._draft = ""

    def add(self, text: str) -> None:
        """Remember a sent prompt (not twice in a row) and reset browsing."""
        if text.strip() and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[: -self.limit]
        self._pos = None

    def previous(self, current: str) -> str | None:
        """The older entry, or None at the oldest; ``current`` is kept as the draft."""
        if not self.entries:
            return None
        if self._pos is None:
            self._draft = current
            self._pos = len(self.entries)
        if self._pos == 0:
            return None
        self._pos -= 1
        return self.entries[self._pos]

    def next(self) -> str | None:
        """The newer entry, the draft after the newest, or None when not browsing."""
        if self._pos is None:
            return None
        self._pos += 1
        if self._pos >= len(self.entries):
            self._pos = None
            return self._draft
        return self.entries[self._pos]


_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        "dist",
        "build",
        ".idea",
        ".vscode",
    }
)


def workspace_files(root: str, limit: int = 20_000) -> list[str]:
    """Relative paths of the files under ``root`` (no hidden or build dirs), sorted.

    Completion stays inside the workspace: symlinked directories are not followed.
    """
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        rel = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            out.append(name if rel == "." else os.path.join(rel, name))
            if len(out) >= limit:
                return out
    return out


def _fuzzy_score(query: str, candidate: str) -> int | None:
    """A subsequence match score (higher is better), or None when it does not match."""
    q = query.lower()
    c = candidate.lower()
    if not q:
        return 0
    pos = -1
    score = 0
    prev = -2
    base = c.rfind("/") + 1
    for ch in q:
        pos = c.find(ch, pos + 1)
        if pos < 0:
            return None
        if pos == prev + 1:
            score += 5  # contiguous
        if pos >= base:
            score += 2  # in the file name
        if pos == 0 or c[pos - 1] in "/_-. ":
            score += 3  # word start
        prev = pos
    if q in c[base:]:
        score += 20
    return score * 100 - len(c)


def fuzzy_rank(query: str, candidates: Iterable[str], limit: int = 20) -> list[str]:
    """The candidates matching ``query`` as a subsequence, best first."""
    scored = []
    for cand in candidates:
        score = _fuzzy_score(query, cand)
        if score is not None:
            scored.append((-score, cand))
    scored.sort()
    return [c for _, c in scored[:limit]]


def command_matches(
    prefix: str, commands: Sequence[s.AvailableCommand]
) -> list[s.AvailableCommand]:
    """The agent's slash commands whose name starts with ``prefix`` (then contains it)."""
    p = prefix.lower().lstrip("/")
    starts = [c for c in commands if c.name.lower().startswith(p)]
    inside = [c for c in commands if p and p in c.name.lower() and c not in starts]
    return starts + inside


# -- formatting ----------------------------------------------------------------------


def _compact(n: float) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.3g}M"
    if n >= 1000:
        return f"{n / 1000:.3g}k"
    return f"{n:g}"


def format_usage(usage: s.UsageUpdate | None) -> str:
    """``ctx 12k/200k 6%``, plus the cost from a cent up; ``""`` without usage."""
    if usage is None:
        return ""
    pct = f" {100 * usage.used / usage.size:.0f}%" if usage.size else ""
    text = f"ctx {_compact(usage.used)}/{_compact(usage.size)}{pct}"
    cost = usage.cost
    if cost is not None and cost.amount >= 0.01:
        text += f" {cost.amount:.2f} {cost.currency}"
    return text


def location_text(location: s.ToolCallLocation, cwd: str) -> str:
    """``path:line``, relative to the workspace when inside it (lines are 1-based)."""
    path = location.path
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        rel = path
    if not rel.startswith(".."):
        path = rel
    return f"{path}:{location.line}" if location.line is not None else path


@dataclass(slots=True)
class StatusInfo:
    """What the status bar shows."""

    agent: str = ""
    version: str = ""
    connection: ConnectionState = ConnectionState.CONNECTING
    title: str = ""
    mode: str = ""
    model: str = ""
    usage: str = ""
    stop_reason: str = ""
    busy: bool = False
    pending_permissions: int = 0

    def parts(self) -> list[tuple[str, str]]:
        """``(text, style-name)`` segments, most important first (fits 80 columns).

        The connection shows as a mark that reads without colour (NO_COLOR):
        ``●`` connected, ``◌`` connecting or authenticating, ``✗`` crashed,
        ``○`` closed, followed by the state's name unless connected.
        """
        out: list[tuple[str, str]] = []
        mark = _CONNECTION_MARKS[self.connection]
        agent = f"{mark} {self.agent} {self.version}".rstrip()
        if self.connection is not ConnectionState.CONNECTED:
            agent += f" {self.connection.value}"
        out.append((agent, self.connection.value))
        if self.pending_permissions:
            n = self.pending_permissions
            out.append((f"⚠ {n} permission{'s' if n > 1 else ''}", "warn"))
        if self.busy:
            out.append(("working… (Esc cancels)", "busy"))
        elif self.stop_reason:
            out.append((f"stop: {self.stop_reason}", "stop"))
        setup = " · ".join(x for x in (self.mode, self.model) if x)
        if setup:
            out.append((setup, "plain"))
        if self.usage:
            out.append((self.usage, "plain"))
        if self.title:
            out.append((self.title, "title"))
        return out


_CONNECTION_MARKS = {
    ConnectionState.CONNECTING: "◌",
    ConnectionState.AUTHENTICATING: "◌",
    ConnectionState.CONNECTED: "●",
    ConnectionState.CRASHED: "✗",
    ConnectionState.CLOSED: "○",
}


# -- permissions policy and config ------------------------------------------------


def config_value_names(option: s.SessionConfigOption) -> dict[str, str]:
    """Value id -> display name of a ``select`` option (groups flattened)."""
    names: dict[str, str] = {}
    for item in getattr(option, "options", None) or ():
        inner = getattr(item, "options", None)
        for opt in inner if inner is not None else (item,):
            names[opt.value] = opt.name
    return names


def config_value_label(option: s.SessionConfigOption) -> str:
    """The option's current value as shown (``on``/``off`` for booleans)."""
    current = getattr(option, "current_value", None)
    if isinstance(current, bool):
        return "on" if current else "off"
    return config_value_names(option).get(str(current), str(current or ""))
