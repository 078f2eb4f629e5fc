"""Redaction of secrets in frames before they are written to a trace or shown.

What counts as a secret (seeds/000 §16: "redact sensitive fields when showing
in UI/logs"):

- the string value of any key that looks like a credential: ``token``,
  ``secret``, ``password``, ``api_key``/``apiKey``, ``authorization``,
  ``cookie``, ``credential``, ``private_key``... (case-insensitive, anywhere in
  the name; numbers such as ``inputTokens`` counts are kept);
- every value of an ``env`` map, and the ``value`` of ``{name, value}`` items
  in ``env`` and ``headers`` lists (MCP server configs, terminal env);
- strings that look like well-known key formats (``sk-…``, ``ghp_…``,
  ``AKIA…``, ``Bearer …``), wherever they appear;
- anything matching extra patterns the caller adds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["REDACTED", "Redactor"]

REDACTED = "[REDACTED]"

_SECRET_KEY = re.compile(
    r"(token|secret|passw(or)?d|api[_-]?key|authorization|cookie|credential|private[_-]?key|"
    r"session[_-]?key|access[_-]?key)",
    re.IGNORECASE,
)
_SECRET_VALUE = re.compile(
    r"(\bsk-[A-Za-z0-9_-]{16,}|\bghp_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}|"
    r"\bAKIA[0-9A-Z]{16}\b|\bxox[baprs]-[A-Za-z0-9-]{10,}|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}|"
    r"\bAIza[0-9A-Za-z_-]{30,})"
)


class Redactor:
    """Replaces secrets in decoded JSON values (see the module docstring).

    Args:
        key_patterns: extra regular expressions; keys matching any are redacted.
        value_patterns: extra regular expressions; matching substrings of any
            string are redacted.
    """

    def __init__(
        self, key_patterns: Iterable[str] = (), value_patterns: Iterable[str] = ()
    ) -> None:
        keys = [_SECRET_KEY.pattern, *key_patterns]
        values = [_SECRET_VALUE.pattern, *value_patterns]
        self._key = re.compile("|".join(f"(?:{k})" for k in keys), re.IGNORECASE)
        self._value = re.compile("|".join(f"(?:{v})" for v in values))

    def __call__(self, value: Any) -> Any:
        """Return a redacted copy of ``value`` (the input is not modified)."""
        return self._walk(value, None)

    def _walk(self, value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            if key in ("env", "headers") and not _is_name_value(value):
                return {k: REDACTED for k in value}
            out: dict[str, Any] = {}
            for k, v in value.items():
                # Secrets are strings; a number under such a key is a count
                # (``inputTokens``, ``total_tokens``) and stays readable.
                if isinstance(v, str) and v and self._key.search(k):
                    out[k] = REDACTED
                else:
                    out[k] = self._walk(v, k)
            return out
        if isinstance(value, list):
            if key in ("env", "headers"):
                return [self._name_value(item) for item in value]
            return [self._walk(item, None) for item in value]
        if isinstance(value, str):
            return self._value.sub(REDACTED, value)
        return value

    def _name_value(self, item: Any) -> Any:
        if isinstance(item, dict) and "value" in item:
            return {**item, "value": REDACTED}
        return self._walk(item, None)


def _is_name_value(value: dict[str, Any]) -> bool:
    return set(value) <= {"name", "value", "_meta"} and "value" in value
