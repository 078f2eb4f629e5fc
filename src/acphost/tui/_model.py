"""The TUI's model layer: plain objects the widgets read, testable without an app.

Nothing here imports Textual. The session itself (messages, tool calls, plan,
modes...) is :class:`acphost.SessionState`; this module only adds what the
interactive face shows around it: the connection's state, the status line
(:class:`StatusInfo`, fitted to the terminal's width), the start screen
(:class:`StartInfo`) and small formatting helpers. The agent's questions wait
in :mod:`acphost.tui._asks`, terminal output in :mod:`acphost.tui._terminals`,
the composer's history and completion in :mod:`acphost.tui._completion`.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import schema as s

if TYPE_CHECKING:
    from ..client import Budget
    from ..host import Confinement

__all__ = [
    "ConnectionState",
    "SandboxInfo",
    "StartInfo",
    "StatusInfo",
    "config_value_label",
    "config_value_names",
    "first_words",
    "format_usage",
    "home_relative",
    "location_text",
    "reported_tokens",
    "words_match",
]


class ConnectionState(enum.Enum):
    """Where the connection to the agent is in its life."""

    WAITING = "not started"
    CONNECTING = "connecting"
    AUTHENTICATING = "authenticating"
    CONNECTED = "connected"
    CRASHED = "crashed"
    CLOSED = "closed"


# -- formatting ----------------------------------------------------------------------


def _compact(n: float) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.3g}M"
    if n >= 1000:
        return f"{n / 1000:.3g}k"
    return f"{n:g}"


def format_usage(
    usage: s.UsageUpdate | None, *, tokens: int | None = None, budget: Budget | None = None
) -> str:
    """``ctx 12k/200k 6% · 5k tok 1.50 USD``: context, tokens spent, cost; ``""`` without usage.

    The cost shows from a cent up, or always under a cost budget; a budget's
    limits follow what they bound (``ctx 3k/200k 2% (max 4k)``, ``0.03 USD
    (max 0.05)``).

    Args:
        usage: the agent's last ``usage_update``.
        tokens: the tokens the agent reported for the turns seen (``PromptResponse.usage``).
        budget: the session's budget, if any.

    """
    max_tokens = budget.max_tokens if budget is not None else None
    max_cost = budget.max_cost if budget is not None else None
    parts: list[str] = []
    if usage is not None:
        pct = f" {100 * usage.used / usage.size:.0f}%" if usage.size else ""
        ctx = f"ctx {_compact(usage.used)}/{_compact(usage.size)}{pct}"
        parts.append(ctx + (f" (max {_compact(max_tokens)})" if max_tokens is not None else ""))
    elif max_tokens is not None:
        parts.append(f"ctx max {_compact(max_tokens)}")
    if tokens:
        parts.append(f"· {_compact(tokens)} tok")
    cost = usage.cost if usage is not None else None
    if cost is not None and (cost.amount >= 0.01 or max_cost is not None):
        parts.append(f"{cost.amount:.2f} {cost.currency}")
    if max_cost is not None:
        parts.append(f"(max {max_cost:g})" if cost is not None else f"cost max {max_cost:g}")
    return " ".join(parts)


def reported_tokens(raw: Any) -> int | None:
    """The total tokens in a ``PromptResponse.usage`` (a wire object or a typed one)."""
    if raw is None:
        return None
    total = raw.get("totalTokens") if isinstance(raw, dict) else getattr(raw, "total_tokens", None)
    return total if isinstance(total, int) and not isinstance(total, bool) and total >= 0 else None


def words_match(haystack: str, query: str) -> bool:
    """Whether every word of ``query`` occurs in ``haystack`` and no ``-word`` does.

    Case-insensitive (``haystack`` is expected lower-cased); an empty query matches.
    """
    for word in query.lower().split():
        if word.startswith("-") and len(word) > 1:
            if word[1:] in haystack:
                return False
        elif word not in haystack:
            return False
    return True


def home_relative(path: str) -> str:
    """``~/src/project`` for a path under the home directory, as shells show it."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


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


def first_words(text: str, limit: int = 24) -> str:
    """The first words of ``text`` on one line, cut near ``limit`` with an ellipsis.

    Whole words when they fit; a long word that would leave the label short
    is cut inside instead of dropped.
    """
    words = " ".join(text.split())
    if len(words) <= limit:
        return words
    cut = words.rfind(" ", 0, limit)
    if cut < limit // 2:
        cut = limit - 1
    return words[:cut].rstrip() + "…"


