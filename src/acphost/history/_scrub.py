"""Secrets out before anything is stored: the one place the history calls the redactor.

Everything the recorder and the importer write passes :func:`scrub_turn` or
:func:`scrub_session`, which send the record's JSON form through the caller's
:class:`~acphost.trace.Redactor` (the same one traces and logs use) in one call.
An agent's command line gets one more rule: the value of an option whose name
looks secret (``--api-key X``, ``--token=X``, ``API_KEY=X``) is redacted too.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..redact import Redactor
from ._model import SessionRecord, TurnRecord, Usage
from ._portable import session_from_json, turn_from_json

__all__ = ["scrub_event", "scrub_session", "scrub_text", "scrub_title_and_usage", "scrub_turn"]

_ASSIGNMENT = re.compile(r"^(-{0,2}[A-Za-z_][A-Za-z0-9_.-]*)=(.*)$", re.DOTALL)


def _redact(redactor: Redactor, value: Any) -> Any:
    # The only call of the redactor in this package.
    return redactor(value)


def _argv_probe(argv: tuple[str, ...]) -> list[Any]:
    """Each argument, as the redactor should see it: named when an option names it."""
    probe: list[Any] = []
    for i, arg in enumerate(argv):
        match = _ASSIGNMENT.match(arg)
        previous = argv[i - 1] if i else ""
        if match is not None:
            probe.append({match.group(1).lstrip("-"): match.group(2)})
        elif previous.startswith("-") and "=" not in previous and len(previous) > 1:
            probe.append({previous.lstrip("-"): arg})
        else:
            probe.append(arg)
    return probe


def _argv_back(argv: tuple[str, ...], probe: list[Any], cleaned: list[Any]) -> tuple[str, ...]:
    out: list[str] = []
    for arg, before, after in zip(argv, probe, cleaned, strict=True):
        if isinstance(before, dict):
            ((_, value),) = after.items()
            if value == next(iter(before.values())):
                out.append(arg)
            elif _ASSIGNMENT.match(arg):
                out.append(arg[: len(arg) - len(next(iter(before.values())))] + value)
            else:
                out.append(value)
        else:
            out.append(after)
    return tuple(out)


def scrub_session(redactor: Redactor, record: SessionRecord) -> SessionRecord:
    """The session with every secret the redactor knows replaced, argv included.

    Args:
        redactor: the host's redactor.
        record: the session (its turns too).

    Returns:
        A redacted copy.

    """
    data = record.to_json()["session"]
    probe = _argv_probe(record.command)
    data["command"] = probe
    cleaned = _redact(redactor, data)
    cleaned["command"] = list(_argv_back(record.command, probe, cleaned["command"]))
    return session_from_json(cleaned)


def scrub_turn(redactor: Redactor, turn: TurnRecord) -> TurnRecord:
    """The turn with every secret the redactor knows replaced.

    Args:
        redactor: the host's redactor.
        turn: the turn.

    Returns:
        A redacted copy.

    """
    return turn_from_json(_redact(redactor, turn.to_json()))


def scrub_text(redactor: Redactor, text: str) -> str:
    """A text of a turn (a message or thought, or a part of one), redacted.

    Args:
        redactor: the host's redactor.
        text: the text.

    Returns:
        The text with every secret the redactor knows replaced.

    """
    return str(_redact(redactor, text))


def scrub_title_and_usage(
    redactor: Redactor, title: str | None, usage: Usage
) -> tuple[str | None, Usage]:
    """A session's title and usage, which the store keeps beside its turns, redacted.

    Both are the agent's words (``session_info_update``, the cost's currency).

    Args:
        redactor: the host's redactor.
        title: the session's title, if any.
        usage: the session's usage so far.

    Returns:
        Redacted copies.

    """
    if title is not None:
        title = str(_redact(redactor, title))
    if usage.cost_currency is not None:
        currency = str(_redact(redactor, usage.cost_currency))
        usage = dataclasses.replace(usage, cost_currency=currency)
    return title, usage


def scrub_event(redactor: Redactor, event: dict[str, Any]) -> dict[str, Any]:
    """One event of a turn (a subagent's, updated after its turn was written), redacted.

    Args:
        redactor: the host's redactor.
        event: the event's JSON object.

    Returns:
        A redacted copy.

    """
    cleaned: dict[str, Any] = _redact(redactor, event)
    return cleaned
