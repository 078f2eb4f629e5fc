"""ACP v2 for the demo agent: negotiation, the v2 methods, and the one v1 -> v2 shaper.

The scripts write v1-shaped updates and requests (``_turn.Turn``); once
``initialize`` negotiated version 2, :class:`Shaper` (installed on the wire)
rewrites each into its v2 shape, so no script knows which version it speaks.
Shapes follow the v2 draft schema (``schema.json`` and ``schema.unstable.json``
of the SDK 2.4.0, ``schema/v2/``):

- ``tool_call`` becomes a ``tool_call_update`` upsert (v2 has no ``tool_call``
  kind; ToolCallUpdate: omitted fields are unchanged) and ``diff`` content
  becomes ``{changes, patch}`` (schema ``Diff``);
- ``plan`` becomes ``plan_update`` with an item plan (``PlanUpdateContent``);
- commands gain ``type: "command"`` and text inputs ``type: "text"``;
- a permission request gets a ``title`` and a ``subject`` (``ToolCallPermissionSubject``),
  and the session reports ``requires_action`` while it waits (``StateUpdate``);
- a ``subagent_update`` carrying a state is mirrored by a ``state_update`` on
  the child's own session id (``SubagentUpdate``: subagents are baseline in v2).

The lifecycle of a v2 turn lives here too: ``session/prompt`` answers
``{messageId}`` once the prompt is inserted (``PromptResponse``), the user
message is echoed (``user_message``), ``running`` starts the work and ``idle``
with its ``stopReason`` (and ``usage``, unstable) ends it.
"""

from __future__ import annotations

from ._sessions import (
    HANDLERS,
    changed,
    cwd_of,
    fork_of,
    system_prompt_of,
    tools_of,
    use_tools,
)
from ._store import MODELS, MODES
from ._turn import available_commands
from ._wire import INTERNAL_ERROR, INVALID_PARAMS, RpcError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from ._sessions import Agent as SessionAgent
    from ._store import Session
    from ._turn import Turn
    from ._wire import Wire

    class Agent(SessionAgent, Protocol):
        """What this module uses of the agent (``_agent.Agent``)."""

        client: Json
        protocol: int

    Json = dict[str, Any]
    Handler = Callable[[Any, object, Json], object]

PROTOCOL_VERSION = 2
PLAN_ID = "plan"  # the demo keeps one plan per session (schema PlanItems.planId)


# -- negotiation ----------------------------------------------------------------------


def initialize(agent: Agent, params: Json, info: Json, auth_method: Json) -> Json:
    """Answer a v2 ``initialize`` and switch the connection to v2.

    Args:
        agent: The agent; its client capabilities, wire and protocol change.
        params: The request; ``info`` is required in v2 (schema InitializeRequest).
        info: The agent's ``Implementation``.
        auth_method: Its one auth method, v2-shaped (``methodId``, ``type``).

    Raises:
        RpcError: -32602 for a v2 request without ``info``; the connection stays
            on what it was, so the client may ask again with version 1.

    """
    given = params.get("info")
    if not (
        isinstance(given, dict)
        and isinstance(given.get("name"), str)
        and isinstance(given.get("version"), str)
    ):
        raise RpcError(
            INVALID_PARAMS,
            "Invalid params: a protocolVersion 2 initialize needs info {name, version}; "
            "send protocolVersion 1 to use clientInfo and clientCapabilities",
        )
    caps = params.get("capabilities")
    caps = caps if isinstance(caps, dict) else {}
    # What v2 makes baseline, as the v1 capabilities the scripts read: config
    # booleans, notices, compaction and subagents on; fs and terminal gone.
    agent.client = {
        "session": {"configOptions": {"boolean": {}}, "notices": {}, "compaction": {}},
        "subagents": {},
        "elicitation": caps.get("elicitation") if isinstance(caps.get("elicitation"), dict) else {},
    }
    agent.protocol = PROTOCOL_VERSION
    agent.wire.v2 = Shaper()
    session_caps: Json = {
        "prompt": {"image": {}, "embeddedContext": {}},
        "mcp": {"stdio": {}, "http": {}},
        "delete": {},
        "fork": {},
        "title": {},
        "status": {},
        "archive": {},
    }
    if agent.system_prompt_modes:
        session_caps["systemPrompt"] = (
            {"mode": {"override": {}}} if "override" in agent.system_prompt_modes else {}
        )
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "info": info,
        "capabilities": {"session": session_caps, "auth": {"status": {}}},
        "authMethods": [auth_method],
    }