_CONNECTION_MARKS = {
    ConnectionState.WAITING: "○",
    ConnectionState.CONNECTING: "◌",
    ConnectionState.AUTHENTICATING: "◌",
    ConnectionState.CONNECTED: "●",
    ConnectionState.CRASHED: "✗",
    ConnectionState.CLOSED: "○",
}


@dataclass(frozen=True, slots=True)
class SandboxInfo:
    """Whether and how the agent runs confined: the status line's part, the start screen's rows.

    Attributes:
        mechanism: the OS sandbox (``landlock``); ``""`` when the agent runs unconfined.
        abi: the Landlock ABI version the ruleset uses.
        write: the folders the agent may write, as shown (``~`` for home).
        deny: the paths it may not read, as shown.
        views: whether it reaches the user's other terminals and sockets by
            path (the private view's two lines, as ``-v`` says them).
        unconfined: why it runs unconfined (``""`` while confined).

    """

    mechanism: str = ""
    abi: int = 0
    write: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    views: tuple[str, ...] = ()
    unconfined: str = ""

    @classmethod
    def of(cls, confinement: Confinement | None, unconfined: str | None) -> SandboxInfo:
        """What a run's :attr:`~acphost.launch.Run.confinement` (or why none) shows as.

        The run's private temporary folder shows as ``private temp ($TMPDIR)``:
        its name is random and it is removed when the run ends.
        """
        if confinement is None:
            return cls(unconfined=unconfined or "no OS sandbox")
        write = tuple(
            "private temp ($TMPDIR)" if path == confinement.temp else home_relative(path)
            for path in confinement.write
        )
        return cls(
            mechanism=confinement.mechanism,
            abi=confinement.abi,
            write=write,
            deny=tuple(home_relative(path) for path in confinement.deny),
            views=tuple(confinement.views()),
        )

    @property
    def confined(self) -> bool:
        """Whether the agent runs in an OS sandbox."""
        return bool(self.mechanism)

    @property
    def short(self) -> str:
        """The status line's part: ``sandbox: landlock 7``, or ``unconfined``."""
        return f"sandbox: {self.mechanism} {self.abi}" if self.confined else "unconfined"

    def rows(self) -> list[tuple[str, str]]:
        """``(label, text)`` rows for the start screen: how, what it writes, what it cannot read."""
        if not self.confined:
            return [("sandbox", f"none: the agent runs unconfined ({self.unconfined})")]
        how = f"{self.mechanism} (ABI {self.abi}): the agent and every process it starts"
        rows = [
            ("sandbox", how),
            ("writes", ", ".join(self.write) or "nothing"),
            ("no reads", ", ".join(self.deny) or "nothing withheld"),
        ]
        for line in self.views:
            label, _, text = line.partition(": ")
            rows.append((label, text))
        return rows


@dataclass(frozen=True, slots=True)
class ProtocolInfo:
    """The ACP protocol version the connection agreed on, and what the run asked for.

    Attributes:
        agreed: the version ``initialize`` settled (1 or 2).
        asked: what the run asked for: 1, 2 or ``auto``.

    """

    agreed: int
    asked: int | str

    @property
    def usual(self) -> bool:
        """Protocol 1 asked and agreed, the default: the status line need not say it."""
        return self.agreed == 1 and self.asked == 1

    @property
    def short(self) -> str:
        """The status line's part: ``ACP 2``, or ``ACP 1 (asked auto)`` when it fell back."""
        expected = self.asked == self.agreed or (self.asked == "auto" and self.agreed == 2)
        return f"ACP {self.agreed}" + ("" if expected else f" (asked {self.asked})")

    @property
    def text(self) -> str:
        """The start screen's words: ``protocol 2 (asked: auto)``."""
        return f"protocol {self.agreed} (asked: {self.asked})"


