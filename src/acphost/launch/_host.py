"""The host configuration (files, terminals, permissions) built from the user's flags."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from ..config import AgentSpec, config_dir, data_dir, state_dir
from ..host import (
    ElicitationHandler,
    FileSystemProvider,
    HostConfig,
    TerminalEvent,
    TerminalManager,
)
from ..redact import Redactor
from ._policy import Asker, Refusals, build_broker

__all__ = ["HostChoices", "build_host_config"]


@dataclass(frozen=True, slots=True)
class HostChoices:
    """What the user chose about files, terminals and permissions.

    Attributes:
        write: ``--write``: file writes and writing tool kinds are allowed.
        yolo: ``--yolo``: reads anywhere, writes allowed (still confined).
        approve: ``all``, ``reads`` or ``deny`` (``--approve-all`` ...), or None.
        policy_file: a JSON rules file (``--permission-policy``).
        audit_log: append every decision to this JSONL file.
        audit_stream: ``audit_log`` already opened by the face (with
            :func:`acphost.host.open_output`, before the agent started, so a
            bad path fails early); written instead of opening the path again.
            The face closes it.
        fs: offer file reads (and writes with ``write``) at all.
        terminal: offer terminals at all.
        output_files: the face's other output files (``--trace``,
            ``--save-session``, the history store); with ``audit_log`` they
            become ``HostConfig.protected_paths``: the agent cannot write them.
        settings_file: the settings file the face read (``--settings``,
            ``$ACPHOST_SETTINGS``): it chooses the agent's command, so the
            agent may neither rewrite nor read it (nor ``policy_file``).

    """

    write: bool = False
    yolo: bool = False
    approve: str | None = None
    policy_file: str | None = None
    audit_log: str | None = None
    audit_stream: IO[str] | None = None
    fs: bool = True
    terminal: bool = True
    output_files: tuple[str, ...] = ()
    settings_file: str | os.PathLike[str] | None = None


def build_host_config(
    choices: HostChoices,
    spec: AgentSpec,
    *,
    asker: Asker | None = None,
    on_terminal_event: Callable[[TerminalEvent], None] | None = None,
    redactor: Redactor | None = None,
    elicitation: ElicitationHandler | None = None,
    refusals: Refusals | None = None,
) -> HostConfig:
    """The :class:`~acphost.HostConfig` for the user's choices and this agent.

    Args:
        choices: the user's flags.
        spec: the agent (its quirks shape the file provider).
        asker: how to ask the user, when the face can ask.
        on_terminal_event: a hook for live terminal output (the TUI shows it).
        redactor: the run's redactor, for the audit log.
        elicitation: how to answer the agent's forms, when the face can
            ask (``None``: elicitation is not advertised).
        refusals: where to count what the policy refuses, for a face that
            says it at the end of the run (:class:`~._policy.Refusals`).

    Raises:
        PolicyFileError: the rules file is unreadable or malformed.
        OutputFileError: the audit log path is a symbolic link, not a
            regular file, or cannot be opened.

    """
    write = choices.write or choices.yolo
    # Writes are offered whenever something could allow one: the flags, a
    # user to ask, or a rules file; the policy still judges each write.
    offer_write = (
        write or choices.approve == "all" or asker is not None or choices.policy_file is not None
    )
    broker = build_broker(
        approve=choices.approve,
        policy_file=choices.policy_file,
        write=write,
        yolo=choices.yolo,
        asker=asker,
        audit_log=choices.audit_stream or choices.audit_log,
        redactor=redactor,
        refusals=refusals,
    )
    fs = (
        FileSystemProvider(
            allow_read_outside_workspace=choices.yolo,
            missing_file_returns_empty=spec.missing_file_returns_empty,
        )
        if choices.fs
        else None
    )
    terminals = TerminalManager(on_event=on_terminal_event) if choices.terminal else None
    outputs = [os.path.expanduser(p) for p in choices.output_files]
    if choices.audit_log is not None:
        outputs.append(os.path.expanduser(choices.audit_log))
    # The files that decide what the host runs and allows: an agent that
    # rewrote them would choose the next run's command or rules.
    for chosen in (choices.policy_file, choices.settings_file):
        if chosen:
            outputs.append(os.path.abspath(os.path.expanduser(chosen)))
    # acphost's own folders: the user's settings (which choose the agent
    # command), trusted project files, the history store. An agent working
    # in the home directory must not rewrite them.
    outputs.extend(str(d) for d in (config_dir(), state_dir(), data_dir()))
    return HostConfig(
        fs=fs,
        allow_write=offer_write and fs is not None,
        terminals=terminals,
        permissions=broker,
        protected_paths=tuple(outputs),
        elicitation=elicitation,
    )