# -- the shaper -----------------------------------------------------------------------


def _content(items: object) -> object:
    if not isinstance(items, list):
        return items
    return [
        _diff(item)
        if isinstance(item, dict) and item.get("type") == "diff" and "changes" not in item
        else item
        for item in items
    ]


def _lines(text: str) -> list[str]:
    r"""``text``'s lines with their ends, split at ``\n`` only, as a patch counts them."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def _diff(item: Json) -> Json:
    """A v1 diff (path, oldText, newText) as a v2 one: its change and a git patch.

    The patch replaces the old lines with the new ones in one hunk: valid for
    ``git apply`` and enough for the demo's small files, without ``difflib``.
    """
    path, old, new = str(item.get("path")), item.get("oldText"), str(item.get("newText") or "")
    before = _lines(old) if isinstance(old, str) else []
    after = _lines(new)
    change = {"operation": "add" if old is None else "modify", "path": path, "fileType": "text"}
    head = [f"diff --git a{path} b{path}\n"]
    if old is None:
        head += ["new file mode 100644\n", "--- /dev/null\n"]
    else:
        head.append(f"--- a{path}\n")
    head.append(f"+++ b{path}\n")
    start_old = 1 if before else 0
    start_new = 1 if after else 0
    hunk = [f"@@ -{start_old},{len(before)} +{start_new},{len(after)} @@\n"]
    for sign, lines in (("-", before), ("+", after)):
        for line in lines:
            hunk.append(
                sign + line
                if line.endswith("\n")
                else f"{sign}{line}\n\\ No newline at end of file\n"
            )
    text = "".join(head + hunk)
    return {"type": "diff", "changes": [change], "patch": {"format": "git_patch", "text": text}}


def _tool(update: Json) -> Json:
    shaped = {**update, "sessionUpdate": "tool_call_update"}
    if "content" in update:
        shaped["content"] = _content(update["content"])
    return shaped


def commands(listed: list[Json]) -> list[Json]:
    """Commands as v2 ``AvailableCommand``s (``type: "command"``, text ``input``)."""
    shaped = []
    for command in listed:
        item = {"type": "command", **command}
        hint = command.get("input")
        if isinstance(hint, dict) and "type" not in hint:
            item["input"] = {"type": "text", **hint}
        shaped.append(item)
    return shaped


def _option(option: Json) -> Json:
    if "id" not in option:
        return option
    shaped = {key: value for key, value in option.items() if key != "id"}
    shaped["configId"] = option["id"]
    return shaped


def _update(update: Json) -> Json | None:
    kind = update.get("sessionUpdate")
    if kind in ("tool_call", "tool_call_update"):
        return _tool(update)
    if kind == "plan":
        plan = {"type": "items", "planId": PLAN_ID, "entries": update.get("entries", [])}
        return {"sessionUpdate": "plan_update", "plan": plan}
    if kind == "available_commands_update":
        return {**update, "availableCommands": commands(update.get("availableCommands", []))}
    if kind == "config_option_update":
        return {**update, "configOptions": [_option(o) for o in update.get("configOptions", [])]}
    if kind == "current_mode_update":
        return None  # v2 has no modes: the mode is a config option
    return update


#: The update kinds :class:`Shaper` rewrites; every other one passes as it is.
_RESHAPED = frozenset(
    {
        "tool_call",
        "tool_call_update",
        "plan",
        "available_commands_update",
        "config_option_update",
        "current_mode_update",
        "subagent_update",
    }
)


def state(session_id: str, value: str, **fields: Any) -> Json:
    """A ``session/update`` frame with a ``state_update`` (schema StateUpdate)."""
    update = {"sessionUpdate": "state_update", "state": value, **fields}
    return {"method": "session/update", "params": {"sessionId": session_id, "update": update}}


class Shaper:
    """Rewrites the frames the scripts send (v1 shapes) into v2 frames."""

    def notification(self, method: str, params: Json) -> list[Json]:
        """Return the frames to send for one notification (none, one or more)."""
        update = params.get("update") if method == "session/update" else None
        if not isinstance(update, dict) or update.get("sessionUpdate") not in _RESHAPED:
            return [{"method": method, "params": params}]
        shaped = _update(update)
        if shaped is None:
            return []
        frames = [{"method": method, "params": {**params, "update": shaped}}]
        child_state = update.get("state")
        if update.get("sessionUpdate") == "subagent_update" and isinstance(child_state, dict):
            # Each child reports its own state on its own id too (SubagentUpdate:
            # "the same StateUpdate snapshot as the ordinary state_update").
            fields = {key: value for key, value in child_state.items() if key != "state"}
            child = str(update.get("sessionId"))
            frames.append(state(child, str(child_state.get("state")), **fields))
        return frames

    def request(self, method: str, params: Json) -> tuple[Json, list[Json], list[Json]]:
        """Return (the v2 params, frames to send before, frames to send once answered)."""
        if method not in ("session/request_permission", "elicitation/create"):
            return params, [], []
        session_id = str(params.get("sessionId"))
        # The turn cannot go on until the user answers (RequiresActionStateUpdate);
        # "running" again once the answer arrives, before the turn sends more.
        before, after = [state(session_id, "requires_action")], [state(session_id, "running")]
        if method == "session/request_permission":
            call = params.get("toolCall")
            call = call if isinstance(call, dict) else {}
            described = _tool(call)
            del described["sessionUpdate"]
            subject = {"type": "tool_call", "toolCall": described}
            params = {
                "sessionId": session_id,
                "title": str(call.get("title") or "Permission needed"),
                "subject": subject,
                "options": params.get("options", []),
            }
        return params, before, after


# -- turns ------------------------------------------------------------------------------


def accept(agent: Agent, request_id: object, turn: Turn, blocks: list[Any]) -> None:
    """Insert the prompt: echo it, answer ``{messageId}``, report ``running``."""
    session_id = turn.session.id
    message_id = turn.user_message_id
    echo = {"sessionUpdate": "user_message", "messageId": message_id, "content": blocks}
    agent.wire.notify("session/update", {"sessionId": session_id, "update": echo})
    agent.wire.respond(request_id, {"messageId": message_id})
    agent.wire.send(state(session_id, "running"))


def end(wire: Wire, turn: Turn, stop_reason: str, error: Json | None = None) -> None:
    """End a v2 turn: ``idle`` with its stop reason, its usage and any error."""
    usage = turn.usage
    if usage is None:
        # The same pretend count as the session's context (a quarter of the characters).
        inputs = len(turn.text) // 4
        outputs = sum(len(text) for text in turn.reply) // 4
        usage = {"totalTokens": inputs + outputs, "inputTokens": inputs, "outputTokens": outputs}
    fields: Json = {"stopReason": stop_reason, "usage": usage}
    if error is not None:
        fields["error"] = error  # ErrorStopReason: the failure as a JSON-RPC error object
    wire.send(state(turn.session.id, "idle", **fields))


def failed(code: int, message: str, data: Any = None) -> Json:
    """The ``error`` of an ``idle`` state that ends a failed turn."""
    error: Json = {"code": code or INTERNAL_ERROR, "message": message}
    if data is not None:
        error["data"] = data
    return error


# -- session methods ----------------------------------------------------------------------


def config_options(session: Session) -> list[Json]:
    """The session's config options, v2-shaped: mode and model selects, verbose."""
    return [
        {
            "configId": "mode",
            "name": "Mode",
            "category": "mode",
            "type": "select",
            "currentValue": session.mode,
            "options": [{"value": i, "name": n, "description": d} for i, n, d in MODES],
        },
        {
            "configId": "model",
            "name": "Model",
            "category": "model",
            "type": "select",
            "currentValue": session.model,
            "options": [{"value": value, "name": name} for value, name in MODELS],
        },
        {
            "configId": "verbose",
            "name": "Verbose",
            "type": "boolean",
            "currentValue": session.verbose,
        },
    ]


