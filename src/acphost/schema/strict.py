"""Strict decoding of ``session/update`` lines from bytes, for the client's hot path.

Generated into ``_strict.py`` by ``tools/gen_schema.py``. It loads msgspec, so
:mod:`acphost.schema` does not import it; the client does::

    from acphost.schema.strict import decode_update_line

    try:
        session_id, update = decode_update_line(line)
    except Exception:
        ...  # decode the frame the general way (orjson, decode_session_update)

What it returns equals what the general way gives; it refuses (raises) every
line the general way would treat leniently, and every other frame.
``decode_update_lines`` does the same for a block of lines at once, all or
nothing (a chunk of a flood, without a Python call per line).
"""

from acphost.schema._strict import STRICT_VARIANTS, decode_update_line, decode_update_lines

__all__ = ["STRICT_VARIANTS", "decode_update_line", "decode_update_lines"]
