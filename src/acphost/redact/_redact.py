"""The one redactor: secrets out of every frame, log line and report acphost keeps or shows.

Whatever shows or persists frames or diagnostics goes through one
:class:`Redactor` built from the host's configuration (the recorder, the TUI
protocol log, the audit log, crash reports with the agent's stderr tail,
``doctor``/``agents``, live-check warnings, the history store), so that
sensitive fields are redacted wherever they are shown or logged.

What it removes (see :mod:`._patterns` for the lists):

- the **exact values the host was configured with**, wherever they appear,
  even inside a longer string, whatever the case of their ASCII letters
  (and in their JSON-escaped, URL- and form-encoded spellings; for a
  multi-line value, with any line ending, and each of its lines of at least
  :data:`LINE_PIECE` characters);
- in decoded frames: the string value of any credential-like key (``token``,
  ``apiKey``, ``authorization``…; numbers such as ``inputTokens`` counts are
  kept), every value of an ``env`` or ``headers`` map and the ``value`` of
  their ``{name, value}`` items, and secret flag values in ``args`` lists;
- in any text: known token formats, ``Bearer``/``Basic`` credentials, URL
  passwords, ``name=value``/``name: value`` pairs and ``--flag value`` with a
  credential-like name;
- beside a cut mark (:data:`~acphost.safetext.CUT`: text cut short before it
  could be redacted), the beginning of a configured value the text ends
  with, and the end of one it starts with.

Text is redacted whole and only then cut to a display limit; the mark is
for the few places where the cut must come first (the transport, below the
redactor, caps an agent's stderr lines).

Everything is one precompiled regular expression applied in one pass; a
JSON line with nothing to redact is kept byte for byte.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, quote_plus

import orjson

from ..safetext import CUT
from ._configured import AgentLike, SettingsLike, argv_secrets, configured_secrets
from ._literals import Literals
from ._overlap import Overlaps
from ._patterns import MIN_SECRET_LENGTH, TOKEN_FORMATS, Rule, is_secret_name, trie_pattern
from ._triggers import Triggers

__all__ = ["REDACTED", "Redactor", "encode_json"]

REDACTED = "[REDACTED]"

# A number (of at most 64 characters: whether a value is one is known from its
# start, as REACH needs; longer runs of digits are no count) or a word such as null.
_PLAIN_VALUE = re.compile(r"[\"']?(?:-?[0-9][0-9.eE+-]{0,63}|true|false|null|none)[\"']?", re.I)
# Members whose every string value is configuration for a process or a server.
_MAPS = frozenset({"env", "headers"})
_NAME_VALUE = "\0name-value"  # walk context: an item of an env/headers list


#: A line of a multi-line configured value (a PEM key's base64 body) is
#: redacted on its own when it is at least this long: shorter lines, and
#: armour lines such as ``-----END PRIVATE KEY-----``, are common text.
LINE_PIECE = 16
_ARMOUR = re.compile(r"-----[A-Za-z0-9 ]*-----")
_NEWLINE = re.compile(r"\r\n|\r|\n")


def _forms(secret: str) -> set[str]:
    """A configured value as text may hold it.

    As is; for a multi-line value, also its lines joined by LF, CRLF and CR,
    and each long line alone (an agent may quote one line of a key in an
    error message).
    """
    forms = {secret}
    lines = _NEWLINE.split(secret)
    if len(lines) > 1:
        forms.update(sep.join(lines) for sep in ("\n", "\r\n", "\r"))
        for line in lines:
            piece = line.strip()
            if (
                len(piece) >= LINE_PIECE
                and _ARMOUR.fullmatch(piece) is None
                and any(c.isalnum() for c in piece)
            ):
                forms.add(piece)
    return forms


def _spellings(secret: str) -> set[str]:
    """A configured value as it may appear in raw JSON, a URL, a form or plain text.

    Each form (:func:`_forms`) as is, JSON-escaped (ASCII-only or not), and
    percent-encoded as a URL path or query (``%2F``) or a form (``+`` for a
    space). Lower-case hexadecimal digits (``%2f``, the same octet by RFC
    3986 §2.1) are found too: configured values are matched without ASCII
    case (:class:`~acphost.redact._literals.Literals`). At most a few dozen
    words per value, each a few times its length: the literals stay linear
    in the configuration's size.
    """
    out: set[str] = set()
    for form in _forms(secret):
        out.add(form)
        out.add(json.dumps(form)[1:-1])
        out.add(json.dumps(form, ensure_ascii=False)[1:-1])
        out.add(quote(form, safe=""))
        out.add(quote_plus(form, safe=""))
    return {s for s in out if s}


#: How many more times a rule with ``again`` is applied at most (each pass
#: masks at least one secret, or the text stops changing).
_AGAIN = 16


class _Compiled:
    """The rules' expressions, each compiled when a text first wakes its rule.

    Most text wakes few rules or none: compiling all of them up front cost
    every run that redacts anything ~10 ms (a prompt run's history record).
    """

    __slots__ = ("_compiled", "_rules")

    def __init__(self, rules: list[Rule]) -> None:
        self._rules = rules
        self._compiled: dict[int, tuple[Rule, re.Pattern[str]]] = {}

    def __getitem__(self, index: int) -> tuple[Rule, re.Pattern[str]]:
        compiled = self._compiled.get(index)
        if compiled is None:
            rule = self._rules[index]
            compiled = self._compiled[index] = (rule, re.compile(rule.pattern))
        return compiled


class Redactor:
    """Replaces secrets in text, argv lists and decoded or raw JSON frames.

    Build one per run from the host's configuration (:meth:`from_config`)
    and hand the same instance to every writer and view.

    Args:
        secrets: exact values to redact wherever they appear (values shorter
            than 4 characters are ignored: they would match everywhere).
        key_patterns: extra regular expressions; keys matching any are redacted.
        value_patterns: extra regular expressions; matching text is redacted.

    """

    def __init__(
        self,
        secrets: Iterable[str] = (),
        *,
        key_patterns: Iterable[str] = (),
        value_patterns: Iterable[str] = (),
    ) -> None:
        spellings = {s for v in secrets if len(v) >= MIN_SECRET_LENGTH for s in _spellings(v)}
        self.secrets: tuple[str, ...] = tuple(sorted(spellings))
        rules = list(TOKEN_FORMATS)
        rules += [Rule(f"extra{i}", (), p) for i, p in enumerate(value_patterns)]
        # The configured values are found by Literals (any number, any length,
        # linear in the text), not by this rule's pattern; the rule is there for
        # its triggers: where no value's head occurs, no value does.
        self._literals = Literals(spellings) if spellings else None
        if self._literals is not None:
            rules.insert(0, Rule("configured", self._literals.heads, "(?!)"))
        self._rule_list = rules
        self._extra_keys = list(key_patterns)
        self._always = tuple(i for i, rule in enumerate(rules) if not rule.triggers)
        self._needs = {i: rule.needs for i, rule in enumerate(rules) if rule.needs}
        # Every rule's triggers, lower-cased (the text is searched lower-cased):
        # trigger -> the rules it wakes (see ._triggers).
        self._woken: dict[str, set[int]] = {}
        for i, rule in enumerate(rules):
            for trigger in rule.triggers:
                self._woken.setdefault(trigger.lower(), set()).add(i)
        # The expressions are compiled when first used (see __getattr__): a
        # run that never redacts anything (no warning, no trace) pays nothing.

    def __getattr__(self, name: str) -> Any:
        # Only for attributes not set yet: the compiled expressions.
        if name not in ("_rules", "_triggers", "_raw_hint", "_extra_key", "_overlaps"):
            raise AttributeError(name)
        self._compile()
        return self.__dict__[name]

    def _compile(self) -> None:
        self._rules = _Compiled(self._rule_list)
        self._triggers = Triggers(self._woken)
        # A raw JSON line needs the walk when it has a trigger (bytes.lower folds
        # ASCII only, so these are folded the same way), an escape that could
        # hide one, a map whose values are all secret, or a credential key.
        raw = {t.encode().lower().decode() for t in self._woken}
        raw |= {"\\u", "\\/", '"env"', '"headers"', '"args"', 'auth"', 'pat"'}
        self._raw_hint = re.compile(trie_pattern(raw).encode())
        extra = self._extra_keys
        self._extra_key = re.compile("|".join(extra), re.I) if extra else None
        self._overlaps = Overlaps(self.secrets)

    @classmethod
    def from_config(
        cls,
        *,
        agent: AgentLike | None = None,
        settings: SettingsLike | None = None,
        mcp_servers: Iterable[Mapping[str, Any]] = (),
        extra: Iterable[str] = (),
        host_env: Mapping[str, str] | None = os.environ,
        agents: Iterable[AgentLike] = (),
    ) -> Redactor:
        """The redactor for a run: every value the host was configured with.

        Args:
            agent: the agent launched (an ``AgentSpec``): its env values and
                secret arguments.
            agents: more agents, for a host that runs several (a batch).
            settings: the settings in use: MCP server env values and headers.
            mcp_servers: MCP servers passed another way (ACP wire form).
            extra: values that are secret whatever they look like (auth inputs).
            host_env: the host's environment; its credential-named variables
                (``GITHUB_TOKEN``, ``OPENAI_API_KEY``) reach the agent too.
                None leaves them out.

        Returns:
            A redactor knowing those values (see :func:`configured_secrets`).

        """
        servers = list(mcp_servers)
        secrets = configured_secrets(
            agent=agent, settings=settings, mcp_servers=servers, host_env=host_env, extra=extra
        )
        for more in agents:
            secrets += configured_secrets(agent=more, mcp_servers=servers)
        return cls(secrets)

    # -- text -----------------------------------------------------------------------

    @staticmethod
    def _replace(m: re.Match[str]) -> str:
        groups = m.re.groupindex
        if "value" in groups:
            v = m.group("value")
            at = m.start("value")
            if _PLAIN_VALUE.fullmatch(v) or REDACTED in m.string[at : at + len(REDACTED) + 1]:
                return m.group(0)  # a number or a word such as null, not a secret
            q = v[0] if v[:1] in ("'", '"') and len(v) > 1 else ""
            return m.group(0)[: m.start("value") - m.start()] + q + REDACTED + q
        keep = m.group("keep") if "keep" in groups else ""
        tail = m.group("tail") if "tail" in groups else ""
        return f"{keep}{REDACTED}{tail}"

    def _active(self, text: str) -> list[int]:
        """The rules worth running on ``text``, in order (one search for all triggers)."""
        active = self._triggers.woken(text.lower())
        needs = self._needs
        for i in active & needs.keys():
            if not any(literal in text for literal in needs[i]):
                active.discard(i)
        active.update(self._always)
        return sorted(active)

    def redact_text(self, text: str) -> str:
        """Return ``text`` with every secret replaced by ``[REDACTED]``.

        One search finds which rules can apply (their trigger literals); each
        of those then runs its precompiled expression, configured values first.

        Args:
            text: any text: a log line, an agent's stderr, a command line.

        Returns:
            The text, the same object when nothing was found.

        """
        if len(text) < MIN_SECRET_LENGTH:
            return text
        return self._apply(text, self._active(text))

    def _apply(self, text: str, active: list[int]) -> str:
        out = text
        if len(text) >= MIN_SECRET_LENGTH:
            # Pieces beside a cut mark first: the end of a multi-line value
            # after a mark is one piece, before its lines are found one by one.
            if CUT in out and self.secrets:
                out = self._mask_cuts(out)
            for i in active:
                if i == 0 and self._literals is not None:
                    out = self._literals.sub(REDACTED, out)
                else:
                    rule, pattern = self._rules[i]
                    out = pattern.sub(self._replace, out)
                    for _ in range(_AGAIN if rule.again else 0):
                        before, out = out, pattern.sub(self._replace, out)
                        if out == before:
                            break
        return text if out == text else out

    def _mask_cuts(self, text: str) -> str:
        """Mask the pieces of configured values that text cut short still shows.

        Where text had to be cut before it could be redacted (an agent's
        overlong stderr line, see :data:`~acphost.safetext.CUT`), a value
        the cut went through is not whole any more, and whole values are
        all :meth:`redact_text` finds. So the end of the text before each
        mark is masked when it is the beginning of a configured value, and
        the start of the text after it when it is the end of one: a piece
        of a secret is secret too. At least :data:`MIN_SECRET_LENGTH`
        characters, the length below which whole values are not looked for
        either: shorter pieces are told apart from ordinary text by nothing,
        and more than that would leave most of a short password in clear.
        Masking a few innocent characters beside a mark costs nothing.
        """
        pieces = text.split(CUT)
        overlaps = self._overlaps
        out = []
        for i, piece in enumerate(pieces):
            head = overlaps.ends(piece) if i > 0 else 0
            tail = overlaps.begins(piece) if i < len(pieces) - 1 else 0
            head = head if head >= MIN_SECRET_LENGTH else 0
            tail = tail if tail >= MIN_SECRET_LENGTH else 0
            if head + tail >= len(piece) and (head or tail):
                out.append(REDACTED)
            else:
                start = REDACTED if head else ""
                end = REDACTED if tail else ""
                out.append(start + piece[head : len(piece) - tail] + end)
        return CUT.join(out)

    def redact_argv(self, argv: Sequence[str]) -> list[str]:
        """Redact a command line: values of secret flags and ``NAME=value`` pairs.

        ``--api-key V`` and ``--token=V`` keep the flag, ``API_KEY=V`` the name;
        every other argument goes through :meth:`redact_text`.

        Args:
            argv: the program and its arguments.

        Returns:
            A new list of the same length.

        """
        out = [self.redact_text(arg) for arg in argv]
        for i, prefix in argv_secrets(argv):
            out[i] = prefix + REDACTED
        return out

    # -- decoded JSON ----------------------------------------------------------------

    def __call__(self, value: Any) -> Any:
        """Same as :meth:`redact_frame`."""
        return self.redact_frame(value)

    def redact_frame(self, value: Any) -> Any:
        """Return a redacted copy of a decoded JSON value (the input is not modified).

        Args:
            value: a decoded frame or any part of one; nesting depth is not
                limited (the walk is iterative).

        Returns:
            The copy; numbers, booleans and null are kept as they are.

        """
        return self._walk(value)[0]

    def _secret_key(self, key: str) -> bool:
        if is_secret_name(key):
            return True
        return self._extra_key is not None and self._extra_key.search(key) is not None

    def _walk(self, root: Any) -> tuple[Any, bool]:
        """The redacted copy of ``root`` and whether anything was redacted."""
        if isinstance(root, str):
            out = self.redact_text(root)
            return out, out is not root
        if not isinstance(root, (dict, list)):
            return root, False
        # One trigger search over all the strings picks the rules for all of them.
        active = self._active("\n".join(_strings(root)))

        configured = [0] if 0 in active and self._rules[0][0].name == "configured" else []

        def text(value: str) -> str:
            return self._apply(value, active) if active or CUT in value else value

        changed = False
        copy: Any = {} if isinstance(root, dict) else [None] * len(root)
        stack: list[tuple[Any, Any, str | None]] = [(root, copy, None)]
        while stack:
            src, dst, context = stack.pop()
            if isinstance(src, dict):
                whole_map = context in _MAPS and not _is_name_value(src)
                for key, v in src.items():
                    # A configured value may even be a key; nothing else is looked for there.
                    k = self._apply(key, configured) if configured else key
                    changed = changed or k is not key
                    if isinstance(v, str):
                        if v and (
                            whole_map
                            or (context == _NAME_VALUE and key == "value")
                            or self._secret_key(key)
                        ):
                            dst[k] = REDACTED
                            changed = True
                        else:
                            r = text(v)
                            changed = changed or r is not v
                            dst[k] = r
                    elif isinstance(v, (dict, list)):
                        child: Any = {} if isinstance(v, dict) else [None] * len(v)
                        dst[k] = child
                        stack.append((v, child, key))
                    else:
                        dst[k] = v
                continue
            if context == "args" and all(isinstance(a, str) for a in src):
                dst[:] = self.redact_argv(src)
                changed = changed or dst != src
                continue
            item_context = _NAME_VALUE if context in _MAPS else None
            for i, v in enumerate(src):
                if isinstance(v, str):
                    r = text(v)
                    changed = changed or r is not v
                    dst[i] = r
                elif isinstance(v, (dict, list)):
                    child = {} if isinstance(v, dict) else [None] * len(v)
                    dst[i] = child
                    stack.append((v, child, item_context))
                else:
                    dst[i] = v
        return copy, changed

    # -- raw lines ------------------------------------------------------------------

    def redact_line(self, line: bytes) -> bytes:
        r"""Redact one raw frame (a JSON-RPC line) as it was on the wire.

        A JSON line with nothing to redact comes back unchanged, byte for
        byte; one with secrets is re-encoded with them replaced. A line that
        is not JSON (or that the JSON-RPC reader would refuse: invalid UTF-8,
        lone surrogates, non-finite numbers, nesting past its limit) is
        redacted as text, its invalid bytes shown as ``\xNN``.

        Args:
            line: the frame's bytes, without or with its newline.

        Returns:
            The redacted line (keeping a trailing newline if there was one).

        """
        nl = b"\n" if line.endswith(b"\n") else b""
        body = line[: len(line) - len(nl)]
        try:
            frame = orjson.loads(body)
        except orjson.JSONDecodeError:
            text = body.decode("utf-8", "backslashreplace")
            return self.redact_text(text).encode("utf-8") + nl
        redacted, changed = self.redact_parsed(body, frame)
        if not changed:
            return line
        encoded = encode_json(redacted)
        if encoded is None:  # the line, redacted as text, as a JSON string
            encoded = orjson.dumps(self.redact_text(body.decode("utf-8")))
        return encoded + nl

    def redact_parsed(self, raw: bytes, frame: Any) -> tuple[Any, bool]:
        """Redact a frame already decoded from ``raw`` (what the recorder uses).

        A cheap look at the raw bytes skips the walk for the common frame
        with nothing to redact.

        Args:
            raw: the frame's bytes.
            frame: ``orjson.loads(raw)``.

        Returns:
            The redacted frame (``frame`` itself when unchanged) and whether
            anything was redacted.

        """
        if not self._might_hold_secrets(raw):
            return frame, False
        redacted, changed = self._walk(frame)
        return (redacted, True) if changed else (frame, False)

    def _might_hold_secrets(self, raw: bytes) -> bool:
        # Without a \\u or \\/ escape, every trigger that is in a decoded
        # string is in the raw bytes, and so is the JSON spelling of a
        # configured value.
        return (
            bool(self._always)
            or self._extra_key is not None
            or self._raw_hint.search(raw.lower()) is not None
        )


def _strings(root: Any) -> list[str]:
    """Every key and string in a decoded JSON value, without recursion."""
    out: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            out.append(node)
    return out


def _is_name_value(value: dict[str, Any]) -> bool:
    return set(value) <= {"name", "value", "_meta"} and "value" in value


def encode_json(value: Any) -> bytes | None:
    """Compact JSON for a decoded (and redacted) value; None when nested too deep to write.

    orjson writes fewer levels than it reads; the standard library goes deeper.
    """
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        pass
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (ValueError, RecursionError):
        return None
