"""The rules of ACP protocol version 2 the ordering check adds to the schema's.

Pure functions over one frame's members, each returning what was wrong (or
None), for :class:`~._validate.TraceValidator` on a connection that
negotiated version 2. Each cites the v2 schema (``acphost/schema/v2/``):

- the prompt lifecycle: ``session/prompt`` is answered ``{messageId}`` at once
  (schema ``PromptResponse``), the turn ends with an idle ``state_update``
  (``StateUpdate``); a cancelled turn's idle update names ``cancelled`` when it
  names a stop reason (``IdleStateUpdate``: the reason is optional);
- updates are upserts keyed by id (``tool_call_update``, ``plan_update``):
  v1's ``tool_call``, ``plan`` and ``current_mode_update`` are no v2 kinds;
- the client's tools are MCP servers: no ``fs/*`` or ``terminal/*`` request
  goes to the client; ``session/load`` is gone (``session/resume`` with
  ``replayFrom``);
- ``session/request_permission`` carries the tool call in ``subject``
  (``RequestPermissionSubject``), ``session/set_config_option`` a ``type``
  next to ``value`` (``SetSessionConfigOptionRequest``), ``initialize`` an
  ``info`` (``InitializeRequest``);
- capabilities are objects (``{}`` advertises one): ``capabilities.session``
  gives the baseline session methods, its members the others and the prompt
  content kinds; ``auth/login`` and ``auth/logout`` need a non-empty
  ``authMethods``; subagents, notices and compaction need no capability.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "V1_ONLY_UPDATES",
    "agent_request_problem",
    "client_request_problem",
    "missing_capability",
    "prompt_result_problem",
]

#: v1 update kinds with no v2 counterpart of that name → what v2 sends instead.
V1_ONLY_UPDATES = {
    "tool_call": "tool_call_update upserts keyed by toolCallId",
    "plan": "plan_update",
    "current_mode_update": "config_option_update",
}
# Session methods beyond the baseline → the capabilities.session member each needs
# (schema SessionCapabilities; fork, archive, status and title are unstable).
_SESSION_CAPS = {
    "session/delete": "delete",
    "session/fork": "fork",
    "session/archive": "archive",
    "session/unarchive": "archive",
    "session/status": "status",
    "session/set_title": "title",
}
_PROMPT_CAPS = {"image": "image", "audio": "audio", "resource": "embeddedContext"}


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def client_request_problem(method: str, params: dict[str, Any]) -> str | None:
    """A client request in the shape of another version, or of no version 2 method."""
    if method == "session/load":
        return (
            "session/load does not exist in ACP v2: resume a session with "
            "session/resume and replayFrom"
        )
    if method == "session/set_config_option" and "type" not in params:
        return 'session/set_config_option without "type": ACP v2 requires it next to value'
    if method == "initialize" and not isinstance(params.get("info"), dict):
        return "initialize asks for protocol version 2 without info (the v1 shape)"
    return None


def agent_request_problem(method: str, params: dict[str, Any]) -> str | None:
    """An agent request in the shape of another version, or of no version 2 method."""
    if method.startswith(("fs/", "terminal/")):
        return (
            f"{method[:80]} does not exist in ACP v2: a client's tools are the MCP "
            "servers it provides"
        )
    if method == "session/request_permission" and "toolCall" in params and "subject" not in params:
        return (
            "session/request_permission with a v1 toolCall: ACP v2 carries the operation in subject"
        )
    return None


def prompt_result_problem(result: Any) -> str | None:
    """A ``session/prompt`` result that is not v2's ``{messageId}``."""
    r = _obj(result)
    if isinstance(r.get("messageId"), str):
        return None
    if "stopReason" in r:
        return (
            "session/prompt answered with a v1 stopReason: ACP v2 answers {messageId} "
            "and ends the turn with an idle state_update"
        )
    return "session/prompt answered without a messageId"


def missing_capability(
    method: str, params: dict[str, Any], agent: dict[str, Any], auth_methods: Any
) -> list[str]:
    """What the client's request needs that the agent's ``initialize`` did not advertise."""
    if method in ("auth/login", "auth/logout"):
        # InitializeResponse.authMethods: "Omitted or empty means the agent does
        # not advertise the auth/login and auth/logout methods."
        if isinstance(auth_methods, list) and auth_methods:
            return []
        return [f"{method} although the agent advertised no authMethods"]
    if not method.startswith("session/"):
        return []
    session = agent.get("session")
    if not isinstance(session, dict):
        # AgentCapabilities.session: "Omitted and null ... mean the agent does
        # not support the session/* methods."
        return [f"{method} although the agent did not advertise capabilities.session"]
    out = []
    cap = _SESSION_CAPS.get(method)
    if cap is not None and not isinstance(session.get(cap), dict):
        out.append(f"{method} without capabilities.session.{cap}")
    prompt = params.get("systemPrompt")
    if prompt is not None and method in ("session/new", "session/resume"):
        caps = session.get("systemPrompt")
        if not isinstance(caps, dict):
            out.append(f"{method} with a systemPrompt without capabilities.session.systemPrompt")
        elif _obj(prompt).get("mode") == "override" and not isinstance(
            _obj(caps.get("mode")).get("override"), dict
        ):
            out.append(
                f"{method} with an override systemPrompt without "
                "capabilities.session.systemPrompt.mode.override"
            )
    blocks = params.get("prompt")
    if method == "session/prompt" and isinstance(blocks, list):
        prompt_caps = _obj(session.get("prompt"))
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            needs = _PROMPT_CAPS.get(kind) if isinstance(kind, str) else None
            if needs and not isinstance(prompt_caps.get(needs), dict):
                out.append(f"a {kind} block without capabilities.session.prompt.{needs}")
    return out
