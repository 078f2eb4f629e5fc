import json
from importlib import resources

import jsonschema
import pytest
from schema_examples import EXAMPLES, UNSTABLE_EXAMPLES

import acphost.schema as s
from acphost.schema import unstable

SCHEMA = json.loads(
    resources.files("acphost.schema").joinpath("v1/schema.json").read_text(encoding="utf-8")
)
UNSTABLE = json.loads(
    resources.files("acphost.schema")
    .joinpath("v1/schema.unstable.json")
    .read_text(encoding="utf-8")
)


def validator(name, schema=SCHEMA):
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]})


def _id(example):
    name, data = example
    kind = data.get("sessionUpdate") or data.get("type") or ""
    return f"{name}-{kind}" if kind else name


@pytest.mark.parametrize("example", EXAMPLES, ids=[_id(e) for e in EXAMPLES])
def test_round_trip_and_valid(example):
    name, data = example
    validator(name).validate(data)  # the example itself is right
    obj = s.DECODERS[name](data, "")
    assert not type(obj).__name__.startswith("Unknown")
    wire = obj.to_wire()
    assert wire == data
    validator(name).validate(wire)
    # decoding the output again gives an equal object
    assert s.DECODERS[name](wire, "") == obj


@pytest.mark.parametrize("example", UNSTABLE_EXAMPLES, ids=[_id(e) for e in UNSTABLE_EXAMPLES])
def test_unstable_round_trip_and_valid(example):
    name, data = example
    validator(name, UNSTABLE).validate(data)
    obj = unstable.DECODERS[name](data, "")
    assert not type(obj).__name__.startswith(("Unknown", "Unrecognized"))
    wire = obj.to_wire()
    assert wire == data
    validator(name, UNSTABLE).validate(wire)
    assert unstable.DECODERS[name](wire, "") == obj


def test_examples_cover_every_variant():
    updates = {d["sessionUpdate"] for n, d in EXAMPLES if n == "SessionUpdate"}
    assert updates == set(s._types._SESSION_UPDATE_VARIANTS)
    blocks = {d["type"] for n, d in EXAMPLES if n == "ContentBlock"}
    assert blocks == set(s._types._CONTENT_BLOCK_VARIANTS)


def test_built_objects_validate():
    note = s.SessionNotification(
        session_id="sess_1",
        update=s.ToolCallProgress(
            tool_call_id="c1",
            status="completed",
            content=[
                s.DiffToolCallContent(path="/a", new_text="x"),
                s.TerminalToolCallContent(terminal_id="t1"),
                s.ContentToolCallContent(content=s.TextContentBlock(text="done")),
            ],
        ),
    )
    validator("SessionNotification").validate(note.to_wire())
    resp = s.RequestPermissionResponse(outcome=s.SelectedPermissionOutcome(option_id="allow"))
    assert resp.to_wire() == {"outcome": {"outcome": "selected", "optionId": "allow"}}
    validator("RequestPermissionResponse").validate(resp.to_wire())
    init = s.InitializeRequest(
        protocol_version=s.PROTOCOL_VERSION,
        client_capabilities=s.ClientCapabilities(
            fs=s.FileSystemCapabilities(read_text_file=True, write_text_file=True),
            terminal=True,
        ),
    )
    validator("InitializeRequest").validate(init.to_wire())


@pytest.mark.parametrize("example", EXAMPLES, ids=[_id(e) for e in EXAMPLES])
def test_an_unknown_member_changes_only_extra(example):
    # Streamed updates take a shorter path when an object has only its required
    # members; with one more (unknown) member every object takes the general
    # path: both must decode the same fields.
    name, data = example
    plain = s.DECODERS[name](data, "")
    widened = s.DECODERS[name]({**data, "futureMember": [1]}, "")
    assert widened.extra == {**(plain.extra or {}), "futureMember": [1]}
    assert widened.replace(extra=plain.extra) == plain
    assert widened.to_wire() == {**data, "futureMember": [1]}
