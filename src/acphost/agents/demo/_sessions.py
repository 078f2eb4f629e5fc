"""The demo agent's session methods: lifecycle, listing, modes and options.

Each handler takes the :class:`~._agent.Agent`, the request id and the params,
and returns the result (or ``ANSWERED`` when it sent the response itself).
``session/fork``, ``session/set_title``, ``session/status``, ``session/archive``
and ``session/unarchive`` are unstable ACP methods (schema.unstable.json): the
agent advertises them under ``sessionCapabilities`` and answers them when a
client calls them.
"""

from __future__ import annotations

import os
import time

from ._store import MODELS, MODES, Session, iso_now
from ._wire import INVALID_PARAMS, RpcError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from ._store import Store
    from ._wire import Wire

    class Agent(Protocol):
        """What the handlers use of the agent (``_agent.Agent``)."""

        store: Store
        wire: Wire
        page_size: int
        system_prompt_modes: tuple[str, ...]

        def session(self, params: Json, *, open_only: bool = True) -> Session: ...
        def send_update(self, session: Session, update: Json) -> None: ...
        def commands_update(self) -> Json: ...
        def check_auth(self) -> None: ...
        def client_session_cap(self, name: str, sub: str | None = None) -> bool: ...

    Json = dict[str, Any]
    Handler = Callable[[Agent, object, Json], object]

ANSWERED = object()  # a handler that already sent its response returns this


def cwd_of(params: Json) -> str:
    """The request's ``cwd``; it must be absolute (schema, AbsolutePath)."""
    cwd = params.get("cwd")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        raise RpcError(INVALID_PARAMS, "Invalid params: cwd must be an absolute path")
    return cwd


def system_prompt_of(agent: Agent, params: Json) -> tuple[str, str] | None:
    """The request's ``systemPrompt`` as (mode, text), checked as the schema asks.

    An agent MUST return an error, and open no session, for a mode it does not
    support or a content block it cannot take (schema, SystemPrompt).
    """
    value = params.get("systemPrompt")
    if value is None:
        return None
    if not agent.system_prompt_modes:
        raise RpcError(INVALID_PARAMS, "Invalid params: this agent takes no systemPrompt")
    mode = value.get("mode") if isinstance(value, dict) else None
    content = value.get("content") if isinstance(value, dict) else None
    if mode not in agent.system_prompt_modes:
        raise RpcError(INVALID_PARAMS, f"Invalid params: unsupported systemPrompt mode {mode!r}")
    if not isinstance(content, list) or not content:
        raise RpcError(INVALID_PARAMS, "Invalid params: systemPrompt.content must not be empty")
    texts = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "text":
            raise RpcError(INVALID_PARAMS, "Invalid params: systemPrompt takes text blocks only")
        texts.append(str(block.get("text", "")))
    return str(mode), "".join(texts)


def tools_of(params: Json) -> Json | None:
    """The ``acphost`` MCP server the request offers (``mcpServers``), checked, or ``None``.

    The client's own tools: the demo agent reads, writes and runs commands
    through them when given (see ``_hosted``). ``_mcp`` (and ``subprocess``)
    load only for a request that names one.
    """
    servers = params.get("mcpServers")
    if not isinstance(servers, list) or not any(
        isinstance(s, dict) and s.get("name") == "acphost" for s in servers
    ):
        return None
    from ._mcp import find_server  # noqa: PLC0415 - off start-up

    return find_server(servers)


def _state(agent: Agent, session: Session) -> Json:
    modes = [{"id": i, "name": n, "description": d} for i, n, d in MODES]
    config: list[Json] = [
        {
            "id": "model",
            "name": "Model",
            "category": "model",
            "type": "select",
            "currentValue": session.model,
            "options": [{"value": value, "name": name} for value, name in MODELS],
        }
    ]
    if agent.client_session_cap("configOptions", "boolean"):
        # Boolean config options only for clients that opt in (schema,
        # SessionConfigOptionsCapabilities.boolean).
        config.append(
            {"id": "verbose", "name": "Verbose", "type": "boolean", "currentValue": session.verbose}
        )
    return {
        "modes": {"currentModeId": session.mode, "availableModes": modes},
        "configOptions": config,
    }


def _then_commands(agent: Agent, request_id: object, result: Json, session: Session) -> object:
    # The commands update follows the response: only then does the client
    # know the session id it belongs to.
    agent.wire.respond(request_id, result)
    agent.send_update(session, agent.commands_update())
    return ANSWERED


