"""The records of the history: what a session, a turn, a tool call and a decision keep.

They are plain frozen dataclasses, written by the recorder and the importer,
read by the store, the transcript and the exports. Their JSON form
(:meth:`SessionRecord.to_json`) is the portable record that ``acphost
history export`` writes and ``import`` reads back (see ``_portable``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_AMOUNT",
    "MAX_COUNT",
    "IMPORT_EARLIEST",
    "IMPORT_SKEW",
    "MAX_TIME",
    "MIN_TIME",
    "TOKEN_KINDS",
    "PermissionRecord",
    "SessionRecord",
    "SessionSummary",
    "ToolCallRecord",
    "TurnRecord",
    "Usage",
    "fit_amount",
    "fit_count",
    "import_latest",
    "import_time",
    "normalize_time",
    "now",
]

#: The ``format`` marker of an exported record, and its version.
FORMAT = "acphost-history"
FORMAT_VERSION = 1

#: Token counts by kind, in the order they are shown.
TOKEN_KINDS = ("input", "output", "thought", "cached_read", "cached_write", "total")


def _plain(value: Any) -> Any:
    """A record as JSON values: dataclasses become objects, tuples lists (no deep copy)."""
    names = _FIELDS.get(type(value))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def now() -> str:
    """The current time as the store writes it: ISO 8601, UTC, milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def import_latest() -> str:
    """The latest time an import accepts now (store form): now plus :data:`IMPORT_SKEW`."""
    return (datetime.now(timezone.utc) + IMPORT_SKEW).isoformat(timespec="milliseconds")


#: The earliest and latest times the store's form can hold (``datetime``'s range, in UTC):
#: what a computed bound (``--until 9999-12-31``, ``--older-than 100000w``) is clamped to.
MIN_TIME = "0001-01-01T00:00:00.000+00:00"
MAX_TIME = "9999-12-31T23:59:59.999+00:00"

#: The range an imported time must lie in: from the Unix epoch to a day past now
#: (another machine's clock may run ahead, but a record "from the future" would
#: stay the newest, the one ``--continue`` takes, and escape ``prune``).
IMPORT_EARLIEST = "1970-01-01T00:00:00.000+00:00"
IMPORT_SKEW = timedelta(days=1)


def normalize_time(value: str) -> str:
    """An ISO 8601 time in the store's form (UTC, milliseconds), so times sort as text.

    Raises:
        ValueError: not an ISO 8601 date and time, or one whose UTC time falls
            outside the years 1 to 9999 (``9999-12-31T23:59:59-01:00``).

    """
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    except OverflowError:
        raise ValueError(f"{value!r} is outside the years 1 to 9999 in UTC") from None


def import_time(value: str, latest: str) -> str:
    """An imported time in the store's form, checked: with an offset, and within range.

    Args:
        value: the time as the file has it.
        latest: the latest time accepted (store form): now plus :data:`IMPORT_SKEW`.

    Raises:
        ValueError: not ISO 8601, without a UTC offset, before :data:`IMPORT_EARLIEST`
            or after ``latest`` (the message says which).

    """
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{value!r} has no UTC offset (acphost writes e.g. +00:00)")
    stored = normalize_time(value)
    if stored < IMPORT_EARLIEST:
        raise ValueError(f"{value!r} is before 1970")
    if stored > latest:
        raise ValueError(f"{value!r} is in the future")
    return stored


#: The largest count kept: SQLite's INTEGER is a signed 64-bit number (and
#: the ledger sums them, see ``StoreReads.usage_rows``).
MAX_COUNT = 2**63 - 1


def fit_count(value: Any) -> int | None:
    """A token count or window size as the store keeps it: None unless ``0 <= value <= 2**63-1``.

    The agent reports usage; a negative number, a float, a bool or a number
    past SQLite's INTEGER is recorded as unknown rather than failing the write.
    """
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    return None


#: The largest cost kept (of a turn or a session, in any unit): far above any real
#: cost, and low enough that the ledger's sums of them stay finite (a sum of
#: costs near the float maximum would be ``inf``, which JSON cannot hold).
MAX_AMOUNT = 1e15


