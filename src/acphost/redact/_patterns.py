"""What a secret looks like: credential-like names and known token formats.

With the configured values (:mod:`._configured`), the three sources the
:class:`~acphost.trace.Redactor` uses:

- **names**: a key, an ``env`` variable, a command-line flag or a
  ``name=value`` pair whose name says credential (``token``, ``password``,
  ``PGPASSWORD``, ``apiKey``, ``AZURE_OPENAI_KEY``, ``SENTRY_DSN``,
  ``--api-key``…; see :func:`is_secret_name`). Counts such as
  ``inputTokens``, and names about a credential (``PASSWORD_FILE``,
  ``AWS_ACCESS_KEY_ID``), are not secrets.
- **formats**: tokens recognisable on their own (:data:`TOKEN_FORMATS`):
  GitHub, GitLab, Hugging Face, AWS, Stripe, Slack, Google, OpenAI and
  Anthropic (``sk-…``), JWTs, PEM private keys, npm, PyPI, acphost's own
  MCP session tokens (``acphost_mcp_…``) and others, plus
  ``Bearer``/``Basic`` credentials and the password in a URL's userinfo.
- **configured values**: the exact values the host was given (an agent's
  ``env``, MCP server env and headers, secret arguments, auth inputs), chosen
  by :func:`~acphost.redact._configured.configured_secrets`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "MIN_SECRET_LENGTH",
    "NOT_SECRET_NAMES",
    "REACH",
    "TOKEN_FORMATS",
    "Rule",
    "is_secret_name",
    "trie_pattern",
]

#: Configured values shorter than this are not matched: they would match everywhere.
MIN_SECRET_LENGTH = 4

#: The most characters a text rule reads, from where its match starts, before
#: it knows that it matches: past that point any further text the match
#: takes only makes it longer (``ghp_`` and 30 characters is a token, however
#: many follow). What would let a rule wait longer is bounded (:data:`_GAP`,
#: :data:`_LONG`): a name with a value 300,000 blanks after it is no
#: ``name=value`` pair. A text redacted in pieces (the history's long turns,
#: ``acphost.history._textrun``) keeps at least this much after each cut, so
#: that a match starting before a cut is always seen whole. Configured values
#: are found at any length and distance; so are token formats.
REACH = 4 * 1024
# Blanks allowed between a name and its value, ``Bearer`` and its token, a
# flag and its value; and the longest quoted value, URL user name or password,
# or head of a two-part token (a JWT's header) the rules take. With the
# names' own lengths, any rule's wait stays below REACH (see _rules()).
_GAP = 256
_LONG = 1024

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# A name is secret when one of its words holds one of these (``PGPASSWORD``,
# ``dbPassword``, ``MYSQL_ROOT_PASSWD``, ``GITHUB_APIKEY``; words are split at
# ``_``, ``-`` and case changes, but ``PGPASSWORD`` is one word)...
_SECRET_STEMS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "credential",
    "privatekey",
    "apikey",
    "accesskey",
    "secretkey",
    "authorization",
    "cookie",
    "bearer",
)
# ...or one of its words is one of these...
_SECRET_WORDS = frozenset({"pwd", "pass", "pw"})
# ...or its last word (after a number: ``API_KEY_2``) ends with ``token``
# (``accessToken``, ``GHTOKEN``; not ``inputTokens``), is ``key`` after
# another word (``apiKey``, ``AZURE_OPENAI_KEY``) or one of these
# (``GITLAB_PAT``, ``STRIPE_SK``, ``SENTRY_DSN``: a DSN holds its key).
_SECRET_LAST = frozenset({"auth", "oauth", "pat", "sk", "dsn", "pin"})
# A credential word followed by one of these names something about the
# credential, not the credential: its file, where to get one, its kind, a count.
_ABOUT = frozenset(
    {
        *("file", "files", "path", "dir", "directory", "store", "sock", "socket", "jar"),
        *("url", "uri", "endpoint", "host", "port", "server", "name", "id", "ids"),
        *("type", "kind", "count", "counts", "limit", "limits", "length", "len"),
        *("min", "max", "expiry", "expires", "expiration", "ttl", "lifetime"),
        *("usage", "budget", "env", "var", "prompt", "policy", "command", "cmd", "helper"),
    }
)
# ``key`` after these is an index, not a credential (``PUBLIC_KEY`` is meant to be shown).
_PLAIN_KEYS = frozenset(
    {
        *("public", "primary", "foreign", "sort", "partition", "cache", "idempotency"),
        *("hot", "short", "shortcut", "lookup", "row", "hash", "range", "dedup", "unique"),
        *("composite", "index", "map", "group", "i18n", "translation", "keyboard", "sign"),
        *("object", "bucket", "s3", "field", "property", "config", "setting", "option"),
        *("label", "tag", "metadata", "item", "entry", "record", "node", "dict", "json"),
    }
)
# Words holding a stem by chance.
_LOOKALIKE_WORDS = frozenset({"secretary", "secretariat", "passwordless"})
#: Well-known names whose value is not a credential: the working directory
#: (``PWD``), a path to a credential file or agent socket, a tokenizer setting.
NOT_SECRET_NAMES = frozenset(
    {
        *("PWD", "OLDPWD", "GOOGLE_APPLICATION_CREDENTIALS", "SSH_AUTH_SOCK"),
        *("TOKENIZERS_PARALLELISM", "XAUTHORITY", "GPG_AGENT_INFO", "KRB5CCNAME"),
    }
)


@lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a key, variable, header or flag name says its value is a credential.

    Credential words count inside a longer word too (``PGPASSWORD``,
    ``dbpasswd``); ``key`` as the last word after another (``OPENAI_KEY``,
    ``apiKey``), but not after ``public``, ``primary``, ``sort``…; words
    after the credential word such as ``_FILE``, ``_URL``, ``_ID``,
    ``_TYPE``, ``_COUNT`` make it a name about the credential
    (``PASSWORD_FILE``, ``AWS_ACCESS_KEY_ID``: a key id is an identifier, and
    AWS ones are found by their format anyway). :data:`NOT_SECRET_NAMES`
    lists well-known look-alikes (``PWD``, ``SSH_AUTH_SOCK``).

    Args:
        name: e.g. ``apiKey``, ``OPENAI_API_KEY``, ``x-api-key``, ``--token``.

    Returns:
        True for credential names; False for counts (``inputTokens``) and the rest.

    """
    if name.upper() in NOT_SECRET_NAMES:
        return False
    words = [w.lower() for w in _WORD.findall(name)]
    while words and words[-1].isdigit():
        words.pop()
    if not words:
        return False
    # The last credential word, the name being about it when an "about" word follows.
    hit = -1
    for i, word in enumerate(words):
        if word in _LOOKALIKE_WORDS:
            continue
        if (
            word in _SECRET_WORDS
            or any(stem in word for stem in _SECRET_STEMS)
            or (word.endswith("token") and i == len(words) - 1)
            or (word == "token" and i + 1 < len(words))
        ):
            hit = i
    last = words[-1]
    if last in _SECRET_LAST or (last == "key" and len(words) > 1 and words[-2] not in _PLAIN_KEYS):
        hit = len(words) - 1
    return hit >= 0 and not any(w in _ABOUT for w in words[hit + 1 :])


