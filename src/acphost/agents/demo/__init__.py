"""The acphost demo agent: a deterministic, scripted ACP agent process.

Run it with ``python -m acphost.agents.demo``; it speaks ACP (protocol version 1)
on stdin/stdout, needs no model and no network, and uses only the standard
library. The first word of a prompt picks a script (``echo``, ``plan``, ``tool``,
``permission``, ``stream 200``, ...); anything else runs a tour. See
``docs/DEMO.md`` for the keywords and the ``ACPHOST_DEMO_*`` environment variables.

This package imports nothing at import time: the agent lives in private modules
loaded by ``__main__``.
"""

__all__: list[str] = []
