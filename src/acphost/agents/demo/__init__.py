"""The acphost demo agent: a deterministic, scripted ACP agent process.

Run it with ``python -m acphost.agents.demo``; it speaks ACP on stdin/stdout,
version 1 or the v2 draft as ``initialize`` negotiates (``ACPHOST_DEMO_PROTOCOL=1``
keeps it to 1), needs no model and no network, and uses only the standard
library. On v2 (and on v1 when offered) it reads, writes and runs commands
through the client's ``acphost`` MCP server. The first word of a prompt picks a
script (``echo``, ``plan``, ``tool``, ``permission``, ``stream 200``, ...);
anything else runs a tour. See
``docs/DEMO.md`` for the keywords and the ``ACPHOST_DEMO_*`` environment variables.

This package imports nothing at import time: the agent lives in private modules
loaded by ``__main__``.
"""

__all__: list[str] = []
