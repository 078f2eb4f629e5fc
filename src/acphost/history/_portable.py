"""Reading records back from their JSON form (an export), checking every field.

A wrong or missing field is a :class:`~acphost.history.HistoryError` whose
message names it (``file.jsonl:3.tool_calls[0].title: expected str, got int``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._errors import HistoryError
from ._model import (
    PermissionRecord,
    SessionRecord,
    ToolCallRecord,
    TurnRecord,
    Usage,
    fit_amount,
    fit_count,
    import_time,
    normalize_time,
    protocol_record,
    sandbox_record,
)

__all__ = ["session_from_json", "turn_from_json"]


class _Fields:
    """Typed access to one JSON object, with the path of each field for messages."""

    def __init__(self, data: Any, where: str, latest: str | None = None) -> None:
        if not isinstance(data, Mapping):
            raise HistoryError(f"{where}: expected an object, got {type(data).__name__}")
        self.data = data
        self.where = where
        self.latest = latest  # imported: times are checked against this bound

    def _get(self, key: str, types: tuple[type, ...], required: bool) -> Any:
        if key not in self.data or self.data[key] is None:
            if required:
                raise HistoryError(f"{self.where}.{key}: missing")
            return None
        value = self.data[key]
        if isinstance(value, bool) and bool not in types:
            raise HistoryError(f"{self.where}.{key}: expected {types[0].__name__}, got bool")
        if not isinstance(value, types):
            raise HistoryError(
                f"{self.where}.{key}: expected {types[0].__name__}, got {type(value).__name__}"
            )
        return value

    def text(self, key: str) -> str:
        value: str = self._get(key, (str,), True)
        return value

    def opt_str(self, key: str) -> str | None:
        value: str | None = self._get(key, (str,), False)
        return value

    def opt_int(self, key: str) -> int | None:
        value: int | None = self._get(key, (int,), False)
        return value

    def opt_float(self, key: str) -> float | None:
        value = self._get(key, (float, int), False)
        return None if value is None else float(value)

    def time(self, key: str, required: bool = True) -> str | None:
        value = self._get(key, (str,), required)
        if value is None or (value == "" and not required):
            return None  # "" is how a record without the time is written back
        try:
            if self.latest is not None:
                return import_time(value, self.latest)
            return normalize_time(value)
        except ValueError as exc:
            problem = _time_problem(value, exc, self.latest is not None)
            raise HistoryError(f"{self.where}.{key}: {problem}") from None

    def objects(self, key: str) -> list[_Fields]:
        items = self._get(key, (list,), False) or []
        return [
            _Fields(item, f"{self.where}.{key}[{i}]", self.latest) for i, item in enumerate(items)
        ]

    def dicts(self, key: str) -> tuple[dict[str, Any], ...]:
        # The decoder's own dicts, kept as they are: an import holds a turn of
        # many thousands, so neither a wrapper nor a copy is made per item.
        items = self._get(key, (list,), False) or []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise HistoryError(
                    f"{self.where}.{key}[{i}]: expected an object, got {type(item).__name__}"
                )
        return tuple(items)


def _time_problem(value: str, exc: ValueError, imported: bool) -> str:
    text = str(exc)
    if not text.startswith(repr(value)):  # datetime's words: not a time at all
        return f"not an ISO 8601 time: {value!r}"
    if imported:  # our own words: out of range, or no offset
        return f"{text} (an imported time has its UTC offset and lies between 1970 and tomorrow)"
    return text


def _usage(f: _Fields | None) -> Usage:
    # Usage is the agent's report: a value the store cannot keep (negative,
    # fractional, past 2**63, not finite) is unknown, as when it was recorded.
    if f is None:
        return Usage()
    d = f.data
    currency = d.get("cost_currency")
    return Usage(
        input=fit_count(d.get("input")),
        output=fit_count(d.get("output")),
        thought=fit_count(d.get("thought")),
        cached_read=fit_count(d.get("cached_read")),
        cached_write=fit_count(d.get("cached_write")),
        total=fit_count(d.get("total")),
        context_used=fit_count(d.get("context_used")),
        context_size=fit_count(d.get("context_size")),
        cost_amount=fit_amount(d.get("cost_amount")),
        cost_currency=currency if isinstance(currency, str) else None,
    )


def turn_from_json(data: Any, where: str = "turn", *, latest: str | None = None) -> TurnRecord:
    """Read a turn back from its JSON object.

    Args:
        data: the object.
        where: its place in the file, for messages.
        latest: for an import, the latest time accepted
            (:func:`~acphost.history._model.import_latest`): every time must
            then carry its offset and lie between 1970 and ``latest``.

    Raises:
        HistoryError: a field is missing or of the wrong type (the message names it).

    """
    f = _Fields(data, where, latest)
    seq = f.opt_int("seq")
    if seq is None or seq < 1:
        raise HistoryError(f"{where}.seq: expected a positive integer")
    calls = tuple(
        ToolCallRecord(
            tool_call_id=c.text("tool_call_id"),
            title=c.opt_str("title") or "",
            kind=c.opt_str("kind"),
            name=c.opt_str("name"),
            status=c.opt_str("status"),
            locations=c.dicts("locations"),
            diffs=c.dicts("diffs"),
        )
        for c in f.objects("tool_calls")
    )
    permissions = tuple(
        PermissionRecord(
            tool_call_id=p.opt_str("tool_call_id"),
            title=p.opt_str("title") or "",
            decision=p.text("decision"),
            option_kind=p.opt_str("option_kind"),
            option_id=p.opt_str("option_id"),
            at=p.time("at", required=False) or "",
        )
        for p in f.objects("permissions")
    )
    usage = f.data.get("usage")
    return TurnRecord(
        seq=seq,
        started_at=f.time("started_at") or "",
        prompt=f.opt_str("prompt") or "",
        ended_at=f.time("ended_at", required=False),
        prompt_blocks=f.dicts("prompt_blocks"),
        text=f.opt_str("text") or "",
        events=f.dicts("events"),
        stop_reason=f.opt_str("stop_reason"),
        host_stop=f.opt_str("host_stop"),
        error=f.opt_str("error"),
        complete=bool(f.data.get("complete", True)),
        tool_calls=calls,
        permissions=permissions,
        usage=_usage(None if usage is None else _Fields(usage, f"{where}.usage")),
    )


def session_from_json(
    data: Any, where: str = "session", *, latest: str | None = None
) -> SessionRecord:
    """Read a session back from its JSON object (with or without its turns).

    Args:
        data: the object.
        where: its place in the file, for messages.
        latest: for an import, the latest time accepted (see :func:`turn_from_json`).

    Raises:
        HistoryError: a field is missing or of the wrong type (the message names it).

    """
    f = _Fields(data, where, latest)
    sid = f.text("id").lower()
    if len(sid) < 8 or any(c not in "0123456789abcdef" for c in sid):
        raise HistoryError(f"{where}.id: expected hexadecimal digits, got {sid!r}")
    command = f.data.get("command") or []
    if not isinstance(command, list) or not all(isinstance(a, str) for a in command):
        raise HistoryError(f"{where}.command: expected a list of strings")
    usage = f.data.get("usage")
    turns = tuple(turn_from_json(t.data, t.where, latest=latest) for t in f.objects("turns"))
    return SessionRecord(
        id=sid,
        agent=f.text("agent"),
        command=tuple(command),
        cwd=f.text("cwd"),
        started_at=f.time("started_at") or "",
        agent_session_id=f.opt_str("agent_session_id"),
        title=f.opt_str("title"),
        ended_at=f.time("ended_at", required=False),
        origin=f.opt_str("origin") or "recorded",
        usage=_usage(None if usage is None else _Fields(usage, f"{where}.usage")),
        turns=turns,
        system_prompt=f.opt_str("system_prompt"),
        sandbox=sandbox_record(f.data.get("sandbox")),
        protocol=protocol_record(f.data.get("protocol")),
    )
