"""Budget limits as users write them: ``--max-cost 0.50``, ``"max_cost": "2 EUR"`` in settings.

ACP reports cost as an amount and an ISO 4217 currency code (schema
``Cost``). A limit is an amount, optionally followed by the currency it is
counted in; without one, a cost reported in any currency counts.
"""

from __future__ import annotations

import math
import re

__all__ = ["parse_cost", "parse_tokens"]

_COST = re.compile(r"\s*(?P<amount>\d+(?:\.\d*)?|\.\d+)\s*(?P<currency>[A-Za-z]{3})?\s*")


def parse_cost(value: str | float | int) -> tuple[float, str | None]:
    """Read a cost limit: ``0.5``, ``"0.50"``, ``"2 EUR"``, ``"1.5USD"``.

    Args:
        value: a non-negative number, or a string holding one and an
            optional three-letter currency code.

    Returns:
        The amount and the currency (upper case), or None for any currency.

    Raises:
        ValueError: negative, not a number, not finite, or a malformed
            currency; the message says what is expected.

    """
    if isinstance(value, bool):
        raise ValueError(f"expected an amount such as 0.50 or '2 EUR', got {value!r}")
    if isinstance(value, (int, float)):
        amount = float(value)
        currency = None
    else:
        m = _COST.fullmatch(value)
        if m is None:
            raise ValueError(
                f"expected an amount such as 0.50 or '2 EUR' (a currency code of three "
                f"letters may follow), got {value!r}"
            )
        amount = float(m.group("amount"))
        code = m.group("currency")
        currency = code.upper() if code else None
    if not math.isfinite(amount) or amount < 0:
        raise ValueError(f"a cost limit must be a finite amount >= 0, got {value!r}")
    return amount, currency


def parse_tokens(value: str | int) -> int:
    """Read a token limit: a whole number >= 0 (``200000``, ``"200_000"`` or ``"200,000"``).

    Raises:
        ValueError: not a whole number, or negative.

    """
    if isinstance(value, bool):
        raise ValueError(f"expected a whole number of tokens, got {value!r}")
    if isinstance(value, int):
        number = value
    else:
        text = value.strip().replace("_", "").replace(",", "")
        if not text.isdigit():
            raise ValueError(f"expected a whole number of tokens, such as 200000, got {value!r}")
        number = int(text)
    if number < 0:
        raise ValueError(f"a token limit must be >= 0, got {value!r}")
    return number
