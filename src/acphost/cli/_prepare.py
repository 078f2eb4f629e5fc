"""What a prompt run checks before the agent starts: the prompt, the output files.

Everything here fails with :class:`~acphost.launch.UsageProblem` (exit 2)
before any agent process exists, so a typo never costs a paid turn.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config import InputFileError, read_stream
from ..launch import UsageProblem
from ._outputs import OUTPUT_FLAGS, RunOutputs

if TYPE_CHECKING:
    from ..config import AgentSpec, Settings
    from ._continue import Reopen

__all__ = [
    "PROMPT_RUN_NEEDS",
    "Prepared",
    "check_needed_flags",
    "check_output_paths",
    "prepare_run",
    "prompt_blocks",
    "read_prompt",
]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A prompt run, checked and ready for its agent to start.

    Attributes:
        args: the parsed command line.
        cwd: the workspace.
        settings: the settings in use.
        spec: the agent.
        prompt: the prompt, or None when only listing.
        outputs: the run's redactor and output files (trace and audit log open).
        target: the earlier session to go on with, or None.

    """

    args: argparse.Namespace
    cwd: str
    settings: Settings
    spec: AgentSpec
    prompt: str | None
    outputs: RunOutputs
    target: Reopen | None


#: The prompt run's flags that mean something only beside another:
#: (the flag's destination, the flag, the destination it needs, how to give
#: that one, what the flag does). Given alone, each would be ignored.
PROMPT_RUN_NEEDS: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "keep_alive",
        "--keep-alive",
        "session",
        "--session NAME",
        "it says how long a named session's agent stays warm",
    ),
    (
        "no_queue",
        "--no-queue",
        "session",
        "--session NAME",
        "only a named session has a queue",
    ),
    (
        "commands_timeout",
        "--commands-timeout",
        "list_commands",
        "--list-commands",
        "it is how long that listing waits for the agent's commands",
    ),
)


def check_needed_flags(
    args: argparse.Namespace, needs: tuple[tuple[str, str, str, str, str], ...]
) -> None:
    """Refuse a flag given without the flag it only means something with.

    A flag that would be silently ignored hides a mistake (``--keep-alive``
    typed without ``-s``: the user believes an agent is kept warm). A flag
    counts as given when its value is neither None nor False: such flags
    default to None (or are ``store_true``), so ``--keep-alive 0`` counts.

    Args:
        args: the parsed command line.
        needs: the rules, as :data:`PROMPT_RUN_NEEDS`.

    Raises:
        UsageProblem: naming the flag, the flag it needs, and why.

    """
    for dest, flag, needed, spelled, why in needs:
        value = getattr(args, dest, None)
        if value is None or value is False:
            continue
        if not getattr(args, needed, None):
            raise UsageProblem(f"{flag} needs {spelled}: {why}")


def prepare_run(args: argparse.Namespace) -> Prepared:
    """Check everything that can be checked before the agent starts.

    The flags that need another (:data:`PROMPT_RUN_NEEDS`), the agent, the
    prompt, the output files (the trace and the audit log are opened), the
    budget flags, the session to go on with (from the history or a saved
    file).

    Raises:
        UsageProblem: what is wrong, naming the flag (exit 2; no agent started).

    """
    from ..history import default_path, history_enabled  # noqa: PLC0415 - a light module
    from ._setup import resolve_run  # noqa: PLC0415

    check_needed_flags(args, PROMPT_RUN_NEEDS)
    cwd, settings, spec = resolve_run(args)
    prompt = read_prompt(args)
    check_output_paths(args)
    if args.replay_context and prompt is None:
        raise UsageProblem("--replay-context needs a prompt: it is sent after the transcript")
    history = default_path()
    recorded = prompt is not None and history_enabled(args.no_history)
    outputs = RunOutputs(args, spec, settings, history_path=history if recorded else None)
    target = None
    if args.continue_ or args.resume or args.replay_context:
        from ._continue import agent_key, find_target  # noqa: PLC0415

        target = find_target(args, agent_key(spec, outputs), cwd, history)
    outputs.open_early()
    return Prepared(args, cwd, settings, spec, prompt, outputs, target)


def read_prompt(args: argparse.Namespace) -> str | None:
    """The prompt from the arguments, else stdin; None when only listing.

    Raises:
        UsageProblem: no prompt anywhere, or only whitespace.

    """
    listing = args.list_caps or args.list_modes or args.list_commands
    if args.prompt:
        text = " ".join(args.prompt)
        if not text.strip():
            raise UsageProblem("the prompt is empty")
    elif sys.stdin is None or sys.stdin.isatty():
        if listing:
            return None
        raise UsageProblem("no prompt: pass it as an argument or pipe it on stdin")
    else:
        try:
            text = read_stream(sys.stdin, what="the prompt on stdin")
        except UnicodeDecodeError:
            raise UsageProblem("the prompt on stdin is not valid UTF-8") from None
        except InputFileError as exc:
            raise UsageProblem(f"{exc}; name a file in the prompt with @path instead") from None
        if not text.strip():
            if listing:
                return None
            raise UsageProblem("the prompt read from stdin is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageProblem(
            "the prompt is not valid UTF-8 (check the encoding of stdin or of the arguments)"
        ) from None
    return text


def check_output_paths(args: argparse.Namespace) -> None:
    """Fail now if a file acphost must write cannot be written.

    Raises:
        UsageProblem: naming the flag and why.

    """
    for flag, attr in OUTPUT_FLAGS:
        value = getattr(args, attr, None)
        if not value:
            continue
        path = os.path.abspath(os.path.expanduser(value))
        directory = os.path.dirname(path)
        if os.path.isdir(path):
            raise UsageProblem(f"{flag} {value}: is a directory, not a file")
        if not os.path.isdir(directory):
            raise UsageProblem(f"{flag} {value}: the directory {directory} does not exist")
        if os.path.exists(path):
            if not os.access(path, os.W_OK):
                raise UsageProblem(f"{flag} {value}: the file is not writable")
        elif not os.access(directory, os.W_OK | os.X_OK):
            raise UsageProblem(f"{flag} {value}: cannot create files in {directory}")


def prompt_blocks(prompt: str, cwd: str) -> tuple[list[Any], list[str]]:
    """The prompt's content blocks, and the ``@`` mentions of files that do not exist.

    Mentions become ``resource_link`` blocks (:mod:`acphost.content`); a
    mention of a missing file is not attached but returned, for the run to
    report. A bare ``@word`` with neither a path separator nor a dot
    (``@everyone``) is not taken for a file.

    Args:
        prompt: the prompt text.
        cwd: the directory relative paths resolve against.

    Returns:
        The blocks to send, and the missing mentions as written.

    """
    from ..content import find_mentions, resource_link, text  # noqa: PLC0415 - loads the schema

    blocks: list[Any] = [text(prompt)]
    missing: list[str] = []
    for m in find_mentions(prompt, cwd):
        if m.is_url or os.path.exists(m.target):
            blocks.append(resource_link(m.target))
        else:
            missing.append(m.text)  # a quoted mention (they always resolve)
    for word in prompt.split():
        # find_mentions drops bare mentions of missing files; report the path-like ones.
        target = word[1:].rstrip(".,;:!?)]}'")
        if word[:1] != "@" or word[1:2] == '"' or not target or "://" in target:
            continue
        if ("/" in target or "." in target) and not os.path.exists(
            os.path.join(cwd, os.path.expanduser(target))
        ):
            missing.append(target)
    return blocks, missing
