"""The strict decoder (``acphost.schema.strict``) against the general decoding.

The client reads each ``session/update`` line with ``decode_update_line`` first
and decodes it the general way (orjson, then the generated decoders) when that
raises. Whatever the strict decoder returns must equal what the general way
gives, type for type and number for number; everything else it must refuse.
These tests feed both the examples, every member of them altered in many ways,
and a seeded random stream of alterations, and count that both outcomes occur.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import orjson
import pytest
from schema_examples import CONTENT_BLOCKS, SESSION_UPDATES

from acphost import schema as s
from acphost.schema.strict import STRICT_VARIANTS, decode_update_line, decode_update_lines

REFUSED = object()
LENIENT = object()  # the general way kept the update as Unknown (it was malformed)

ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 7, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30,
    1.0, 1.5, -0.0, 1e300, 5e-324, "", "x", "\u00e9\U0001f600", "\x00", [], [1, "a"], {},
    {"a": {"b": [None, 1.25, 10**25]}}, {"type": "text", "text": "t"},
]


def frame(update: Any, **extra: Any) -> bytes:
    # json, not orjson: it writes integers of any size, as an agent may.
    msg = {"jsonrpc": "2.0", "method": "session/update",
           "params": {"sessionId": "sess_1", "update": update}, **extra}
    return json.dumps(msg).encode()


def general(line: bytes) -> Any:
    """What the client gets from a line without the strict decoder (see Peer)."""
    try:
        msg = orjson.loads(line)
    except orjson.JSONDecodeError:
        return REFUSED
    params = msg.get("params") if isinstance(msg, dict) else None
    if not isinstance(params, dict) or "id" in msg or msg.get("method") != "session/update":
        return REFUSED
    sid, raw = params.get("sessionId"), params.get("update")
    if not isinstance(sid, str) or not isinstance(raw, dict):
        return REFUSED
    try:
        return sid, s.decode_session_update(raw, "update")
    except s.SchemaError:
        return LENIENT


def strict(line: bytes) -> Any:
    try:
        return decode_update_line(line)
    except Exception:
        return REFUSED


def shown(value: Any) -> str:
    """A rendering that tells 1 from 1.0 and one class from another."""
    return repr(value) + json.dumps(value[1].to_wire()) + type(value[1]).__name__


class Tally:
    def __init__(self) -> None:
        self.agreed = 0
        self.refused = 0

    def check(self, line: bytes) -> None:
        fast = strict(line)
        if fast is REFUSED:
            self.refused += 1
            return
        slow = general(line)
        assert slow is not REFUSED and slow is not LENIENT, (line, fast)
        assert fast == slow, line
        assert shown(fast) == shown(slow), line
        self.agreed += 1


def test_every_strict_variant_decodes_as_the_general_way() -> None:
    seen = set()
    updates = SESSION_UPDATES + [
        {"sessionUpdate": "agent_message_chunk", "content": block} for block in CONTENT_BLOCKS
    ]
    for update in updates:
        line = frame(update)
        kind = update["sessionUpdate"]
        fast = strict(line)
        if kind not in STRICT_VARIANTS:
            assert fast is REFUSED, kind
            continue
        assert fast is not REFUSED, update
        assert fast == general(line)
        assert shown(fast) == shown(general(line))
        seen.add(kind)
    assert seen == STRICT_VARIANTS
    # Patch semantics (UNSET) are the general way's alone.
    assert "compaction_update" not in STRICT_VARIANTS


def test_a_chunk_decodes_to_the_public_classes() -> None:
    sid, update = decode_update_line(
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",'
        b'"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}'
    )
    assert sid == "s"
    assert type(update) is s.AgentMessageChunk
    assert type(update.content) is s.TextContentBlock
    assert update == s.AgentMessageChunk(content=s.TextContentBlock(text="hi"))
    assert update.extra is None and update.meta is None and update.message_id is None
    with pytest.raises(AttributeError):
        update.content = s.TextContentBlock(text="x")  # type: ignore[misc]


def objects(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every JSON object inside ``value``."""
    out = []
    if isinstance(value, dict):
        out.append(path)
        for k, v in value.items():
            out += objects(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += objects(v, (*path, i))
    return out


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def test_altered_members_are_refused_or_decoded_alike() -> None:
    tally = Tally()
    for update in SESSION_UPDATES:
        for path in objects(update):
            obj_keys = list(at(update, path))
            variants: list[Any] = []
            altered = copy.deepcopy(update)
            at(altered, path)["zzUnknown"] = 1  # an unknown member: kept in extra
            variants.append(altered)
            for key in obj_keys:
                removed = copy.deepcopy(update)
                del at(removed, path)[key]
                variants.append(removed)
                for odd in ODD_VALUES:
                    changed = copy.deepcopy(update)
                    at(changed, path)[key] = odd
                    variants.append(changed)
            for variant in variants:
                tally.check(frame(variant))
    # Both outcomes are common: the test would notice either path going missing.
    assert tally.agreed > 500 and tally.refused > 500, vars(tally)


def test_random_alterations_are_refused_or_decoded_alike() -> None:
    rng = random.Random(20261125)
    tally = Tally()
    for _ in range(3000):
        update = copy.deepcopy(rng.choice(SESSION_UPDATES))
        for _ in range(rng.randint(1, 3)):
            paths = objects(update)
            target = at(update, rng.choice(paths))
            if target and rng.random() < 0.8:
                target[rng.choice(list(target))] = copy.deepcopy(rng.choice(ODD_VALUES))
            else:
                target[rng.choice(["_meta", "zz", "text", "type", "title"])] = copy.deepcopy(
                    rng.choice(ODD_VALUES)
                )
        tally.check(frame(update))
    assert tally.agreed > 150 and tally.refused > 1000, vars(tally)


def test_numbers_in_raw_members_come_out_as_orjson_reads_them() -> None:
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "c",
              "rawInput": {"big": 10**30, "edge": 2**64, "f": 1.0, "i": 1}, "_meta": {"n": 2**70}}
    _, fast = decode_update_line(frame(update))
    assert fast.raw_input == {"big": 1e30, "edge": float(2**64), "f": 1.0, "i": 1}
    assert type(fast.raw_input["big"]) is float and type(fast.raw_input["i"]) is int
    assert fast.meta == {"n": float(2**70)}
    Tally().check(frame(update))


