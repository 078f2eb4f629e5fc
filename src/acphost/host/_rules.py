"""A permission policy read from a JSON rules file.

The format::

    {
      "rules": [
        {"kind": "read", "decision": "allow"},
        {"kind": ["edit", "delete"], "path": "/work/proj/src/*", "decision": "allow"},
        {"kind": "execute", "command": "git status", "decision": "allow"},
        {"kind": "execute", "command": "npm test 2>&1 | tail -n 50", "shell": true,
         "decision": "allow"},
        {"kind": "execute", "command": "npm test", "decision": "ask", "once": "turn"},
        {"tool": ["Bash", "mcp__*"], "decision": "ask"},
        {"title": "*rm -rf*", "decision": "reject"}
      ],
      "default": "ask"
    }

The first rule whose matchers all match decides; with no match, ``default``
does (``reject`` when absent). The default applies to every request, the
host's own file reads included: a file that rejects by default needs a
``{"kind": "read", "decision": "allow"}`` rule to let the agent read. Matching:

* ``kind``: the request's tool kind (a mediated read counts as ``read``, a
  write as ``edit``, a terminal as ``execute``) is one of the listed
  ``ToolKind`` values.
* ``tool``: the tool's programmatic name (``ToolCall.name``, e.g. ``Bash``)
  matches one of the listed globs. A request without a name never matches.
* ``title``, ``path``: ``fnmatch`` globs, case-sensitive, where ``*`` also
  matches ``/``. A request without that attribute never matches. Paths are
  canonical: the request's paths were resolved the way the jail resolves
  them, and so are the directories a ``path`` glob spells before its first
  wildcard.
* ``path`` with several paths: an allow or ask rule needs *every* path to
  match; a reject rule needs *any* path to match. Both err on the safe side.
* ``command`` is matched word by word against the argv that will run
  (``acphost.host._commands``): a glob stays within one word and never
  matches an option (``-x``, ``--flag``) or an environment assignment unless
  the pattern spells them; a last word ``**`` matches any further words. A
  shell line with shell syntax (``;``, ``|``, ``$``, redirections, globs...)
  has no words, so only a rule with ``"shell": true`` matches it, and only
  when the line is exactly the rule's ``command``. A reject rule also matches
  when its ``command`` glob matches the whole command line.
* ``command`` judges what will run (:mod:`._lookup`): for an allow or ask
  rule, a glob or ``**`` standing for the program matches only a bare name
  found on the ``PATH`` the command runs with, outside the workspace (never
  ``./git``, ``sub/git``, ``/ws/git``, nor a name a workspace ``PATH`` entry
  could supply), and a name the rule spells never matches the agent's file;
  where one stands for the subcommand of a program that dispatches (``git``,
  ``cargo``, ``gh``, ``kubectl``, ``docker``, ``helm``, ``npm``, ``pnpm``,
  ``yarn``, ``bun``; :data:`~._programs.DISPATCHERS`), it matches only a
  built-in command (``git *`` allows ``git status``, never ``git
  x/../../usr/bin/make``, which runs ``make``, nor ``git-lfs`` or an alias;
  ``pnpm *`` no ``package.json`` script); ``env``, ``nice``, ``timeout``...
  are judged by the command they run.
* ``"once": "turn"`` on an ``ask`` rule: the user is asked once per turn;
  the answer covers the same request (every fact the question showed) until
  the next prompt. For commands that run what the agent can write (``npm
  test`` runs ``package.json`` scripts, ``pytest`` runs ``conftest.py``,
  ``make`` the ``Makefile``; :func:`~._programs.runs_workspace_code`):
  allowed outright while writes are allowed, they allow any command.
* Protected paths (``.git/hooks``, ``.git/config``, ``.acphost``, the host's
  output files; :mod:`acphost.host._protect`): an allow or ask rule applies to
  a write there only if its ``path`` names the protected area literally;
  other allow rules and the default are skipped, so such a write is rejected.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from ..config import InputFileError, loads_strict, read_input
from ..errors import AcpError, RequestError
from ._commands import command_words, match_words, pattern_words, shell_line_of, shell_words
from ._jail import resolve_path
from ._lookup import pattern_holds_what_runs
from ._policy import Decision, PermissionRequest, Verdict
from ._programs import runs_workspace_code
from ._protect import names_area

__all__ = ["PolicyFileError", "Rule", "RulesPolicy"]

KNOWN_TOOL_KINDS = frozenset(
    {"read", "edit", "delete", "move", "search", "execute"}
    | {"think", "fetch", "switch_mode", "other"}
)
_RULE_KEYS = frozenset({"kind", "tool", "title", "path", "command", "shell", "decision", "once"})
_TOP_KEYS = frozenset({"rules", "default"})


class PolicyFileError(AcpError, ValueError):
    """A rules file could not be used; the message names the file and the problem."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of a :class:`RulesPolicy`; ``None`` matchers match anything.

    Attributes:
        decision: what the rule decides when it matches.
        kinds: tool kinds that match.
        title: a glob on the tool call's title.
        path: a glob on the paths concerned.
        command: a word pattern on the command (a shell line with ``shell``).
        tools: globs on the tool's programmatic name.
        shell: ``command`` is an exact shell line, syntax allowed.
        once: ``"turn"``: an ``ask`` rule asks once per turn (the answer
            covers the same request until the next prompt).

    Raises:
        ValueError: ``command`` has unbalanced quotes, is empty, or has
            ``**`` anywhere but last; ``shell`` without ``command``;
            ``once`` other than ``"turn"``, or on a rule that does not ask.

    """

    decision: Decision
    kinds: frozenset[str] | None = None
    title: str | None = None
    path: str | None = None
    command: str | None = None
    tools: tuple[str, ...] | None = None
    shell: bool = False
    once: str | None = None
    _words: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)
    _path: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.shell and self.command is None:
            raise ValueError("'shell' needs a 'command' (the exact shell line)")
        if self.once is not None and (self.once != "turn" or self.decision is not Decision.ASK):
            raise ValueError(
                '\'once\' may only be "turn", on a rule whose decision is "ask" (ask once per turn)'
            )
        if self.command is not None and not self.shell:
            object.__setattr__(self, "_words", pattern_words(self.command))
        if self.path is not None:
            object.__setattr__(self, "_path", _canonical_glob(self.path))

    def matches(self, request: PermissionRequest) -> bool:
        """Tell whether every matcher of this rule matches the request.

        Args:
            request: the request to test.

        Returns:
            ``True`` when all the given matchers match.

        """
        if self.kinds is not None and request.kind not in self.kinds:
            return False
        if self.tools is not None and (
            request.tool_name is None
            or not any(fnmatchcase(request.tool_name, glob) for glob in self.tools)
        ):
            return False
        if self.title is not None and (
            request.title is None or not fnmatchcase(request.title, self.title)
        ):
            return False
        if self.path is not None:
            paths = [os.path.normpath(p) for p in request.paths]
            if not paths:
                return False
            hits = (fnmatchcase(p, self._path or self.path) for p in paths)
            if not (any(hits) if self.decision is Decision.REJECT else all(hits)):
                return False
        return self.command is None or self._command_matches(request)

    def names(self, areas: tuple[str, ...]) -> bool:
        """Tell whether this rule's ``path`` names every protected area given.

        Args:
            areas: the request's protected areas.

        Returns:
            ``True`` when the path glob spells each area out literally.

        """
        glob = self._path
        return glob is not None and all(names_area(glob, a) for a in areas)

    def _command_matches(self, request: PermissionRequest) -> bool:
        assert self.command is not None
        argv, line = request.argv, request.shell_line
        if argv is None and line is None:
            line = request.command  # a request built by hand: its command is a line
        if self.shell:
            run = shell_line_of(argv, line)
            return run is not None and not request.env and run.strip() == self.command.strip()
        words = command_words(argv, line, request.env)
        if words is not None and match_words(self._words, words):
            if self.decision is Decision.REJECT:
                return True
            # What will run: a glob stands for no program the agent wrote, no
            # path, and no plugin, alias or script a subcommand would run.
            if pattern_holds_what_runs(
                self._words, words, cwd=request.cwd, workspace=request.workspace
            ):
                return True
        # A reject rule errs on the side of matching: the glob on the whole line too.
        return (
            self.decision is Decision.REJECT
            and request.command is not None
            and fnmatchcase(request.command, self.command)
        )


class RulesPolicy:
    """First-match rules with a default; see the module docstring for the format.

    Args:
        rules: the rules, in order.
        default: the decision when no rule matches.
        source: a name for the reasons ("rule 3 in policy.json").

    """

    __slots__ = ("_default", "_rules", "_source")

    def __init__(
        self, rules: Sequence[Rule], default: Decision = Decision.REJECT, source: str = "rules"
    ) -> None:
        self._rules = tuple(rules)
        self._default = default
        self._source = source

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules, in order."""
        return self._rules

    @property
    def default(self) -> Decision:
        """The decision when no rule matches."""
        return self._default

    def cautions(self) -> list[str]:
        """Say which allow rules let the agent run any command once it may write files.

        A rule allowing ``npm test``, ``pytest`` or ``make`` outright runs
        whatever the agent wrote into ``package.json``, ``conftest.py`` or
        the ``Makefile`` (:func:`~._programs.runs_workspace_code`).

        Returns:
            One line per such rule, naming it and the safer form.

        """
        out = []
        for index, rule in enumerate(self._rules, start=1):
            if rule.decision is not Decision.ALLOW or rule.command is None:
                continue
            words = shell_words(rule.command) if rule.shell else rule._words
            if words and any(c in words[0] for c in "*?["):
                out.append(
                    f"rule {index} in {self._source} allows {rule.command!r} for any program "
                    "found on PATH outside the workspace (never one that runs the workspace's "
                    "build files or scripts, such as make, npm or mvn): name the programs instead"
                )
                continue
            what = runs_workspace_code(words) if words else None
            if what is None:
                continue
            out.append(
                f"rule {index} in {self._source} allows {rule.command!r}: {what}, which the "
                "agent can write; while it may write files this allows any command "
                '(use "decision": "ask" with "once": "turn", or allow no writes)'
            )
        return out

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> RulesPolicy:
        """Load a rules file.

        Args:
            path: the JSON file.

        Returns:
            The policy.

        Raises:
            PolicyFileError: the file cannot be read, is not JSON (line and
                column given), has an unknown key or a value of the wrong type.

        """
        name = os.fspath(path)
        try:
            data = loads_strict(
                read_input(name, what="permission rules file (--permission-policy)"),
                where=f"permission rules file {name}",
                fix='expected {"rules": [...], "default": ...} in strict JSON',
            )
        except InputFileError as exc:
            raise PolicyFileError(str(exc)) from None
        return cls.from_dict(data, source=os.path.basename(name) or name)

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "rules") -> RulesPolicy:
        """Build a policy from already-decoded JSON.

        Args:
            data: the decoded document.
            source: the name used in reasons and errors.

        Returns:
            The policy.

        Raises:
            PolicyFileError: unknown key or wrong type, naming the place.

        """

        def fail(where: str, problem: str) -> PolicyFileError:
            return PolicyFileError(f"permission rules {source!r}: {where}: {problem}")

        if not isinstance(data, dict):
            raise fail("top level", "must be an object with 'rules' and 'default'")
        unknown = sorted(set(data) - _TOP_KEYS)
        if unknown:
            raise fail("top level", f"unknown key(s) {unknown}; expected 'rules', 'default'")
        default = _decision(data.get("default", "reject"), "'default'", fail)
        raw_rules = data.get("rules", [])
        if not isinstance(raw_rules, list):
            raise fail("'rules'", "must be a list")
        rules: list[Rule] = []
        for index, raw in enumerate(raw_rules, start=1):
            where = f"rule {index}"
            if not isinstance(raw, dict):
                raise fail(where, "must be an object")
            unknown = sorted(set(raw) - _RULE_KEYS)
            if unknown:
                raise fail(where, f"unknown key(s) {unknown}; expected {sorted(_RULE_KEYS)}")
            if "decision" not in raw:
                raise fail(where, "'decision' is required")
            decision = _decision(raw["decision"], f"{where} 'decision'", fail)
            kinds = None
            listed = _strings(raw, "kind", where, fail, "a string or a non-empty list of strings")
            if listed is not None:
                bad = sorted(set(listed) - KNOWN_TOOL_KINDS)
                if bad:
                    raise fail(where, f"unknown kind(s) {bad}; known: {sorted(KNOWN_TOOL_KINDS)}")
                kinds = frozenset(listed)
            listed = _strings(raw, "tool", where, fail, "a glob string or a non-empty list of them")
            tools = tuple(listed) if listed is not None else None
            globs: dict[str, str | None] = {}
            for key in ("title", "path", "command"):
                value = raw.get(key)
                if value is not None and not isinstance(value, str):
                    raise fail(where, f"{key!r} must be a glob string")
                globs[key] = value
            shell = raw.get("shell", False)
            if not isinstance(shell, bool):
                raise fail(where, "'shell' must be true or false")
            once = raw.get("once")
            if once is not None and not isinstance(once, str):
                raise fail(where, "'once' must be \"turn\"")
            try:
                rule = Rule(
                    decision,
                    kinds,
                    globs["title"],
                    globs["path"],
                    globs["command"],
                    tools=tools,
                    shell=shell,
                    once=once,
                )
            except ValueError as exc:
                raise fail(where, str(exc)) from None
            rules.append(rule)
        return cls(rules, default, source)

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Apply the first matching rule, else the default.

        Args:
            request: what is asked.

        Returns:
            The verdict; its reason names the rule ("rule 3 in policy.json").

        """
        protected = request.protected
        for index, rule in enumerate(self._rules, start=1):
            if not rule.matches(request):
                continue
            named = bool(protected) and rule.names(protected)
            if protected and rule.decision is not Decision.REJECT and not named:
                continue  # only a rule naming a protected area may open it
            reason = f"rule {index} in {self._source}"
            return Verdict(
                rule.decision,
                False,
                reason,
                names_protected=named,
                per_turn=rule.once == "turn",
            )
        return Verdict(self._default, False, f"default of {self._source}")


def _canonical_glob(glob: str) -> str:
    """Resolve a path glob's directories the way request paths are resolved.

    Request paths are canonical, so the whole directories written before the
    first wildcard are resolved too (``/home/me/proj/*`` matches when
    ``/home`` is a link); the last component and everything from the first
    wildcard on stay as written. A relative or unresolvable glob is kept.
    """
    cut = min((i for i, c in enumerate(glob) if c in "*?["), default=len(glob))
    head = glob[: glob.rfind("/", 0, cut) + 1]
    if not head.startswith("/"):
        return glob
    try:
        real = resolve_path(head)
    except RequestError:
        return glob
    return real.rstrip("/") + "/" + glob[len(head) :]


def _strings(raw: dict[str, Any], key: str, where: str, fail: Any, shape: str) -> list[str] | None:
    """A matcher given as one string or a non-empty list of non-empty strings."""
    if key not in raw:
        return None
    value = raw[key]
    listed = [value] if isinstance(value, str) else value
    if (
        not isinstance(listed, list)
        or not listed
        or not all(isinstance(k, str) and k for k in listed)
    ):
        raise fail(where, f"{key!r} must be {shape}")
    return listed


def _decision(value: Any, where: str, fail: Any) -> Decision:
    try:
        return Decision(value)
    except (ValueError, TypeError):
        raise fail(where, f"must be 'allow', 'reject' or 'ask', got {value!r}") from None