@dataclass(slots=True)
class StatusInfo:
    """What the status bar shows. Names, versions and titles are the agent's (raw)."""

    agent: str = ""
    version: str = ""
    connection: ConnectionState = ConnectionState.CONNECTING
    title: str = ""
    mode: str = ""
    model: str = ""
    usage: str = ""
    budgeted: bool = False
    stop_reason: str = ""
    busy: bool = False
    cancelling: bool = False
    pending_asks: int = 0
    subagents: int = 0
    subagents_cancellable: bool = False
    sandbox: SandboxInfo | None = None
    protocol: ProtocolInfo | None = None

    def parts(self) -> list[tuple[str, str]]:
        """``(text, style-name)`` segments, most important first.

        The connection shows as a mark that reads without colour (NO_COLOR):
        ``●`` connected, ``◌`` connecting or authenticating, ``✗`` crashed,
        ``○`` closed, followed by the state's name unless connected. Then the
        questions waiting for the user, the turn's state, the subagents
        running (children may go on after a turn), mode and model,
        context usage, the OS sandbox, the protocol version (unless it is
        the default, 1 asked and agreed) and the session title; under a budget,
        usage comes before mode and model (it is what the user watches then).
        An agent that runs unconfined says so early, right after the
        questions waiting: it is a warning, not a detail.
        """
        out: list[tuple[str, str]] = []
        mark = _CONNECTION_MARKS[self.connection]
        agent = f"{mark} {self.agent} {self.version}".rstrip()
        if self.connection is not ConnectionState.CONNECTED:
            agent += f" {self.connection.value}"
        out.append((agent, self.connection.value))
        if self.pending_asks:
            n = self.pending_asks
            out.append((f"⚠ {n} waiting for you", "warn"))
        sandbox = self.sandbox
        if sandbox is not None and not sandbox.confined:
            out.append((sandbox.short, "unconfined"))
        if self.cancelling:
            out.append(("cancelling…", "busy"))
        elif self.busy:
            out.append(("working… (Esc cancels)", "busy"))
        elif self.stop_reason:
            out.append((f"stop: {self.stop_reason}", "stop"))
        if self.subagents:
            n = self.subagents
            running = f"◐ {n} subagent{'s' if n != 1 else ''} running"
            hint = not self.busy and self.subagents_cancellable
            out.append((f"{running} (Esc cancels)" if hint else running, "busy"))
        setup = " · ".join(x for x in (self.mode, self.model) if x)
        if self.usage and self.budgeted:
            out.append((self.usage, "plain"))
        if setup:
            out.append((setup, "plain"))
        if self.usage and not self.budgeted:
            out.append((self.usage, "plain"))
        if sandbox is not None and sandbox.confined:
            out.append((sandbox.short, "plain"))
        if self.protocol is not None and not self.protocol.usual:
            out.append((self.protocol.short, "plain"))
        if self.title:
            out.append((self.title, "title"))
        return out


SEPARATOR = " │ "


def fit_parts(parts: list[tuple[str, str]], width: int) -> list[tuple[str, str]]:
    """The parts that fit in ``width`` columns, in order, dropping the least important.

    The first part (the agent and its connection) always stays, cut with an
    ellipsis when even it is too wide; every later part is kept whole if it
    still fits after the ones kept before it, else left out.
    """
    if not parts:
        return []
    first_text, first_style = parts[0]
    kept = [
        (
            first_text if len(first_text) <= width else first_text[: max(width - 1, 0)] + "…",
            first_style,
        )
    ]
    used = len(kept[0][0])
    for text, style in parts[1:]:
        need = len(SEPARATOR) + len(text)
        if used + need <= width:
            kept.append((text, style))
            used += need
    return kept


@dataclass(slots=True)
class StartInfo:
    """What the start screen shows before (and above) the first conversation.

    Attributes:
        agent: the agent's name (its own ``agentInfo`` title or name once known).
        version: its version, once known.
        source: where the agent comes from (``built-in``, a settings file...).
        connection: the connection's state.
        auth: the authentication state, in words.
        workspace: the workspace directory.
        access: what the agent may do without asking, in words.
        hint: how to begin (the demo suggests its tour).
        choices: the configured agents to pick from (when there are several
            and none was named on the command line).
        sandbox: whether and how the agent runs confined (None until it starts).
        protocol: the protocol version agreed and asked (None until it connects).

    """

    agent: str
    version: str = ""
    source: str = ""
    connection: ConnectionState = ConnectionState.CONNECTING
    auth: str = ""
    workspace: str = ""
    access: str = ""
    hint: str = ""
    choices: list[tuple[str, str]] = field(default_factory=list)
    sandbox: SandboxInfo | None = None
    protocol: ProtocolInfo | None = None


# -- config options --------------------------------------------------------------


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