# The names of ``name=value``/``name: value`` pairs in text end with one of these
# (spelt lower, UPPER or Capitalised, as names are: ``db_password``, ``API_TOKEN``).
_KEYWORDS = (
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "credentials",
    "credential",
    "authorization",
    "cookie",
)
_KEY_KINDS_TEXT = ("api", "access", "private", "secret", "session", "client", "signing")
_NAME_ANY_CASE = (
    r"(?i:token|secret|passw(?:or)?d|pwd|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|"
    r"secret[_-]?key|session[_-]?key|client[_-]?secret|credentials?|authorization|cookie)"
)
_VALUE = rf"""(?P<value>"[^"\n]{{0,{_LONG}}}"|'[^'\n]{{0,{_LONG}}}'|[^\s"',;&}}\]]+)"""


def _spelt(word: str) -> list[str]:
    return list(dict.fromkeys((word, word.upper(), word.capitalize())))


def _assignment() -> tuple[list[str], str]:
    """``NAME=value``, ``NAME: value``, ``"name": "value"``, keyword first for speed."""
    keywords = [re.escape(v) for w in _KEYWORDS for v in _spelt(w)]
    for key in _spelt("key"):
        behind = "|".join(
            f"(?<=(?i:{kind}){re.escape(sep)}{key})"
            for kind in _KEY_KINDS_TEXT
            for sep in ("", "_", "-")
        )
        keywords.append(f"{key}(?:{behind})")
    triggers = [
        "token",
        "secret",
        "passw",
        "pwd",
        "passp",
        "credential",
        "authori",
        "cookie",
        "key",
    ]
    pattern = (
        "(?:"
        + "|".join(keywords)
        + rf")[\"']?[ \t]{{0,{_GAP}}}[:=][ \t]{{0,{_GAP}}}(?:(?:[Bb]earer|Basic)\s{{1,{_GAP}}})?"
        + _VALUE
    )
    return triggers, pattern