def session_new(agent: Agent, request_id: object, params: Json) -> object:
    """``session/new``: a fresh session in mode ``ask`` with model ``demo-fast``."""
    agent.check_auth()
    cwd, prompt, tools = cwd_of(params), system_prompt_of(agent, params), tools_of(params)
    session = agent.store.create(cwd)
    session.system_prompt = prompt
    session.tools = tools
    return _then_commands(
        agent, request_id, {"sessionId": session.id, **_state(agent, session)}, session
    )


def replay(agent: Agent, session: Session) -> None:
    """Send the history of ``session`` as ``session/update`` notifications.

    Messages replay as ``user_message_chunk``/``agent_message_chunk``; a
    compaction replays as one ``compaction_update`` holding its final state, at
    its place in the history, and only to a client that advertised
    ``session.compaction`` (schema, CompactionUpdate). The title follows.
    """
    compaction = agent.client_session_cap("compaction")
    for entry in session.history:
        if entry.get("kind") == "compaction":
            if compaction:
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
        kind = "user_message_chunk" if entry.get("role") == "user" else "agent_message_chunk"
        agent.send_update(
            session,
            {
                "sessionUpdate": kind,
                "content": {"type": "text", "text": str(entry.get("text", ""))},
                "messageId": str(entry.get("messageId")),
            },
        )
    if session.title is not None:
        info = {"title": session.title, "updatedAt": session.updated}
        agent.send_update(session, {"sessionUpdate": "session_info_update", **info})


def session_load(agent: Agent, request_id: object, params: Json) -> object:
    """``session/load``: replay the history, then answer."""
    cwd, prompt, tools = cwd_of(params), system_prompt_of(agent, params), tools_of(params)
    session = agent.store.refresh(agent.session(params, open_only=False))
    replay(agent, session)
    session.cwd, session.open = cwd, True
    session.system_prompt = prompt
    use_tools(session, tools)
    return _then_commands(agent, request_id, _state(agent, session), session)


def session_resume(agent: Agent, request_id: object, params: Json) -> object:
    """``session/resume``: reopen a session without replaying its history."""
    cwd, prompt, tools = cwd_of(params), system_prompt_of(agent, params), tools_of(params)
    session = agent.store.refresh(agent.session(params, open_only=False))
    session.cwd, session.open = cwd, True
    session.system_prompt = prompt
    use_tools(session, tools)
    return _then_commands(agent, request_id, _state(agent, session), session)


def fork_of(agent: Agent, params: Json) -> Session:
    """Make the session ``session/fork`` asks for: a new open one with a copy of the history."""
    cwd = cwd_of(params)
    source = agent.store.refresh(agent.session(params, open_only=False))
    fork = Session(agent.store.new_id(), cwd, time.time())
    fork.mode, fork.model, fork.verbose = source.mode, source.model, source.verbose
    fork.history = [dict(entry) for entry in source.history]
    fork.tokens, fork.cost_micros = source.tokens, 0
    agent.store.add(fork)
    return fork


def session_fork(agent: Agent, request_id: object, params: Json) -> object:
    """``session/fork`` (unstable): a new open session with a copy of the history."""
    fork = fork_of(agent, params)
    fork.tools = tools_of(params)
    return _then_commands(agent, request_id, {"sessionId": fork.id, **_state(agent, fork)}, fork)


