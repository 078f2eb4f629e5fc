"""Dates and ages the history's commands accept (``--since``, ``--until``, ``--older-than``)."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone

__all__ = ["parse_age", "parse_when"]

_AGE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$", re.IGNORECASE)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_age(text: str) -> timedelta:
    """An age such as ``30d``, ``12h``, ``2w``, ``90m`` or ``45s``.

    Raises:
        ValueError: not an age; the message shows the accepted forms.

    """
    match = _AGE.match(text)
    if match is None:
        raise ValueError(
            f"{text!r} is not an age: use a number and a unit, e.g. 30d, 12h, 2w, 90m, 45s"
        )
    return timedelta(**{_UNITS[match.group(2).lower()]: int(match.group(1))})


def _utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def parse_when(text: str, *, end_of_day: bool = False, now: datetime | None = None) -> str:
    """A point in time as the store writes times (ISO 8601, UTC).

    Accepted: an age before now (``7d``, ``12h``), ``today``, ``yesterday``,
    a date (``2026-05-01``: local midnight, or the midnight after it with
    ``end_of_day``, so ``--until 2026-05-01`` includes that day), or an ISO 8601
    time (``2026-05-01T14:30``; local when it has no offset).

    Args:
        text: what the user typed.
        end_of_day: a bare date means the end of that day.
        now: the current time (default: now).

    Returns:
        The time in the store's form.

    Raises:
        ValueError: none of the accepted forms; the message lists them.

    """
    current = now if now is not None else datetime.now().astimezone()
    word = text.strip().lower()
    if _AGE.match(word):
        return _utc(current - parse_age(word))
    day: date | None = None
    if word in ("today", "yesterday"):
        day = current.date() - timedelta(days=1 if word == "yesterday" else 0)
    elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", word):
        try:
            day = date.fromisoformat(word)
        except ValueError:
            day = None
    if day is not None:
        if end_of_day:
            day += timedelta(days=1)
        return _utc(datetime.combine(day, time()).astimezone())
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{text!r} is not a date: use 2026-05-01, 2026-05-01T14:30, today, yesterday "
            "or an age such as 7d or 12h"
        ) from None
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return _utc(moment)
