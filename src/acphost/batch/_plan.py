"""A plan: agents x prompts x repeats, each cell a :class:`Run` with a stable id.

Run ids are ``<agent>--<prompt id>--<repeat>`` made safe as file names, so a
rerun of the same plan finds the results of the first (resume). Runs are
ordered repetition first, then prompt, then agent: a batch stopped half-way
has compared every agent on the first prompts rather than finished one
agent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config import InputFileError, loads_strict, read_text_input
from ._model import HostFactory, Limits, Run, WorkspaceSource, redactor_for

if TYPE_CHECKING:
    from ..config import AgentSpec

__all__ = ["Plan", "PlanError", "Prompt", "make_plan", "read_prompts"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_ID_LENGTH = 48


class PlanError(ValueError):
    """The plan cannot be made (duplicate names, empty or malformed prompts)."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """One prompt of a batch.

    Attributes:
        id: unique in the batch (``p1``, ``p2``... unless a JSONL file names it).
        text: the prompt.
        workspace: where its runs start, when not the batch's workspace.

    """

    id: str
    text: str
    workspace: WorkspaceSource | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """Every run of a batch, in the order they are started.

    Attributes:
        runs: the runs.
        agents: the agents' names, in the order given.
        prompts: the prompts.
        repeat: how many times each agent runs each prompt.

    """

    runs: tuple[Run, ...]
    agents: tuple[str, ...]
    prompts: tuple[Prompt, ...]
    repeat: int

    def to_json(self) -> dict[str, Any]:
        """The plan as ``batch.json`` keeps it (no agent command or environment; redacted)."""
        sources = dict.fromkeys(r.workspace.describe() for r in self.runs)
        redact = redactor_for(
            {r.agent.name: r.agent for r in self.runs}.values(),
            {id(s): s for r in self.runs for s in r.mcp_servers}.values(),
        )
        return {
            "workspace": ", ".join(sources),
            "agents": list(self.agents),
            "prompts": [{"id": p.id, "prompt": redact(p.text)} for p in self.prompts],
            "repeat": self.repeat,
            "runs": [
                {
                    "id": r.id,
                    "agent": r.agent.name,
                    "agent_version": r.agent.version,
                    "prompt_id": r.prompt_id,
                    "repeat": r.repeat,
                    "fingerprint": r.fingerprint,
                    "workspace": r.workspace.describe(),
                }
                for r in self.runs
            ],
        }


def _slug(text: str) -> str:
    slug = _UNSAFE.sub("_", text).strip("._-") or "x"
    return slug[:_ID_LENGTH]


def make_plan(
    agents: Sequence[AgentSpec],
    prompts: Sequence[Prompt],
    *,
    workspace: WorkspaceSource,
    repeat: int = 1,
    limits: Limits | None = None,
    host: HostFactory | None = None,
    mcp_servers: Sequence[Mapping[str, Any]] = (),
    system_prompt: str | None = None,
    system_prompt_mode: str | None = None,
    subagents: bool = True,
) -> Plan:
    """Make the runs of agents x prompts x repeats.

    Args:
        agents: the agents (names must be unique).
        prompts: the prompts (ids must be unique).
        workspace: where runs start (unless a prompt names its own).
        repeat: runs per agent and prompt (>= 1).
        limits: per-run limits.
        host: builds each run's host configuration.
        mcp_servers: MCP servers for every session.
        system_prompt: every session's system prompt (None: each agent's own).
        system_prompt_mode: its mode (None: each agent's own, else ``append``).
        subagents: advertise subagents to the agents (see :attr:`Run.subagents`).

    Returns:
        The plan.

    Raises:
        PlanError: no agent or prompt, a duplicate name or id, ``repeat < 1``.

    """
    if not agents:
        raise PlanError("no agent: name at least one (--agent or --agent-command)")
    if not prompts:
        raise PlanError("no prompt: give --prompt, --prompts FILE or prompts in the spec")
    if repeat < 1:
        raise PlanError(f"--repeat must be at least 1, got {repeat}")
    _unique([a.name for a in agents], "agent name")
    _unique([p.id for p in prompts], "prompt id")
    slugs: dict[str, str] = {}
    runs = []
    for n in range(repeat):
        for prompt in prompts:
            for agent in agents:
                run_id = f"{_slug(agent.name)}--{_slug(prompt.id)}--{n}"
                who = f"agent {agent.name!r}, prompt {prompt.id!r}"
                if slugs.setdefault(run_id, who) != who:
                    raise PlanError(
                        f"{slugs[run_id]} and {who} give the same run id {run_id!r}: "
                        "rename one (ids keep letters, digits, '.', '_' and '-')"
                    )
                runs.append(
                    Run(
                        id=run_id,
                        agent=agent,
                        prompt_id=prompt.id,
                        prompt=prompt.text,
                        repeat=n,
                        workspace=prompt.workspace or workspace,
                        limits=limits or Limits(),
                        host=host,
                        mcp_servers=tuple(mcp_servers),
                        system_prompt=system_prompt,
                        system_prompt_mode=system_prompt_mode,
                        subagents=subagents,
                    )
                )
    return Plan(tuple(runs), tuple(a.name for a in agents), tuple(prompts), repeat)


def _unique(names: Sequence[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise PlanError(f"the {what} {name!r} is given twice")
        seen.add(name)


def numbered(texts: Sequence[str], start: int = 1) -> list[Prompt]:
    """Prompts ``p<start>``, ``p<start+1>``... for texts given without ids.

    Raises:
        PlanError: an empty prompt.

    """
    prompts = []
    for i, text in enumerate(texts, start):
        if not text.strip():
            raise PlanError(f"prompt {i} is empty")
        prompts.append(Prompt(f"p{i}", text))
    return prompts


def read_prompts(path: str, *, start: int = 1) -> list[Prompt]:
    """The prompts of a file: one per line, or JSONL objects ``{"id", "prompt"}``.

    A file whose first non-blank line starts with ``{`` is JSONL: every line
    must then be an object with a string ``prompt`` and, optionally, an
    ``id`` (a string or integer; default ``p<line>``) and a ``workspace``
    (a directory, relative to the file). Otherwise each non-blank line is one
    prompt, numbered from ``start``.

    Args:
        path: the file.
        start: the number of the first unnamed prompt.

    Returns:
        The prompts, in file order.

    Raises:
        PlanError: unreadable, empty, or a malformed line (the message names it).

    """
    try:
        text = read_text_input(os.path.expanduser(path), what="the --prompts file")
    except InputFileError as exc:
        raise PlanError(str(exc)) from None
    lines = text.splitlines()
    content = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not content:
        raise PlanError(f"the prompts file {path} has no prompt")
    if not content[0][1].lstrip().startswith("{"):
        return numbered([line for _, line in content], start)
    from ._workspace import WorkspaceError, inspect_workspace  # noqa: PLC0415

    base = os.path.dirname(os.path.abspath(os.path.expanduser(path)))
    prompts = []
    for n, line in content:
        where = f"{path}:{n}"
        try:
            data = loads_strict(
                line, where=path, first_line=n, fix='expected {"id": ..., "prompt": "..."}'
            )
        except InputFileError as exc:
            raise PlanError(str(exc)) from None
        if not isinstance(data, dict) or not isinstance(data.get("prompt"), str):
            raise PlanError(f'{where}: expected {{"id": ..., "prompt": "..."}}')
        raw_id = data.get("id", f"p{n}")
        if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or raw_id == "":
            raise PlanError(f"{where}: id must be a non-empty string or an integer")
        if not data["prompt"].strip():
            raise PlanError(f"{where}: the prompt is empty")
        source = None
        if data.get("workspace") is not None:
            if not isinstance(data["workspace"], str):
                raise PlanError(f"{where}: workspace must be a path")
            try:
                source = inspect_workspace(os.path.join(base, data["workspace"]))
            except WorkspaceError as exc:
                raise PlanError(f"{where}: {exc}") from None
        prompts.append(Prompt(str(raw_id), data["prompt"], source))
    return prompts
