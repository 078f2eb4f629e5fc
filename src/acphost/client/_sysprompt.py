"""The client's system prompt on ``session/new``, ``session/load`` and ``session/resume``.

The shapes are the schema's ``SystemPrompt`` (``{mode, content}``) and
``SessionSystemPromptCapabilities``: a client MUST only send ``systemPrompt``
when the agent advertises ``sessionCapabilities.systemPrompt``, and ``override``
only when it also advertises ``sessionCapabilities.systemPrompt.mode.override``
(schema ``SystemPromptMode``). The capability is read from the ``initialize``
answer as it came (the stable types predate it), so the check is the same
whether or not the client opted into unstable features.
"""

from __future__ import annotations

from typing import Any, Literal

from ..errors import CapabilityNotSupported, UsageError

__all__ = [
    "SYSTEM_PROMPT_MODES",
    "SystemPromptMode",
    "describe_system_prompt_support",
    "system_prompt_modes",
    "system_prompt_params",
]

#: How the agent combines the client's system prompt with its own instructions.
SystemPromptMode = Literal["append", "override"]

#: The modes a client can ask for, in the order they are offered.
SYSTEM_PROMPT_MODES: tuple[SystemPromptMode, ...] = ("append", "override")


def system_prompt_modes(initialize_raw: Any) -> tuple[str, ...]:
    """The system prompt modes the agent's ``initialize`` answer advertises (none: ``()``).

    ``{}`` means ``append`` only; a ``mode.override`` object adds ``override``.
    A value that is not an object counts as not advertised (the schema marks
    the field ``x-deserialize-default-on-error``).
    """
    caps = initialize_raw.get("agentCapabilities") if isinstance(initialize_raw, dict) else None
    session = caps.get("sessionCapabilities") if isinstance(caps, dict) else None
    prompt = session.get("systemPrompt") if isinstance(session, dict) else None
    if not isinstance(prompt, dict):
        return ()
    modes = prompt.get("mode")
    if isinstance(modes, dict) and isinstance(modes.get("override"), dict):
        return ("append", "override")
    return ("append",)


def describe_system_prompt_support(modes: tuple[str, ...]) -> str:
    """What an agent with these modes supports, for a message (``"append only"``...)."""
    if not modes:
        return "no system prompt (it does not advertise sessionCapabilities.systemPrompt)"
    if "override" in modes:
        return "a system prompt in append or override mode"
    return "a system prompt in append mode only"


def _wire(prompt: Any, mode: str) -> dict[str, Any]:
    if isinstance(prompt, str):
        if mode not in SYSTEM_PROMPT_MODES:
            raise UsageError(f"unknown system prompt mode {mode!r}: use append or override")
        if not prompt.strip():
            # The schema: clients MUST NOT send an empty content array; an
            # empty or blank text says nothing either.
            raise UsageError("the system prompt is empty")
        return {"mode": mode, "content": [{"type": "text", "text": prompt}]}
    wire: dict[str, Any] = prompt.to_wire()
    content = wire.get("content")
    if not content:
        raise UsageError("the system prompt has no content")
    # The schema (SystemPrompt.content): clients MUST NOT send other content
    # block types than text until a future capability allows them.
    if not all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        raise UsageError(
            "a system prompt takes text content blocks only (TextContentBlock, type 'text')"
        )
    return wire


def system_prompt_params(
    params: dict[str, Any], initialize_raw: Any, prompt: str | Any | None, mode: str
) -> dict[str, Any]:
    """``params`` with ``systemPrompt`` added, once the agent is known to take it.

    Args:
        params: the request's wire params.
        initialize_raw: the agent's ``initialize`` answer, as it came.
        prompt: a string (one text block in ``mode``), an unstable
            ``SystemPrompt`` (its own mode), or None (``params`` unchanged).
        mode: ``append`` or ``override``, for a string.

    Raises:
        CapabilityNotSupported: the agent does not advertise the capability,
            or not the mode asked for.
        UsageError: an empty prompt or an unknown mode.

    """
    if prompt is None:
        return params
    wire = _wire(prompt, mode)
    asked = wire.get("mode")
    modes = system_prompt_modes(initialize_raw)
    if not modes:
        raise CapabilityNotSupported(
            "sessionCapabilities.systemPrompt",
            "the agent does not support a system prompt "
            "(it does not advertise sessionCapabilities.systemPrompt)",
        )
    if asked not in modes:
        raise CapabilityNotSupported(
            f"sessionCapabilities.systemPrompt.mode.{asked}",
            f"the agent does not support a system prompt in {asked} mode "
            f"(it supports {describe_system_prompt_support(modes)})",
        )
    return {**params, "systemPrompt": wire}
