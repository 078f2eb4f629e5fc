"""The unstable ACP types: opt-in protocol features that may change in any release.

Generated from ``schema/v1/schema.unstable.json`` into ``_unstable.py`` (see
``tools/gen_schema.py``). Importing :mod:`acphost.schema` does not load this
module; import it where the user opted in to unstable features (the client's
``unstable=True``), e.g.::

    from acphost.schema import UNSTABLE_SESSION_FORK, unstable

    request = unstable.ForkSessionRequest(session_id=sid, cwd=cwd)
    response = unstable.ForkSessionResponse.from_wire(result)

A type the unstable schema defines exactly as the stable one is the stable class
itself (``unstable.AgentMessageChunk is acphost.schema.AgentMessageChunk``);
a type it extends (``ClientCapabilities``, ``SessionCapabilities``,
``SessionUpdate``, ``NewSessionRequest``, ...) is a separate class here, so the
stable classes never encode unstable fields. Variants neither schema knows
still decode to the stable ``Unknown*`` classes with their raw data.
"""

from acphost.schema import _unstable
from acphost.schema._unstable import *  # noqa: F403

__all__ = list(_unstable.__all__)
