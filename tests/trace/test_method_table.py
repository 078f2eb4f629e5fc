"""The validator knows each method from the generated tables; only a schema check reads the schema."""

from __future__ import annotations

import json
from importlib import resources

from acphost.trace import TraceValidator, _schemacheck


def _from_annotations(unstable: bool) -> dict[tuple[str, str, str], str]:
    """(method, side, role) -> $defs name, read from a schema file's x-method/x-side."""
    name = "v1/schema.unstable.json" if unstable else "v1/schema.json"
    schema = json.loads(resources.files("acphost.schema").joinpath(name).read_text("utf-8"))
    out = {}
    for def_name, d in schema["$defs"].items():
        method = d.get("x-method")
        if method:
            role = (
                "response" if def_name.endswith("Response")
                else "notification" if def_name.endswith("Notification") else "request"
            )
            out[(method, d["x-side"], role)] = def_name
    return out


def test_the_method_table_is_the_schemas_annotations():
    expected = _from_annotations(False)
    for key, name in _from_annotations(True).items():
        expected.setdefault(key, "unstable:" + name)
    assert _schemacheck.method_types() == expected


def test_checking_the_order_of_a_run_reads_no_schema_file():
    _schemacheck.method_types.cache_clear()
    _schemacheck._schema.cache_clear()
    validator = TraceValidator(schema=False)
    frames = [
        ("outgoing", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": 1, "clientCapabilities": {}}}),
        ("incoming", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}),
        ("outgoing", {"jsonrpc": "2.0", "id": 1, "method": "session/new",
                      "params": {"cwd": "/w", "mcpServers": []}}),
        ("incoming", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s"}}),
        ("outgoing", {"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                      "params": {"sessionId": "s", "prompt": []}}),
        ("incoming", {"jsonrpc": "2.0", "method": "session/update",
                      "params": {"sessionId": "s", "update": {"sessionUpdate": "plan"}}}),
        ("incoming", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
    ]
    for direction, frame in frames:
        validator.feed(direction, frame)
    assert validator.finish() == []
    assert _schemacheck._schema.cache_info().currsize == 0