@pytest.mark.parametrize(
    "line",
    [
        # a request, not a notification
        frame({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}},
              id=1),
        # another method
        frame({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}})
        .replace(b"session/update", b"session/other"),
        # a member of params the client does not read
        b'{"method":"session/update","params":{"sessionId":"s","x":1,'
        b'"update":{"sessionUpdate":"current_mode_update","currentModeId":"m"}}}',
        # an unknown variant (the general way keeps it as UnknownSessionUpdate)
        frame({"sessionUpdate": "future_update", "x": 1}),
        # a known variant, malformed (the general way keeps it as UnknownSessionUpdate)
        frame({"sessionUpdate": "usage_update", "used": "many", "size": 1}),
        # duplicate discriminators: the general way takes the last one
        b'{"method":"session/update","params":{"sessionId":"s","update":'
        b'{"sessionUpdate":"current_mode_update","sessionUpdate":"notice","currentModeId":"m"}}}',
        b"not json",
        b'{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"a\\ud800"}}}',
        b"[" * 2000 + b"]" * 2000,
    ],
)
def test_what_the_strict_decoder_refuses(line: bytes) -> None:
    assert strict(line) is REFUSED


def test_the_envelope_in_any_order_and_a_missing_version() -> None:
    update = {"sessionUpdate": "current_mode_update", "currentModeId": "m"}
    line = json.dumps({"params": {"update": update, "sessionId": "s"},
                       "method": "session/update", "jsonrpc": "2.0"}).encode()
    assert strict(line) == ("s", s.CurrentModeUpdate(current_mode_id="m"))
    assert strict(line) == general(line)
    # The core does not read the version: the general way takes these.
    for version in ({"jsonrpc": "1.0"}, {"jsonrpc": {"any": 1}}, {}):
        odd = json.dumps({"method": "session/update", **version,
                          "params": {"sessionId": "s", "update": update}}).encode()
        assert strict(odd) is REFUSED
        assert general(odd) == ("s", s.CurrentModeUpdate(current_mode_id="m"))
    memory = memoryview(b"  " + frame(update) + b"  ")[1:-1]
    assert decode_update_line(memory)[1] == s.CurrentModeUpdate(current_mode_id="m")


def test_a_block_decodes_as_its_lines_do_or_not_at_all() -> None:
    lines = [frame(u) for u in SESSION_UPDATES if u["sessionUpdate"] in STRICT_VARIANTS]
    block = b"\n".join(lines) + b"\n\n  \r\n" + lines[0] + b"\r\n"
    decoded = decode_update_lines(memoryview(block))
    assert decoded == [decode_update_line(line) for line in [*lines, lines[0]]]
    assert [shown(d) for d in decoded] == [shown(general(line)) for line in [*lines, lines[0]]]
    for odd in (frame({"sessionUpdate": "compaction_update", "compactionId": "c",
                       "status": "completed"}),
                frame({"sessionUpdate": "plan", "entries": [], "zz": 1}), b"{}"):
        with pytest.raises(Exception):  # noqa: B017 - any refusal will do
            decode_update_lines(block + odd + b"\n" + lines[0])
