"""``acphost history`` and ``acphost usage``, run as the real command against recorded sessions."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from datetime import datetime, timedelta, timezone

import pytest

from acphost.history import HistoryStore, transcript_text

from .conftest import USAGE_AGENT, record, run_cli


def ago(days: float) -> str:
    return (datetime.now(timezone.utc) - timedelta(days=days)).isoformat(timespec="milliseconds")


def export_file(tmp_path, sid, *, days=0.0, agent="demo", cwd="/w", text="hi", title=None):
    session = {
        "id": sid, "agent": agent, "command": ["demo"], "cwd": cwd, "started_at": ago(days),
        "title": title,
        "turns": [{"seq": 1, "started_at": ago(days), "prompt": "p", "text": text,
                   "complete": True, "stop_reason": "end_turn"}],
    }  # fmt: skip
    path = tmp_path / f"{sid}.json"
    path.write_text(json.dumps({"format": "acphost-history", "version": 1, "session": session}))
    return path


def only_id(store_path):
    with HistoryStore.open(str(store_path)) as store:
        (summary,) = store.list_sessions()
        return summary.id


def test_help_names_the_subcommands():
    out = run_cli("--help").stdout
    assert "history [ACTION]" in out and "usage " in out


def test_an_empty_history_is_not_an_error(store_path):
    proc = run_cli("history")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines() == ["id\tupdated\tagent\tturns\ttokens\tcost\ttitle\tprompt\tcwd"]
    info = json.loads(run_cli("history", "info", "-o", "json").stdout)
    assert (info["exists"], info["path"], info["sessions"]) == (False, str(store_path), 0)
    proc = run_cli("history", "show", "abc")
    assert proc.returncode == 1 and "the history is empty" in proc.stderr
    assert not store_path.exists()  # reading never creates the store


async def test_list_shows_sessions_newest_first_as_tab_separated_rows(store_path, workspace):
    await record(store_path, ["echo first"], cwd=workspace)
    await record(store_path, ["title a\ttabbed\nname", "echo second"], cwd=workspace)
    proc = run_cli("history")
    assert proc.returncode == 0, proc.stderr
    header, newest, oldest = proc.stdout.splitlines()
    assert header.split("\t")[:4] == ["id", "updated", "agent", "turns"]
    fields = newest.split("\t")
    assert len(fields) == 9 and len(fields[0]) == 32
    assert fields[2:4] == ["demo", "2"]
    assert fields[6] == "a\\ttabbed\\nname"  # escaped, so the row stays one row of 9 fields
    assert fields[7] == "title a\\ttabbed\\nname"
    assert fields[8] == str(workspace)
    assert oldest.split("\t")[7] == "echo first"


async def test_list_filters(store_path, workspace, tmp_path):
    await record(store_path, ["echo needle in here"], cwd=workspace)
    run_cli("history", "import", str(export_file(tmp_path, "a" * 32, days=40, agent="claude")))
    ids = lambda *a: [r["id"] for r in json.loads(run_cli("history", "list", "-o", "json", *a).stdout)]  # noqa: E731
    everything = ids()
    assert len(everything) == 2 and everything[1] == "a" * 32
    assert ids("--agent", "claude") == ["a" * 32]
    assert ids("--grep", "NEEDLE") == [everything[0]]
    assert ids("--since", "7d") == [everything[0]]
    assert ids("--until", (datetime.now() - timedelta(days=30)).date().isoformat()) == ["a" * 32]
    assert ids("--cwd", str(workspace)) == [everything[0]]
    assert ids("-n", "1") == [everything[0]]
    proc = run_cli("history", "--since", "last tuesday")
    assert proc.returncode == 2 and "--since: 'last tuesday' is not a date" in proc.stderr


async def test_show_prints_the_transcript_exactly_when_piped(store_path, workspace):
    await record(store_path, ["tool", "diff", "echo \x1b]0;owned\x07 done"], cwd=workspace)
    sid = only_id(store_path)
    proc = run_cli("history", "show", sid[:6])
    assert proc.returncode == 0, proc.stderr
    with HistoryStore.open(str(store_path)) as store:
        assert proc.stdout == transcript_text(store.get(sid))
    assert "[tool] Searching for TODO (search) completed" in proc.stdout
    assert "\x1b]0;owned\x07 done" in proc.stdout  # data on a pipe is exact


def test_an_ambiguous_prefix_lists_the_candidates(store_path, tmp_path):
    for sid in ("abcd1" + "0" * 27, "abcd2" + "0" * 27):
        assert run_cli("history", "import", str(export_file(tmp_path, sid))).returncode == 0
    proc = run_cli("history", "show", "abcd")
    assert proc.returncode == 1
    assert "'abcd' is ambiguous: 2 sessions match" in proc.stderr
    assert "abcd10000000" in proc.stderr and "abcd20000000" in proc.stderr
    assert run_cli("history", "show", "abcd2").returncode == 0
    proc = run_cli("history", "show", "ffff")
    assert proc.returncode == 1 and "no session in the history matches 'ffff'" in proc.stderr


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
async def test_export_then_import_gives_the_same_session(store_path, workspace, tmp_path, fmt):
    await record(store_path, ["tool", "diff", "plan", "permission", "echo bye"], cwd=workspace)
    sid = only_id(store_path)
    out = tmp_path / f"s.{fmt}"
    proc = run_cli("history", "export", sid[:8], "--format", fmt, "-O", str(out))
    assert proc.returncode == 0, proc.stderr
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    other = tmp_path / "other.sqlite3"
    proc = run_cli("history", "import", str(out), env={"ACPHOST_HISTORY": str(other)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"imported {sid[:12]} (from {out})\n"
    with HistoryStore.open(str(store_path)) as a, HistoryStore.open(str(other)) as b:
        original, imported = a.get(sid), b.get(sid)
    assert imported.origin == "imported"
    assert imported.turns == original.turns
    assert (imported.agent, imported.cwd, imported.command) == (
        original.agent, original.cwd, original.command
    )
    assert transcript_text(imported) == transcript_text(original)
    again = run_cli("history", "import", str(out), env={"ACPHOST_HISTORY": str(other)})
    assert again.stdout == f"already in the history: {sid[:12]} (from {out})\n"


async def test_html_export_is_self_contained_and_escapes_agent_text(store_path, workspace):
    await record(
        store_path, ["echo <script>alert(1)</script><img src=x onerror=y>", "diff"], cwd=workspace
    )
    proc = run_cli("history", "export", only_id(store_path), "-f", "html")
    assert proc.returncode == 0, proc.stderr
    page = proc.stdout
    assert page.startswith("<!doctype html>")
    assert "<script" not in page.lower() and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'class="add">+print(&quot;hello, world&quot;)</span>' in page
    assert 'class="del">-print(&quot;hello&quot;)</span>' in page
    assert "http" not in page.split("</head>")[1]  # nothing fetched from elsewhere


async def test_markdown_export_is_for_people(store_path, workspace):
    await record(store_path, ["title Fix the build", "diff"], cwd=workspace)
    proc = run_cli("history", "export", only_id(store_path))
    md = proc.stdout
    assert md.startswith("# Fix the build\n")
    assert "## Turn 2" in md and "> diff" in md
    assert "```diff\n@@ -1 +1 @@\n-print(\"hello\")\n+print(\"hello, world\")\n```" in md


def test_import_of_a_bad_file_says_where_and_imports_nothing(store_path, tmp_path):
    bad = tmp_path / "bad.jsonl"
    good = export_file(tmp_path, "c" * 32)
    session_line = json.loads(good.read_text())["session"]
    del session_line["turns"]
    bad.write_text(
        json.dumps({"type": "session", **session_line}) + "\n"
        + json.dumps({"type": "turn", "seq": "one", "started_at": ago(0)}) + "\n"
    )
    proc = run_cli("history", "import", str(bad))
    assert proc.returncode == 1
    assert f"{bad}:2.seq: expected" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_cli("history", "import", str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "missing.json does not exist" in proc.stderr
    with HistoryStore.open(str(store_path)) as store:
        assert store.list_sessions() == []


def test_delete(store_path, tmp_path):
    for sid in ("d" * 32, "e" * 32):
        run_cli("history", "import", str(export_file(tmp_path, sid)))
    proc = run_cli("history", "delete", "ddd", "eee")
    assert (proc.returncode, proc.stdout) == (0, f"deleted {'d' * 12}\ndeleted {'e' * 12}\n")
    assert run_cli("history", "delete", "ddd").returncode == 1


def test_prune_and_the_size_the_history_shows(store_path, tmp_path):
    big = "x" * 300_000
    for i in range(6):
        run_cli("history", "import", str(export_file(tmp_path, f"{i}" * 32, days=60, text=big)))
    run_cli("history", "import", str(export_file(tmp_path, "f" * 32, days=1)))
    before = json.loads(run_cli("history", "info", "-o", "json").stdout)
    assert before["sessions"] == 7 and before["size"] > 1_000_000
    dry = run_cli("history", "prune", "--older-than", "30d", "--dry-run")
    assert dry.stdout.startswith("would delete 6 session(s)")
    proc = run_cli("history", "prune", "--older-than", "30d")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("deleted 6 session(s) started before ")
    assert "the history went from" in proc.stdout
    after = json.loads(run_cli("history", "info", "-o", "json").stdout)
    assert after["sessions"] == 1 and after["size"] < before["size"] / 5
    text = run_cli("history", "info").stdout
    assert f"path      {store_path}" in text and "sessions  1 (1 turns)" in text
    bad = run_cli("history", "prune", "--older-than", "a month")
    assert bad.returncode == 2 and "not an age" in bad.stderr


async def test_usage_by_agent_day_and_cwd(store_path, workspace, tmp_path):
    await record(store_path, ["one", "two"], cwd=workspace, argv=USAGE_AGENT, agent="meter")
    await record(store_path, ["credits please"], cwd=tmp_path, argv=USAGE_AGENT, agent="meter")
    await record(store_path, ["echo no usage"], cwd=workspace)
    data = json.loads(run_cli("usage", "-o", "json").stdout)
    rows = {r["key"]: r for r in data["rows"]}
    assert rows["meter"]["sessions"] == 2 and rows["meter"]["turns"] == 3
    assert rows["meter"]["tokens"]["input"] == 100 + 200 + 100
    assert rows["meter"]["cost"] == {"USD": 0.5, "credits": 10.0}
    assert rows["demo"]["tokens"] == {} and rows["demo"]["cost"] == {}
    assert data["total"]["sessions"] == 3 and data["total"]["turns"] == 4
    by_cwd = {r["key"]: r for r in json.loads(run_cli("usage", "--by", "cwd", "-o", "json").stdout)["rows"]}
    assert by_cwd[str(workspace)]["turns"] == 3 and by_cwd[str(tmp_path)]["cost"] == {"credits": 10.0}
    (day,) = json.loads(run_cli("usage", "--by", "day", "-o", "json").stdout)["rows"]
    assert day["key"] == datetime.now().date().isoformat() and day["turns"] == 4
    tsv = run_cli("usage").stdout.splitlines()
    assert tsv[0].split("\t")[0] == "agent" and len(tsv) == 3
    meter = next(line for line in tsv if line.startswith("meter")).split("\t")
    assert meter[1:4] == ["2", "3", "400"]
    assert meter[-1] == "0.5000 USD; 10.0000 credits"
    assert json.loads(run_cli("usage", "--agent", "demo", "-o", "json").stdout)["total"]["turns"] == 1


def test_a_corrupt_store_is_a_clear_error(store_path):
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(b"nope" * 1000)
    proc = run_cli("history")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"acphost: the history store {store_path} is damaged")
    assert "Traceback" not in proc.stderr


def run_on_pty(*args, columns=200):
    """Run the command with a real terminal as its stdout; return what the terminal got."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {**os.environ, "TERM": "xterm"}
    env.pop("COLUMNS", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "acphost", *args], stdout=slave, stderr=subprocess.PIPE, env=env
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=30) == 0, proc.stderr.read()
    proc.stderr.close()
    return b"".join(chunks).decode()


