"""``--system-prompt TEXT|@FILE`` and ``--system-prompt-mode`` as run options."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..launch import UsageProblem, read_system_prompt

if TYPE_CHECKING:
    import argparse

    from ..config import AgentSpec

__all__ = ["system_prompt_options"]


def system_prompt_options(args: argparse.Namespace, spec: AgentSpec) -> dict[str, Any]:
    """The ``system_prompt`` and ``system_prompt_mode`` of the run's options.

    ``@FILE`` reads the prompt from a UTF-8 file (bounded, a regular file).
    Left unset, the agent's settings entry decides (see
    :class:`acphost.launch.RunOptions`).

    Raises:
        UsageProblem: the file cannot be read, or is not UTF-8; a mode
            without any system prompt.

    """
    text = read_system_prompt(args.system_prompt)
    mode = args.system_prompt_mode
    if mode is not None and text is None and spec.system_prompt is None:
        raise UsageProblem(
            "--system-prompt-mode needs a system prompt: give --system-prompt TEXT or @FILE"
        )
    return {"system_prompt": text, "system_prompt_mode": mode}
