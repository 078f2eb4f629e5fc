"""Dates and ages the history's commands accept (``--since``, ``--until``, ``--older-than``)."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone

from ._model import MAX_TIME, MIN_TIME

__all__ = ["parse_age", "parse_when", "time_before"]

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
    try:
        return timedelta(**{_UNITS[match.group(2).lower()]: int(match.group(1))})
    except OverflowError:  # past timedelta's range: older than any time there is
        return timedelta.max


def time_before(age: timedelta, now: datetime | None = None) -> str:
    """The time ``age`` before now, in the store's form; the earliest one when that is earlier.

    ``--older-than 1000000d`` names a time before the year 1: nothing is that old.
    """
    current = now if now is not None else datetime.now(timezone.utc)
    try:
        return _utc(current - age)
    except OverflowError:
        return MIN_TIME


def _utc(moment: datetime) -> str:
    """``moment`` in the store's form, clamped to the years 1 to 9999 in UTC.

    A local time at the edge of ``datetime``'s range (``0001-01-01T00:00+01:00``,
    ``9999-12-31T23:59-01:00``) has no UTC time; it stands for the edge.
    """
    try:
        return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    except OverflowError:
        return MIN_TIME if moment.year == 1 else MAX_TIME


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
        return time_before(parse_age(word), current)
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
            if day == date.max:  # the day after the last one: the end of time
                return MAX_TIME
            day += timedelta(days=1)
        return _utc(_local(datetime.combine(day, time())))
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{text!r} is not a date: use 2026-05-01, 2026-05-01T14:30, today, yesterday "
            "or an age such as 7d or 12h"
        ) from None
    if moment.tzinfo is None:
        moment = _local(moment)
    return _utc(moment)


def _local(moment: datetime) -> datetime:
    """A naive time as local time; at the edge of the range, UTC (an edge stays an edge)."""
    try:
        return moment.astimezone()
    except (OverflowError, ValueError):  # "year 0 is out of range", as the zone is looked up
        return moment.replace(tzinfo=timezone.utc)
