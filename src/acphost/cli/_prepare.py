"""What a prompt run checks before the agent starts: the prompt, the output files.

Everything here fails with :class:`~acphost.launch.UsageProblem` (exit 2)
before any agent process exists, so a typo never costs a paid turn.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from typing import Any

from ..launch import UsageProblem

__all__ = [
    "check_output_paths",
    "prompt_blocks",
    "read_prompt",
    "resume_id",
    "write_json_atomic",
]

# The flags naming a file acphost writes, and their attribute on the parsed args.
_OUTPUT_FLAGS = (
    ("--trace", "trace"),
    ("--save-session", "save_session"),
    ("--audit-log", "audit_log"),
)


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
            text = sys.stdin.read()
        except UnicodeDecodeError:
            raise UsageProblem("the prompt on stdin is not valid UTF-8") from None
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
    for flag, attr in _OUTPUT_FLAGS:
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


def resume_id(value: str) -> str:
    """``--resume`` takes an id, or a file written by ``--save-session``.

    Raises:
        UsageProblem: the file is not a saved session.

    """
    if os.path.isfile(value):
        try:
            with open(value, encoding="utf-8") as f:
                data = json.load(f)
            sid = data["sessionId"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UsageProblem(f"--resume {value}: not a saved session file ({exc})") from None
        if not isinstance(sid, str):
            raise UsageProblem(f"--resume {value}: sessionId is not a string")
        return sid
    return value


def write_json_atomic(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` whole or not at all (a temporary file, renamed)."""
    target = os.path.abspath(os.path.expanduser(path))
    fd, tmp = tempfile.mkstemp(prefix=".acphost-", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