def _prefixed(prefixes: Sequence[str], body: str) -> tuple[list[str], str]:
    """Tokens that start with a literal prefix, not preceded by a word character.

    The boundary is a lookbehind placed after the literal, so each pattern starts
    with its literal (the regular expression engine then scans for it quickly).
    """
    alternatives = [f"{re.escape(p)}(?<![A-Za-z0-9_]{re.escape(p)}){body}" for p in prefixes]
    return list(prefixes), "|".join(alternatives)


def trie_pattern(words: Iterable[str]) -> str:
    """One regular expression matching any of ``words``, shaped as a trie.

    Python's engine tries the alternatives of ``a|b|c`` one by one at every
    position; sharing prefixes (``g(?:h(?:p_|o_)|lpat-)``) makes a search for
    a hundred literals several times faster than the flat alternation.

    The trie is walked over the sorted words with an explicit stack, a run
    of characters no word branches or ends in as one step: building it takes
    no recursion and time about linear in the words' total length, whatever
    one word's length (a configured value may be a megabyte-long document).
    The expression nests one group per branching point, so keep words that
    share long prefixes short (:class:`~acphost.redact._literals.Literals`
    gives this only the first characters of long ones).

    Args:
        words: non-empty literals.

    Returns:
        The pattern (longer words win over their prefixes).

    """
    ordered = sorted(set(words))
    if not ordered:
        return "(?!)"
    pieces: list[str] = []
    # Items: a string to emit, or a node (lo, hi, depth): the words
    # ordered[lo:hi] share their first ``depth`` characters.
    stack: list[str | tuple[int, int, int]] = [(0, len(ordered), 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            pieces.append(item)
            continue
        lo, hi, depth = item
        # A word that ends here sorts before the words it is a prefix of.
        optional = len(ordered[lo]) == depth
        if optional:
            lo += 1
        groups: list[tuple[int, int]] = []
        start = lo
        for i in range(lo + 1, hi + 1):
            if i == hi or ordered[i][depth] != ordered[start][depth]:
                groups.append((start, i))
                start = i
        if not groups:
            continue
        todo: list[str | tuple[int, int, int]] = ["(?:"] if optional else []
        if len(groups) > 1:
            todo.append("(?:")
        for index, (g_lo, g_hi) in enumerate(groups):
            if index:
                todo.append("|")
            stop = _shared(ordered[g_lo], ordered[g_hi - 1], depth + 1)
            todo += [re.escape(ordered[g_lo][depth:stop]), (g_lo, g_hi, stop)]
        if len(groups) > 1:
            todo.append(")")
        if optional:
            todo.append(")?")
        stack.extend(reversed(todo))
    return "".join(pieces)


def _shared(first: str, last: str, start: int) -> int:
    """How long the common prefix of two words is, known to be at least ``start``.

    The first and last of a sorted group share what every word between them
    shares. Halving compares slices (in C), never one character at a time.
    """
    if first is last:
        return len(first)
    low, high = start, min(len(first), len(last))
    while low < high:
        middle = (low + high + 1) // 2
        if first[start:middle] == last[start:middle]:
            low = middle
        else:
            high = middle - 1
    return low


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of secret in text.

    Attributes:
        name: what it finds, for tests and messages.
        triggers: literals of which one must occur for the rule to apply
            (one cheap search for all rules runs first); empty: always tried.
        pattern: the regular expression. Its group ``keep`` is kept before
            the secret, ``tail`` after it; with a group ``value``, only that
            group is the secret (and kept when it is a number or a word such
            as ``null``).
        needs: literals of which one is in every match (as it is spelt, case
            included): a text holding a trigger but none of these is not
            searched. Empty: nothing more than a trigger is needed.
        again: apply the rule again until the text stops changing (its
            match holds the context a next match needs: keys after one word).

    Triggers are compared without case (the text is lower-cased once for all).

    """

    name: str
    triggers: tuple[str, ...]
    pattern: str
    needs: tuple[str, ...] = ()
    again: bool = False


def _rules() -> list[Rule]:
    assign_triggers, assign_pattern = _assignment()
    rules = [
        Rule(
            "pem",
            ("-----BEGIN",),
            r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)",
        ),
        Rule(
            "userinfo",
            ("://",),
            rf"(?P<keep>://[^\s/?#@:\"']{{0,{_LONG}}}:)[^\s/?#@\"']{{1,{_LONG}}}(?P<tail>@)",
            needs=("@",),
        ),
        Rule(
            "bearer",
            ("bearer",),
            rf"(?P<keep>(?:Bearer|bearer|BEARER)\s{{1,{_GAP}}})[A-Za-z0-9._~+/=-]{{8,}}",
        ),
        Rule(
            "basic",
            ("Basic",),
            rf"(?P<keep>Basic\s{{1,{_GAP}}})(?:[A-Za-z0-9+/]*[0-9+/=][A-Za-z0-9+/]*|[A-Za-z0-9+/]{{16,}})"
            r"={0,2}(?![A-Za-z0-9+/=])",
        ),
        # Every pair has its ``:`` or ``=``: prose that names a token without
        # assigning one (``token 1 token 2``) is not searched for pairs.
        Rule("assignment", tuple(assign_triggers), assign_pattern, needs=(":", "=")),
        Rule(
            "flag",
            ("--",),
            rf"--(?<![\w-]--)[A-Za-z0-9_.-]{{0,{_GAP}}}?{_NAME_ANY_CASE}(?:=|[ \t]{{1,{_GAP}}})"
            rf"""(?P<value>"[^"\n]{{0,{_LONG}}}"|'[^'\n]{{0,{_LONG}}}'|(?!-)[^\s"']+)""",
        ),
    ]
    tokens: list[tuple[str, Sequence[str], str]] = [
        ("openai", ("sk-",), r"[A-Za-z0-9_-]{16,}"),  # OpenAI, Anthropic, OpenRouter
        ("stripe", ("sk_live_", "rk_live_", "sk_test_", "rk_test_"), r"[A-Za-z0-9]{10,}"),
        ("stripe_hook", ("whsec_",), r"[A-Za-z0-9]{20,}"),
        ("github", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"[A-Za-z0-9]{30,}"),
        ("github_pat", ("github_pat_",), r"[A-Za-z0-9_]{20,}"),
        (
            "gitlab",
            ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-", "glft-", "glsoat-"),
            r"[A-Za-z0-9_-]{20,}",
        ),
        ("huggingface", ("hf_",), r"[A-Za-z0-9]{30,}"),
        ("aws_id", ("AKIA", "ASIA", "ABIA", "ACCA"), r"[A-Z0-9]{16}(?![A-Za-z0-9])"),
        (
            "slack",
            ("xoxa-", "xoxb-", "xoxe-", "xoxp-", "xoxr-", "xoxs-", "xapp-"),
            r"[A-Za-z0-9-]{10,}",
        ),
        ("slack_hook", ("https://hooks.slack.com/services/",), r"[A-Za-z0-9/_-]+"),
        ("google", ("AIza",), r"[0-9A-Za-z_-]{35}"),
        ("google_oauth", ("ya29.",), r"[0-9A-Za-z_-]{20,}"),
        # A JWT is known once its payload starts (its header is bounded): the
        # signature, which may come any length of payload later, is then optional.
        (
            "jwt",
            ("eyJ",),
            rf"[A-Za-z0-9_-]{{8,{_LONG}}}\.eyJ[A-Za-z0-9_-]{{8,}}(?:\.[A-Za-z0-9_-]{{8,}})?",
        ),
        ("npm", ("npm_",), r"[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
        ("pypi", ("pypi-AgE",), r"[A-Za-z0-9_-]{50,}"),
        ("docker", ("dckr_pat_",), r"[A-Za-z0-9_-]{20,}"),
        ("groq", ("gsk_",), r"[A-Za-z0-9]{40,}"),
        ("xai", ("xai-",), r"[A-Za-z0-9]{40,}"),
        ("replicate", ("r8_",), r"[A-Za-z0-9]{30,}"),
        ("sendgrid", ("SG.",), rf"[A-Za-z0-9_-]{{20,{_LONG}}}\.[A-Za-z0-9_-]{{20,}}"),
        ("shopify", ("shpat_", "shpca_", "shppa_", "shpss_"), r"[a-fA-F0-9]{32}"),
        ("digitalocean", ("dop_v1_",), r"[a-f0-9]{64}"),
        ("perplexity", ("pplx-",), r"[A-Za-z0-9]{40,}"),
        # The token of a session's MCP server (acphost.host._mcpserve.TOKEN_PREFIX
        # and 43 URL-safe characters): an agent may print the mcpServers it was
        # given. A piece of 20 characters or more (a cut stderr tail) is masked too.
        ("acphost_mcp", ("acphost_mcp_",), r"[A-Za-z0-9_-]{20,}"),
    ]
    for name, prefixes, body in tokens:
        triggers, pattern = _prefixed(prefixes, body)
        rules.append(Rule(name, tuple(triggers), pattern))
    return [*_aws_secret_rules(), *rules]


def _aws_secret_rules() -> list[Rule]:
    """An AWS secret access key, found near AWS context (before or after it).

    The key has no prefix: 40 base64 characters with upper and lower case
    letters and digits; alone, it looks like any base64. So, as secret
    scanners do, it is a secret only within :data:`_GAP` characters of AWS
    context (a key id, the word aws). Near, not anywhere in the text: what a
    rule decides must be decided within :data:`REACH` of its match, or a
    text redacted in parts (the history) would differ from the text redacted
    whole. These rules run first, before the key id (the context) is masked,
    and again until nothing changes: several keys may follow one context.
    """
    context = "(?:[Aa][Ww][Ss]|AKIA|ASIA)"
    key = (
        r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
        r"(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
    )
    triggers = ("AKIA", "ASIA", "aws")
    return [
        Rule("aws_secret", triggers, rf"(?P<keep>{context}[\s\S]{{0,{_GAP}}}?){key}", again=True),
        Rule(
            "aws_secret_before",
            triggers,
            rf"{key}(?P<tail>[\s\S]{{0,{_GAP}}}?{context})",
            again=True,
        ),
    ]


#: Every text rule but the configured values, in the order they are applied.
TOKEN_FORMATS: list[Rule] = _rules()