async def test_on_a_terminal_agent_text_is_sanitised(store_path, workspace):
    await record(store_path, ["title \x1b]0;pwned\x07Evil", "echo \x1b[2J\u202ecleared"], cwd=workspace)
    listing = run_on_pty("history")
    assert "\x1b]0;pwned" not in listing and "\\x1b]0;pwned\\x07Evil" in listing
    assert "\x1b[2J" not in listing
    assert "history " in listing and str(store_path) in listing  # the footer: size and path
    shown = run_on_pty("history", "show", only_id(store_path)[:8])
    assert "\x1b[2J" not in shown and "\u202e" not in shown
    assert "\\x1b[2J<U+202E>cleared" in shown
    exported = run_on_pty("history", "export", only_id(store_path)[:8], "-f", "json")
    assert "\x1b[2J" not in exported and "\\x1b" in exported


async def test_history_show_on_a_terminal_has_no_hyperlinks(store_path, workspace):
    """A Markdown link must show its target: no OSC 8 hyperlink whose words lie."""
    await record(
        store_path, ["echo see [the docs](http://evil.example/MDLINK) now"], cwd=workspace
    )
    shown = run_on_pty("history", "show", only_id(store_path)[:8])
    assert "\x1b]8;" not in shown
    assert "http://evil.example/MDLINK" in shown  # the target is shown as text