def _opened(session: Session) -> Json:
    listed = commands(available_commands()["availableCommands"])
    return {"configOptions": config_options(session), "availableCommands": listed}


def session_new(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/new``: the session's id, config options and commands in the answer."""
    agent.check_auth()
    cwd, prompt, tools = cwd_of(params), system_prompt_of(agent, params), tools_of(params)
    session = agent.store.create(cwd)
    session.system_prompt = prompt
    session.tools = tools
    return {"sessionId": session.id, **_opened(session)}


def session_fork(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/fork`` (unstable): a copy of the history in a new open session."""
    fork = fork_of(agent, params)
    fork.tools = tools_of(params)
    return {"sessionId": fork.id, **_opened(fork)}


def replay(agent: Agent, session: Session) -> None:
    """Send the history as v2 upserts: whole ``user_message``/``agent_message`` items."""
    for entry in session.history:
        if entry.get("kind") == "compaction":
            update: Json = {
                "sessionUpdate": "compaction_update",
                "compactionId": str(entry.get("compactionId")),
                "status": str(entry.get("status")),
            }
            for key in ("summary", "error"):
                if entry.get(key):
                    update[key] = entry[key]
            agent.send_update(session, update)
            continue
        kind = "user_message" if entry.get("role") == "user" else "agent_message"
        text = {"type": "text", "text": str(entry.get("text", ""))}
        update = {
            "sessionUpdate": kind,
            "messageId": str(entry.get("messageId")),
            "content": [text],
        }
        agent.send_update(session, update)
    if session.title is not None:
        info = {"title": session.title, "updatedAt": session.updated}
        agent.send_update(session, {"sessionUpdate": "session_info_update", **info})


def session_resume(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/resume``: reopen, replay from the start when asked, report the state.

    v2 has no ``session/load``: ``replayFrom: {type: "start"}`` asks for the
    history (schema ReplayFrom), and a current ``state_update`` MUST follow any
    replay and precede the answer (schema ResumeSessionResponse).
    """
    cwd, prompt, tools = cwd_of(params), system_prompt_of(agent, params), tools_of(params)
    replay_from = params.get("replayFrom")
    if replay_from is not None and not (
        isinstance(replay_from, dict) and replay_from.get("type") == "start"
    ):
        raise RpcError(INVALID_PARAMS, f"Invalid params: unsupported replayFrom {replay_from!r}")
    session = agent.store.refresh(agent.session(params, open_only=False))
    if replay_from is not None:
        replay(agent, session)
    session.cwd, session.open = cwd, True
    session.system_prompt = prompt
    use_tools(session, tools)
    now = "running" if session.turn is not None else "idle"
    agent.wire.send(state(session.id, now))
    return _opened(session)


def set_config_option(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/set_config_option``: ``type`` names the value's kind (``id``/``boolean``).

    An unknown option, value or type is refused with -32602 and changes
    nothing (schema SetSessionConfigOptionRequest).
    """
    session = agent.session(params)
    config_id, kind, value = params.get("configId"), params.get("type"), params.get("value")
    if kind is None:
        raise RpcError(
            INVALID_PARAMS,
            'Invalid params: "type" is required: "id" for a select option, "boolean" for a toggle',
        )
    if config_id == "mode" and kind == "id" and value in [m[0] for m in MODES]:
        session.mode = str(value)
    elif config_id == "model" and kind == "id" and value in [m[0] for m in MODELS]:
        session.model = str(value)
    elif config_id == "verbose" and kind == "boolean" and isinstance(value, bool):
        session.verbose = value
    else:
        raise RpcError(
            INVALID_PARAMS, f"Invalid params: bad option {config_id!r} = {value!r} ({kind!r})"
        )
    options = config_options(session)
    changed(agent, session, {"sessionUpdate": "config_option_update", "configOptions": options})
    return {"configOptions": options}


def handlers(base: dict[str, Handler]) -> dict[str, Handler]:
    """The v2 method table: ``base`` holds the agent's own (initialize, auth, prompt)."""
    same = (
        "session/list",
        "session/close",
        "session/delete",
        "session/set_title",
        "session/status",
        "session/archive",
        "session/unarchive",
    )
    return {
        "initialize": base["initialize"],
        "auth/login": base["authenticate"],
        "auth/logout": base["logout"],
        "auth/status": base["auth/status"],
        "session/prompt": base["session/prompt"],
        "session/new": session_new,
        "session/resume": session_resume,
        "session/fork": session_fork,
        "session/set_config_option": set_config_option,
        **{method: HANDLERS[method] for method in same},
    }