def fit_amount(value: Any) -> float | None:
    """A cost as the store keeps it: None unless a number ``0 <= value <= MAX_AMOUNT``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            amount = float(value)
        except OverflowError:  # an int past the float range
            return None
        if 0 <= amount <= MAX_AMOUNT:  # False for NaN; inf is past the maximum
            return amount
    return None


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens by kind, the context window and the cost (any may be unknown: ``None``).

    Attributes:
        input: input tokens.
        output: output tokens.
        thought: reasoning tokens.
        cached_read: tokens read from the prompt cache.
        cached_write: tokens written to the prompt cache.
        total: all tokens.
        context_used: tokens in the context window at the end.
        context_size: the size of the context window.
        cost_amount: the cost (of the turn, or of the session).
        cost_currency: its unit: an ISO 4217 code or e.g. ``credits``.

    """

    input: int | None = None
    output: int | None = None
    thought: int | None = None
    cached_read: int | None = None
    cached_write: int | None = None
    total: int | None = None
    context_used: int | None = None
    context_size: int | None = None
    cost_amount: float | None = None
    cost_currency: str | None = None

    @property
    def empty(self) -> bool:
        """True when nothing is known."""
        return all(getattr(self, f.name) is None for f in dataclasses.fields(self))

    def tokens(self) -> dict[str, int]:
        """The token counts that are known, by kind."""
        return {k: v for k in TOKEN_KINDS if (v := getattr(self, k)) is not None}


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call as it ended.

    Attributes:
        tool_call_id: the agent's id.
        title: its title.
        kind: ``read``, ``edit``, ``execute``... (``None``: not sent).
        name: the agent's own tool name, when its ``_meta`` names one.
        status: the last status (``cancelled`` when the turn was cancelled under it).
        locations: ``{"path", "line"}`` objects.
        diffs: ``{"path", "old_text", "new_text"}`` objects (``old_text`` ``None``: a new file).

    """

    tool_call_id: str
    title: str = ""
    kind: str | None = None
    name: str | None = None
    status: str | None = None
    locations: tuple[dict[str, Any], ...] = ()
    diffs: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class PermissionRecord:
    """One answer to ``session/request_permission``.

    Attributes:
        tool_call_id: the tool call it was about.
        title: the tool call's title.
        decision: ``allow``, ``reject`` or ``cancelled``.
        option_kind: the chosen option's kind (``allow_once``...), if any.
        option_id: the chosen option's id, if any.
        at: when it was answered.

    """

    tool_call_id: str | None
    title: str
    decision: str
    option_kind: str | None = None
    option_id: str | None = None
    at: str = ""


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One prompt turn.

    Attributes:
        seq: its number in the session, from 1.
        started_at: when the prompt was sent.
        prompt: the prompt's text.
        ended_at: when the turn ended (``None``: it never did).
        prompt_blocks: the prompt's content blocks (wire form).
        text: the agent's final message text.
        events: what the turn showed, in order: ``{"kind": "text"|"thought",
            "text"}``, ``{"kind": "tool", "id"}``, ``{"kind": "plan", "entries"}``,
            ``{"kind": "media", "text"}``, ``{"kind": "subagent", "id", "label",
            "description", "activity", "stop_reason", "text", "tools"}`` (a
            child session the agent ran: see ``acphost.history._children``).
        stop_reason: the agent's ``stopReason``.
        host_stop: why the host stopped the turn (``interrupted``, a budget...).
        error: how the turn failed, when it did.
        complete: False while the turn runs; a turn still False in the store
            was cut short by the host's death.
        tool_calls: the turn's tool calls.
        permissions: the turn's permission decisions.
        usage: the turn's tokens, context window and cost.

    """

    seq: int
    started_at: str
    prompt: str
    ended_at: str | None = None
    prompt_blocks: tuple[dict[str, Any], ...] = ()
    text: str = ""
    events: tuple[dict[str, Any], ...] = ()
    stop_reason: str | None = None
    host_stop: str | None = None
    error: str | None = None
    complete: bool = False
    tool_calls: tuple[ToolCallRecord, ...] = ()
    permissions: tuple[PermissionRecord, ...] = ()
    usage: Usage = field(default_factory=Usage)

    def to_json(self) -> dict[str, Any]:
        """The turn as a JSON object."""
        return _plain(self)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One session as the history keeps it.

    Attributes:
        id: the history's id (32 hex digits; abbreviable).
        agent: the agent's name.
        command: the agent's argv, secrets redacted.
        cwd: the session's working directory.
        started_at: when it was opened.
        agent_session_id: the agent's session id (for ``session/load``/``resume``).
        title: the title the agent gave it.
        ended_at: when it was closed (``None``: never closed cleanly).
        origin: ``recorded`` or ``imported``.
        system_prompt: the system prompt the host gave the session, if any.
        sandbox: the OS sandbox the agent ran in (see :func:`sandbox_record`);
            None when the record does not say (older records).
        protocol: the ACP protocol version the session was spoken in (1 or 2;
            see :func:`protocol_record`); None when the record does not say.
        usage: the context window, and what this run of the session cost: its
            turns' sum, as are the token totals (the agent's cumulative cost
            counts earlier runs of the same agent session too).
        turns: its turns, in order.

    """

    id: str
    agent: str
    command: tuple[str, ...]
    cwd: str
    started_at: str
    agent_session_id: str | None = None
    title: str | None = None
    ended_at: str | None = None
    origin: str = "recorded"
    system_prompt: str | None = None
    sandbox: dict[str, Any] | None = None
    protocol: int | None = None
    usage: Usage = field(default_factory=Usage)
    turns: tuple[TurnRecord, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The portable record: ``{"format", "version", "session": {...}}``."""
        session = _plain(self)
        return {"format": FORMAT, "version": FORMAT_VERSION, "session": session}

    def header_json(self) -> dict[str, Any]:
        """The session's fields without its turns (a JSONL export's first line)."""
        data: dict[str, Any] = _plain(dataclasses.replace(self, turns=()))
        del data["turns"]
        return data

    def token_totals(self) -> Usage:
        """The sums of the turns' token counts (``None`` where no turn reported a kind)."""
        sums: dict[str, int] = {}
        for turn in self.turns:
            for kind, value in turn.usage.tokens().items():
                sums[kind] = sums.get(kind, 0) + value
        get = sums.get
        return Usage(
            input=get("input"),
            output=get("output"),
            thought=get("thought"),
            cached_read=get("cached_read"),
            cached_write=get("cached_write"),
            total=get("total"),
        )


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of ``acphost history list``.

    Attributes:
        id: the history id.
        agent: the agent's name.
        cwd: the working directory.
        title: the agent's title, if any.
        started_at: when it was opened.
        ended_at: when it was closed, if it was.
        agent_session_id: the agent's session id.
        turns: how many turns it has.
        first_prompt: the first turn's prompt text.
        total_tokens: all tokens of its turns, when reported.
        cost_amount: what this run of the session cost (its turns' sum), when reported.
        cost_currency: the cost's unit.
        incomplete: how many turns were cut short.
        origin: ``recorded`` (a run on this machine) or ``imported``.

    """

    id: str
    agent: str
    cwd: str
    title: str | None
    started_at: str
    ended_at: str | None
    agent_session_id: str | None
    turns: int
    first_prompt: str
    total_tokens: int | None
    cost_amount: float | None
    cost_currency: str | None
    incomplete: int
    origin: str = "recorded"

    def to_json(self) -> dict[str, Any]:
        """The row as JSON (``cost`` is ``{currency: amount}`` or ``null``)."""
        data: dict[str, Any] = _plain(self)
        amount, currency = data.pop("cost_amount"), data.pop("cost_currency")
        data["cost"] = None if amount is None else {currency or "": amount}
        return data


# The field names of each record class, for :func:`_plain`.
_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in dataclasses.fields(cls))
    for cls in (Usage, ToolCallRecord, PermissionRecord, TurnRecord, SessionRecord, SessionSummary)
}


#: The most paths a recorded sandbox keeps of each list.
SANDBOX_PATHS = 256


def sandbox_record(value: Any) -> dict[str, Any] | None:
    """A recorded sandbox, checked: what a record read from disk (or imported) may say.

    ``{"mechanism": "landlock", "abi": 7, "write": [...], "deny": [...],
    "namespace": "private"}`` for a confined agent (``namespace``: whether it
    had its own view of terminals and sockets, or ``"none: why"``),
    ``{"mechanism": "none", "reason": "..."}`` for one that ran unconfined.
    Only these keys, of these types, are kept (strings and lists bounded);
    anything else gives None: a record is data, never trusted as is.
    """
    if not isinstance(value, dict):
        return None
    mechanism = value.get("mechanism")
    if not isinstance(mechanism, str) or not mechanism or len(mechanism) > 32:
        return None
    kept: dict[str, Any] = {"mechanism": mechanism}
    abi = value.get("abi")
    if type(abi) is int and 0 <= abi < 1000:
        kept["abi"] = abi
    for key in ("write", "deny"):
        paths = value.get(key)
        if isinstance(paths, list):
            kept[key] = [p[:4096] for p in paths[:SANDBOX_PATHS] if isinstance(p, str)]
    for key in ("reason", "namespace"):
        text = value.get(key)
        if isinstance(text, str):
            kept[key] = text[:1000]
    return kept


#: The largest protocol version a record may say: ``protocolVersion`` is a
#: uint16 (schema ``ProtocolVersion``), and a record is data, never trusted as is.
MAX_PROTOCOL = 0xFFFF


def protocol_record(value: Any) -> int | None:
    """A recorded protocol version, checked: a whole number 1..65535, else None ("not said")."""
    if type(value) is int and 1 <= value <= MAX_PROTOCOL:
        return value
    return None
