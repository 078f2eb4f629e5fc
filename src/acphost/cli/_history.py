r"""``acphost history`` and ``acphost usage``: the local session store on the command line.

Output follows the CLI's rule for agent text: on a terminal, rich tables and
every agent string through :func:`~acphost.safetext.sanitize`; piped, exact
data: tab-separated rows (a tab, newline, carriage return or backslash inside
a field is written ``\\t``, ``\\n``, ``\\r``, ``\\\\``, so rows stay rows), or
JSON with ``-o json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any, Literal, TextIO

from ..config import InputFileError
from ..history import (
    EXPORT_FORMATS,
    GROUPINGS,
    ConversationSummary,
    HistoryError,
    HistoryStore,
    Piece,
    UsageRow,
    conversation_text,
    conversation_transcript,
    default_path,
    export_conversation,
    import_file,
    local_time,
    open_export,
    parse_age,
    parse_when,
    time_before,
    usage_summary,
)
from ..launch import EXIT_ERROR, EXIT_OK, fail
from ..safetext import escape_json_for_terminal, sanitize, sanitize_line
from ._edge import is_styled_terminal, is_terminal
from ._parser import Parser, add_global_flags, first_word, setup_logging, usage_error

__all__ = ["history_main", "usage_main"]

_ACTIONS = ("list", "show", "export", "import", "delete", "prune", "info")
_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


class _Problem(Exception):
    """A bad argument: the message says what to type instead (exit 2)."""


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # unreachable: the loop returns at GiB


def _when(text: str | None, flag: str, *, end_of_day: bool = False) -> str | None:
    if text is None:
        return None
    try:
        return parse_when(text, end_of_day=end_of_day)
    except ValueError as exc:
        raise _Problem(f"{flag}: {exc}") from None


def _cwd(text: str | None) -> str | None:
    return os.path.abspath(os.path.expanduser(text)) if text else None


class _Out:
    """Where results go: a terminal (rich, sanitised) or a pipe (exact).

    A terminal that cannot be styled (``TERM=dumb``) gets the piped layout,
    sanitised (:func:`acphost.cli._edge.is_styled_terminal`).
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.terminal = is_terminal(stream)  # agent text is sanitised
        self.tty = is_styled_terminal(stream)  # rich tables and styles
        self._console: Any = None

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console  # noqa: PLC0415 - rich only on a terminal

            self._console = Console(file=self.stream, highlight=False)
        return self._console

    def line(self, text: str, style: str | None = None) -> None:
        """One line of our own text (it may quote agent text: sanitised on a terminal)."""
        if self.tty:
            from rich.text import Text  # noqa: PLC0415

            self.console.print(Text(sanitize(text), style=style or ""))
        else:
            self.stream.write((sanitize(text) if self.terminal else text) + "\n")

    def data(self, text: str) -> None:
        """Text that is data (an export): exact on a pipe, sanitised on a terminal."""
        self.stream.write(sanitize(text) if self.terminal else text)

    def json(self, value: Any) -> None:
        """JSON output: exact on a pipe; on a terminal the same JSON, active characters escaped."""
        text = json.dumps(value, indent=2, ensure_ascii=False)
        if self.terminal:
            # Bidi overrides, C1 controls and invisible characters are legal raw in
            # JSON strings; a terminal would act on them (the same value, escaped).
            text = escape_json_for_terminal(text.encode("utf-8", "surrogatepass")).decode(
                "utf-8", "surrogatepass"
            )
        self.stream.write(text + "\n")

    def table(
        self,
        headers: Sequence[str],
        rows: Sequence[Sequence[str]],
        numeric: Sequence[int] = (),
        flex: Sequence[int] = (),
    ) -> None:
        """A rich table on a terminal, else a header and tab-separated rows.

        On a terminal, the ``flex`` columns share what room is left (cut with
        an ellipsis); every other column keeps its width, up to
        :data:`_CELL_MAX` characters: a longer cell (an agent-chosen currency
        or name) is cut with an ellipsis, so one long string cannot take the
        room of every other column. Piped rows stay exact.
        """
        if not self.tty:
            clean = sanitize_line if self.terminal else str
            for row in (headers, *rows):
                self.stream.write("\t".join(clean(c.translate(_TSV_ESCAPES)) for c in row) + "\n")
            return
        from rich.table import Table  # noqa: PLC0415
        from rich.text import Text  # noqa: PLC0415

        cells = [
            [
                sanitize_line(c) if i in flex else _cut(sanitize_line(c), _CELL_MAX)
                for i, c in enumerate(row)
            ]
            for row in rows
        ]
        widths = [
            max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
            for i, h in enumerate(headers)
        ]
        # The flex columns share the room the others leave (two spaces between columns).
        fixed = sum(w for i, w in enumerate(widths) if i not in flex) + 2 * (len(headers) - 1)
        share = max(10, (self.console.width - fixed) // max(len(flex), 1))
        table = Table(box=None, header_style="bold", pad_edge=False)
        for i, header in enumerate(headers):
            justify: Literal["left", "right"] = "right" if i in numeric else "left"
            if i in flex:
                for row in cells:
                    row[i] = _cut(row[i], share)
                width = max(len(header), *(len(r[i]) for r in cells)) if cells else len(header)
                table.add_column(header, justify=justify, no_wrap=True, max_width=width)
            else:
                table.add_column(header, justify=justify, no_wrap=True, width=widths[i])
        for row in cells:
            table.add_row(*(Text(c, overflow="ellipsis") for c in row))
        self.console.print(table)


#: The widest a terminal table's fixed column gets, in characters.
_CELL_MAX = 32


def _cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 1`` characters and an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- history -----------------------------------------------------------------------------------


def _filter_flags(p: argparse.ArgumentParser, what: str) -> None:
    add_global_flags(p, skip=("agent", "cwd"), unused=True)
    p.add_argument("-a", "--agent", metavar="NAME", help="only this agent's sessions")
    p.add_argument("--cwd", metavar="DIR", help="only sessions in DIR or below it")
    p.add_argument(
        "--since",
        metavar="DATE",
        help=f"{what} at or after DATE: 2026-05-01, 2026-05-01T14:30, today, yesterday, "
        "or an age (7d, 12h)",
    )
    p.add_argument("--until", metavar="DATE", help=f"{what} before DATE (a bare date is included)")
    p.add_argument("-o", "--output", choices=("text", "json"), default="text")


def _history_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="acphost history",
        description="The local history of every conversation acphost ran (the store at "
        "$ACPHOST_HISTORY, else $XDG_DATA_HOME/acphost/history.sqlite3). A conversation is "
        "a session and the runs that went on with it (--continue, --resume, a named "
        "session, a TUI tab). IDs may be abbreviated to any unique prefix; the id of any "
        "of a conversation's sessions names the conversation.",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    ls = sub.add_parser(
        "list", help="the conversations, newest first by last activity (the default)"
    )
    _filter_flags(ls, "with a session started")
    ls.add_argument("--grep", metavar="TEXT", help="only those whose text contains TEXT")
    ls.add_argument("-n", "--limit", type=int, default=50, metavar="N", help="default 50; 0: all")
    show = sub.add_parser(
        "show", help="a whole conversation's transcript, turn by turn, as the CLI's text output"
    )
    show.add_argument("id", help="the conversation's or one of its sessions' id (or a prefix)")
    show.add_argument("--thoughts", action="store_true", help="include the agent's thoughts")
    show.add_argument("--no-diffs", action="store_true", help="leave the diffs out")
    export = sub.add_parser("export", help="a whole conversation as md, html, json or jsonl")
    export.add_argument("id", help="the conversation's or one of its sessions' id (or a prefix)")
    export.add_argument(
        "-f", "--format", choices=EXPORT_FORMATS, default="md", help="json and jsonl re-import"
    )
    export.add_argument("-O", "--out", metavar="FILE", help="write to FILE (default: stdout)")
    imp = sub.add_parser("import", help="add sessions from json or jsonl exports")
    imp.add_argument("files", nargs="+", metavar="FILE", help="export files ('-': stdin)")
    delete = sub.add_parser("delete", help="delete conversations (every session of each)")
    delete.add_argument("ids", nargs="+", metavar="ID")
    prune = sub.add_parser("prune", help="delete old sessions and give the space back")
    prune.add_argument("--older-than", required=True, metavar="AGE", help="e.g. 30d, 12h, 2w")
    prune.add_argument("--dry-run", action="store_true", help="only say what would go")
    info = sub.add_parser("info", help="where the store is, its size and what it holds")
    info.add_argument("-o", "--output", choices=("text", "json"), default="text")
    for name, action in sub.choices.items():
        if name not in ("list",):  # list has them, -a and --cwd as filters
            add_global_flags(action, unused=True)
    return p


def _open(create: bool = False) -> HistoryStore | None:
    path = default_path()
    if not create and not os.path.lexists(path):  # a link, even dangling, is refused by open
        return None
    return HistoryStore.open(path)


def _cost(amount: float | None, currency: str | None) -> str:
    return "" if amount is None else f"{amount:.4f} {currency or ''}".rstrip()


def _list(args: argparse.Namespace, out: _Out) -> int:
    store = _open()
    found: list[ConversationSummary] = []
    size = 0
    if store is not None:
        with store:
            found = store.list_conversations(
                agent=args.agent,
                cwd=_cwd(args.cwd),
                grep=args.grep,
                since=_when(args.since, "--since"),
                until=_when(args.until, "--until", end_of_day=True),
                limit=args.limit or None,
            )
            size = store.size()
    if args.output == "json":
        out.json([s.to_json() for s in found])
        return EXIT_OK
    wide = not out.tty
    rows = [
        [
            s.id if wide else s.id[:8],
            s.updated_at if wide else local_time(s.updated_at),
            # On a terminal an imported session says so (-o json has "origin").
            s.agent if wide or s.origin != "imported" else f"{s.agent} (imported)",
            str(s.turns) + ("" if not s.incomplete else f" ({s.incomplete} incomplete)"),
            ""
            if s.total_tokens is None
            else (str(s.total_tokens) if wide else f"{s.total_tokens:,}"),
            "; ".join(_cost(amount, currency) for currency, amount in s.cost.items()),
            s.title or s.first_prompt if not wide else s.title or "",
            *([s.first_prompt, s.cwd] if wide else [_short_home(s.cwd)]),
        ]
        for s in found
    ]
    headers = ["id", "updated", "agent", "turns", "tokens", "cost"]
    headers += ["title", "prompt", "cwd"] if wide else ["title", "cwd"]
    if out.tty and not found:
        out.line("No conversations" + (" match." if store is not None else " recorded yet."), "dim")
    else:
        out.table(headers, rows, numeric=(3, 4, 5), flex=(6, 7))
    if out.tty:
        path = default_path()
        held = f"{_size(size)} at {path}" if store is not None else f"none yet ({path})"
        out.line(
            f"{len(found)} shown · history {held} · "
            "`acphost history prune --older-than 30d` frees space",
            "dim",
        )
    return EXIT_OK


def _short_home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "/" and path.startswith(home + "/") else path


def _need(store: HistoryStore | None) -> HistoryStore:
    if store is None:
        raise HistoryError(f"the history is empty (nothing recorded yet at {default_path()})")
    return store


def _show_rich(out: _Out, pieces: list[Piece]) -> None:
    # As the plain text lays it out: the host's lines at column 0, the agent's
    # answers and thoughts indented under them (a padding its Markdown cannot
    # undo), so no line the agent wrote passes for one of the host's.
    from rich.padding import Padding  # noqa: PLC0415
    from rich.text import Text  # noqa: PLC0415

    from ._edge import agent_markdown  # noqa: PLC0415

    styles = {
        "header": "bold",
        "prompt": "bold cyan",
        "thought": "dim italic",
        "plan": "cyan",
        "subagent": "magenta",
        "stop": "dim",
        "usage": "dim",
        "error": "red",
    }
    marks = {
        "completed": "green",
        "allow": "green",
        "failed": "red",
        "reject": "red",
        "cancelled": "red",
    }
    console = out.console
    for index, piece in enumerate(pieces):
        text = sanitize(piece.text)
        if piece.tag == "prompt" or (piece.tag == "header" and index):
            console.print()
        if piece.tag == "text":
            console.print(Padding(agent_markdown(piece.text), (0, 0, 0, 2)))
        elif piece.tag == "subagent_text":  # a subagent's answer, under its line
            console.print(Padding(agent_markdown(piece.text), (0, 0, 0, 4)))
        elif piece.tag == "thought":
            console.print(Padding(Text(text, style=styles["thought"]), (0, 0, 0, 2)))
        elif piece.tag == "diff":
            # Lines end at "\n" only: the agent's \r, \x85 or U+2028 must not
            # invent diff lines of their own.
            for line in text.split("\n"):
                colour = {"+": "green", "-": "red", "@": "cyan"}.get(line[:1], "")
                console.print(Text(line, style="bold" if line.startswith("[diff]") else colour))
        else:
            style = (
                marks.get(piece.status or "", "yellow")
                if piece.tag in ("tool", "permission")
                else styles.get(piece.tag, "")
            )
            console.print(Text(text, style=style))


def _with_store(action: Callable[[HistoryStore], int], create: bool = False) -> int:
    with _need(_open(create)) as store:
        return action(store)


def _show(args: argparse.Namespace, out: _Out) -> int:
    def show(store: HistoryStore) -> int:
        record = store.get_conversation(store.resolve_conversation(args.id))
        shown = {"thoughts": args.thoughts, "diffs": not args.no_diffs}
        if out.tty:
            _show_rich(out, conversation_transcript(record, **shown))
        else:
            out.data(conversation_text(record, **shown))
        return EXIT_OK

    return _with_store(show)


def _write_private(path: str, text: str) -> None:
    """Write a file atomically, owner-only (an export holds the conversation)."""
    target = os.path.abspath(os.path.expanduser(path))
    fd, tmp = tempfile.mkstemp(prefix=".acphost-export-", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


def _export(args: argparse.Namespace, out: _Out) -> int:
    def export(store: HistoryStore) -> int:
        cid = store.resolve_conversation(args.id)
        record = store.get_conversation(cid)
        text = export_conversation(record, args.format)
        if args.out:
            _write_private(args.out, text)
            what = "session" if len(record.sessions) == 1 else "conversation"
            print(f"acphost: wrote {what} {cid[:12]} to {args.out}", file=sys.stderr)
        else:
            out.data(text)
        return EXIT_OK

    return _with_store(export)


def _import(args: argparse.Namespace, out: _Out) -> int:
    with contextlib.ExitStack() as files:
        sources = []
        for name in args.files:
            try:
                file = files.enter_context(open_export(name, sys.stdin.buffer))
            except InputFileError as exc:
                raise _Problem(str(exc)) from None
            sources.append((name, file))
        store = _open(create=True)
        assert store is not None
        with store:
            for name, file in sources:

                def added(sid: str, new: bool, name: str = name) -> None:
                    verb = "imported" if new else "already in the history:"
                    out.line(f"{verb} {sid[:12]} (from {name})")

                import_file(store, file, source=name, added=added)
    return EXIT_OK


def _delete(args: argparse.Namespace, out: _Out) -> int:
    def delete(store: HistoryStore) -> int:
        ids = [store.resolve_conversation(i) for i in args.ids]  # all resolve before any goes
        for cid in dict.fromkeys(ids):
            count = store.delete_conversation(cid)
            out.line(f"deleted {cid[:12]}" + (f" ({count} sessions)" if count > 1 else ""))
        return EXIT_OK

    return _with_store(delete)


def _prune(args: argparse.Namespace, out: _Out) -> int:
    try:
        age = parse_age(args.older_than)
    except ValueError as exc:
        raise _Problem(f"--older-than: {exc}") from None
    cutoff = time_before(age)
    store = _open()
    if store is None:
        out.line("nothing to prune: the history is empty")
        return EXIT_OK
    with store:
        before = store.size()
        if args.dry_run:
            old = store.list_sessions(until=cutoff)
            out.line(f"would delete {len(old)} session(s) started before {local_time(cutoff)}")
            return EXIT_OK
        count = store.prune(cutoff)
        after = store.size()
    out.line(
        f"deleted {count} session(s) started before {local_time(cutoff)}; "
        f"the history went from {_size(before)} to {_size(after)}"
    )
    return EXIT_OK


def _info(args: argparse.Namespace, out: _Out) -> int:
    store = _open()
    path = default_path()
    if store is None:
        data: dict[str, Any] = {"path": path, "exists": False, "size": 0, "sessions": 0}
        data.update(turns=0, oldest=None, newest=None)
    else:
        with store:
            data = store.info().to_json()
    if args.output == "json":
        out.json(data)
        return EXIT_OK
    out.line(f"path      {data['path']}" + ("" if data["exists"] else " (not created yet)"))
    out.line(f"size      {_size(data['size'])}")
    out.line(f"sessions  {data['sessions']} ({data['turns']} turns)")
    if data["oldest"]:
        out.line(f"range     {local_time(data['oldest'])} to {local_time(data['newest'])}")
    return EXIT_OK


def _run(
    action: Callable[[argparse.Namespace, _Out], int], args: argparse.Namespace, prog: str
) -> int:
    setup_logging(args.verbose)
    try:
        return action(args, _Out(sys.stdout))
    except _Problem as exc:
        return usage_error(str(exc), prog)
    except HistoryError as exc:
        fail(str(exc))
        return EXIT_ERROR
    except BrokenPipeError:
        raise  # the reader of stdout went away: cli.main ends the run quietly
    except OSError as exc:
        fail(str(exc))
        return EXIT_ERROR


def history_main(argv: list[str]) -> int:
    """``acphost history [ACTION] ...``: run one action on the store; return the exit code."""
    parser = _history_parser()
    actions_parsers = next(
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    ).choices.values()
    # Options may come before the action (`acphost -v history info` hands
    # `-v info` here): the action word goes first, whose parser takes them.
    at = first_word(argv, *actions_parsers)
    if at is not None:
        argv = [argv[at], *argv[:at], *argv[at + 1 :]]
    elif not {"-h", "--help"} & set(argv):
        argv = ["list", *argv]
    args = parser.parse_args(argv)
    actions = {
        "list": _list,
        "show": _show,
        "export": _export,
        "import": _import,
        "delete": _delete,
        "prune": _prune,
        "info": _info,
    }
    return _run(actions[args.action], args, f"acphost history {args.action}")


# -- usage -------------------------------------------------------------------------------------


def _usage(args: argparse.Namespace, out: _Out) -> int:
    store = _open()
    rows: list[UsageRow] = []
    total = UsageRow("total")
    if store is not None:
        with store:
            rows, total = usage_summary(
                store,
                args.by,
                agent=args.agent,
                cwd=_cwd(args.cwd),
                since=_when(args.since, "--since"),
                until=_when(args.until, "--until", end_of_day=True),
            )
    if args.output == "json":
        out.json({"by": args.by, "rows": [r.to_json() for r in rows], "total": total.to_json()})
        return EXIT_OK
    kinds = ("input", "output", "thought", "cached_read", "cached_write", "total")
    tty = out.tty

    def cells(row: UsageRow) -> list[str]:
        key = _short_home(row.key) if tty and args.by == "cwd" else row.key
        counts = [row.tokens.get(k) for k in kinds]
        cost = "; ".join(f"{a:.4f} {c}" for c, a in sorted(row.cost.items()))
        shown = ["" if v is None else (f"{v:,}" if tty else str(v)) for v in counts]
        return [key, str(row.sessions), str(row.turns), *shown, cost]

    headers = [
        args.by,
        "sessions",
        "turns",
        "input",
        "output",
        "thought",
        "cache read",
        "cache write",
        "tokens",
        "cost",
    ]
    table = [cells(r) for r in rows]
    if tty and len(rows) > 1:
        table.append(cells(total))
    if tty and not rows:
        out.line("No usage recorded" + (" in this range." if store is not None else " yet."), "dim")
        return EXIT_OK
    if tty:  # token kinds no agent reported take no room on a terminal
        keep = [i for i, h in enumerate(headers) if i < 3 or i == 9 or any(r[i] for r in table)]
        headers = [headers[i] for i in keep]
        table = [[r[i] for i in keep] for r in table]
    out.table(headers, table, numeric=range(1, len(headers)), flex=(0,))
    return EXIT_OK


def usage_main(argv: list[str]) -> int:
    """``acphost usage``: the usage ledger by agent, day or directory; return the exit code."""
    p = Parser(
        prog="acphost usage",
        description="Tokens by kind, turns and cost of the recorded sessions, summed by "
        "agent, day or directory (costs are summed per currency, never converted).",
    )
    p.add_argument("--by", choices=GROUPINGS, default="agent", help="the grouping (default agent)")
    _filter_flags(p, "turns")
    return _run(_usage, p.parse_args(argv), "acphost usage")