def session_list(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/list``: oldest first, ``page_size`` per page, opaque ``nextCursor``.

    ``archived`` (unstable) filters by archive state: ``exclude`` (the default),
    ``include`` or ``only``; the cursor encodes it, so following ``nextCursor``
    keeps the filter.
    """
    agent.check_auth()
    cwd, cursor, archived = params.get("cwd"), params.get("cursor"), params.get("archived")
    if cwd is not None and not isinstance(cwd, str):
        raise RpcError(INVALID_PARAMS, "Invalid params: cwd must be a string")
    if archived is None:
        archived = "exclude"
    if archived not in ("exclude", "include", "only"):
        raise RpcError(INVALID_PARAMS, f"Invalid params: unknown archived filter {archived!r}")
    start = 0
    if cursor is not None:
        if not (isinstance(cursor, str) and cursor.startswith("demo:") and cursor[5:].isdigit()):
            raise RpcError(INVALID_PARAMS, f"Invalid params: bad cursor {cursor!r}")
        start = int(cursor[5:])
    sessions = [
        s
        for s in agent.store.all()
        if (cwd is None or s.cwd == cwd)
        and (archived == "include" or s.archived == (archived == "only"))
    ]
    end = start + agent.page_size
    result: Json = {"sessions": [s.info() for s in sessions[start:end]]}
    if end < len(sessions):
        result["nextCursor"] = f"demo:{end}"
    return result


def session_close(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/close``: cancel its turn and mark it closed (it stays loadable)."""
    session = agent.session(params, open_only=False)
    if session.turn is not None:
        session.turn.cancel()
    session.open = False
    use_tools(session, None)
    return {}


def session_delete(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/delete``: cancel its turn and forget it, file included."""
    session = agent.session(params, open_only=False)
    if session.turn is not None:
        session.turn.cancel()
    use_tools(session, None)
    agent.store.delete(session.id)
    return {}


def set_mode(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/set_mode``: send ``current_mode_update`` before the answer."""
    session = agent.session(params)
    mode = params.get("modeId")
    if mode not in [m[0] for m in MODES]:
        raise RpcError(INVALID_PARAMS, f"Invalid params: unknown mode {mode!r}")
    session.mode = str(mode)
    changed(agent, session, {"sessionUpdate": "current_mode_update", "currentModeId": mode})
    return {}


def set_config_option(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/set_config_option``: answer the full option list."""
    session = agent.session(params)
    config_id, value = params.get("configId"), params.get("value")
    if config_id == "model" and value in [m[0] for m in MODELS]:
        session.model = str(value)
    elif (
        config_id == "verbose"
        and agent.client_session_cap("configOptions", "boolean")
        and isinstance(value, bool)
    ):
        session.verbose = value
    else:
        raise RpcError(INVALID_PARAMS, f"Invalid params: bad option {config_id!r} = {value!r}")
    options = _state(agent, session)["configOptions"]
    changed(agent, session, {"sessionUpdate": "config_option_update", "configOptions": options})
    return {"configOptions": options}


def changed(agent: Agent, session: Session, update: Json) -> None:
    """Save ``session`` and send ``update`` (the state it changed to)."""
    # The update goes before the response, so a client that reads frames in
    # order already holds the new state when its request returns.
    session.updated = iso_now()
    agent.store.save(session)
    agent.send_update(session, update)


def set_title(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/set_title`` (unstable): store the title, then answer it.

    Any session ``session/list`` would return can be retitled, open or not; the
    response follows the write (schema.unstable.json, SetSessionTitleRequest).
    """
    session = agent.store.refresh(agent.session(params, open_only=False))
    title = params.get("title")
    if not isinstance(title, str) or not title.strip():
        raise RpcError(INVALID_PARAMS, "Invalid params: title must be a non-empty string")
    session.title = title.strip()
    session.updated = iso_now()
    agent.store.save(session)
    return {"title": session.title}


def session_status(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/status`` (unstable): ``open`` if this process holds it open, else ``saved``."""
    session = agent.session(params, open_only=False)
    held = agent.store.in_memory(session.id) and session.open
    return {"status": "open" if held else "saved"}


def archive(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/archive`` (unstable): close it as ``session/close`` would, then archive it."""
    session = agent.session(params, open_only=False)
    if session.turn is not None:
        session.turn.cancel()
    session.open = False
    session.archived = True
    agent.store.save(session)
    return {}


def unarchive(agent: Agent, request_id: object, params: Json) -> Json:
    """``session/unarchive`` (unstable): list the session again."""
    session = agent.session(params, open_only=False)
    session.archived = False
    agent.store.save(session)
    return {}


def use_tools(session: Session, tools: Json | None) -> None:
    """Give ``session`` the MCP server of this request, ending a connection to another.

    A reopened session takes exactly the servers its request names (schema
    ResumeSessionRequest.mcpServers: agents SHOULD NOT restore earlier ones).
    """
    if session.host is not None and session.tools != tools:
        session.host.close()
        session.host = None
    session.tools = tools


HANDLERS: dict[str, Handler] = {
    "session/new": session_new,
    "session/load": session_load,
    "session/list": session_list,
    "session/resume": session_resume,
    "session/close": session_close,
    "session/delete": session_delete,
    "session/set_mode": set_mode,
    "session/set_config_option": set_config_option,
    "session/fork": session_fork,
    "session/set_title": set_title,
    "session/status": session_status,
    "session/archive": archive,
    "session/unarchive": unarchive,
}