def test_one_long_agent_string_leaves_the_other_columns_their_room(store_path, tmp_path):
    """A 5,000-character currency and title are cut with an ellipsis; every other cell shows."""
    usage = {"input": 1234, "output": 56, "total": 1290, "cost_amount": 0.25,
             "cost_currency": "Z" * 5000}  # fmt: skip
    for sid, title, agent in (("a" * 32, "T" * 5000, "longagent"), ("b" * 32, "short", "other")):
        path = export_file(tmp_path, sid, agent=agent, title=title)
        data = json.loads(path.read_text())
        data["session"]["usage"] = usage
        data["session"]["turns"][0]["usage"] = usage
        path.write_text(json.dumps(data))
        assert run_cli("history", "import", str(path)).returncode == 0
    listing = run_on_pty("history", columns=250)
    rows = [line for line in listing.splitlines() if line.startswith(("aaaaaaaa", "bbbbbbbb"))]
    assert len(rows) == 2, listing
    for row, agent in zip(sorted(rows), ("longagent", "other"), strict=True):
        assert agent in row and "1,290" in row and "0.2500 ZZZ" in row and "/w" in row, row
        assert "…" in row and len(row) <= 250
    assert "short" in listing
    table = run_on_pty("usage", columns=250)
    rows = [line for line in table.splitlines() if line.startswith(("longagent", "other"))]
    assert len(rows) == 2, table
    for row in rows:
        assert "1,234" in row and "56" in row and "1,290" in row and "0.2500 ZZZ" in row, row
        assert "Z…" in row and len(row) <= 250


@pytest.mark.parametrize(
    ("kind", "needle"),
    [
        ("fifo", "is a FIFO (named pipe), not a regular file; name a file"),
        ("directory", "is a directory, not a regular file; name a file"),
        ("latin1", "is not UTF-8 (byte 16 is invalid)"),
        ("stdin-latin1", "acphost history import: stdin is not UTF-8 (byte 16 is invalid)"),
    ],
)
def test_imports_that_are_no_text_file_are_refused_in_one_line(tmp_path, kind, needle):
    """Files and stdin are read by the one bounded reader: nothing blocks, nothing half-decodes."""
    path = tmp_path / "in"
    data = None
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "latin1":
        path.write_bytes(b'{"session": "caf\xe9"}')
    else:
        path, data = "-", b'{"session": "caf\xe9"}'
    proc = subprocess.run(
        [sys.executable, "-m", "acphost", "history", "import", str(path)],
        input=data,
        capture_output=True,
        timeout=60,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert needle in err and err.count("\n") == 1, err
