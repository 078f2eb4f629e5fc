"""The replay agent: plays the agent's side of a recorded trace back to a client.

It walks the trace in order:

- a recorded client frame (``outgoing``) is *expected*: the agent waits for
  the client's next frame and compares the method (requests and
  notifications) or the result (responses to the agent's own requests);
  request ids are mapped, since a new client numbers its requests afresh;
  an ``initialize`` also compares the ``protocolVersion`` asked for, since
  the recording answers in the version it negotiated (ACP 1 or 2: a v2
  trace's turn ends with a ``state_update``, not with the prompt's answer;
  a refused ``initialize`` and its retry are replayed as recorded);
- a recorded agent frame (``incoming``) is *sent*: responses go out under the
  id of the live request they answer; notifications and the agent's own
  requests go out as recorded.

When the client disconnects, one line on stderr sums up the differences
(``-v`` lists each, ``--report FILE`` writes them all as JSON); the exit
status is 0 when the client behaved exactly as recorded, 1 otherwise, 2 when
the trace cannot be replayed. Client frames beyond the end of the trace are
answered -32601 (requests) or ignored.

The trace is untrusted input: a line that is not JSON (invalid UTF-8, ``NaN``
or ``1e999``, nesting beyond the parser, longer than the live reader's cap)
stops the replay before it starts, with its line number; what reaches the
terminal goes through :func:`acphost.safetext.sanitize_line`.

Standard library only (and acphost's own sanitiser), like the demo agent: it
is an independent peer.
"""

from __future__ import annotations

import json
import queue
import sys
import threading

from ..._infile import InputFileError, open_input
from ...safetext import sanitize_line

TYPE_CHECKING = False  # not typing's: the replay agent starts without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

    Frame = dict[str, Any]
    Step = tuple[int, str, Frame]

_WAIT = 30.0
_IGNORED = ("timestamp", "direction")


#: The longest line read, in the trace or from the client: the live reader's
#: default cap (``acphost.rpc``'s ``DEFAULT_MAX_LINE_BYTES``; a test pins them equal).
MAX_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 20


class TraceError(ValueError):
    """The trace cannot be replayed; the message names the line."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is out of range")
    return value


def _decode(raw: bytes) -> Any:
    """Strict JSON, as the live reader decodes it; raises ValueError or RecursionError."""
    return json.loads(raw, parse_constant=_reject_constant, parse_float=_finite)


def _read_line(f: IO[bytes]) -> bytes | None:
    """The next line (b"" at the end), or None for one over the cap (skipped)."""
    line = f.readline(MAX_LINE_BYTES + 1)
    if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
        while True:
            rest = f.readline(_CHUNK)
            if not rest or rest.endswith(b"\n"):
                return None
    return line


def _load(path: str) -> list[Step]:
    """The frames of a trace, in order.

    Raises:
        InputFileError: the file cannot be read, or is no regular file (a FIFO
            would block the replay, ``/dev/zero`` would never end).
        TraceError: a line is not a frame (the message names it).

    """
    steps: list[Step] = []
    with open_input(path, what="the trace") as f:
        number = 0
        while True:
            raw = _read_line(f)
            if raw == b"":
                break
            number += 1
            if raw is None:
                raise TraceError(f"line {number} is longer than {MAX_LINE_BYTES} bytes")
            if not raw.strip():
                continue
            try:
                record = _decode(raw)
            except (ValueError, RecursionError) as exc:
                reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
                raise TraceError(f"line {number} is not JSON ({reason})") from None
            if not isinstance(record, dict):
                continue
            direction = record.get("direction")
            if direction not in ("outgoing", "incoming") or "unparsed" in record:
                continue
            frame = (
                record["frame"]
                if "frame" in record
                else {k: v for k, v in record.items() if k not in _IGNORED}
            )
            if not isinstance(frame, dict):
                raise TraceError(f"line {number} holds a frame that is not a JSON object")
            steps.append((number, direction, frame))
    return steps


_CLIENT_MINTED = ("terminalId",)


def _substitute(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return {k: _substitute(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, mapping) for v in value]
    return value


def _same_output_so_far(got: Any, want: Any) -> bool:
    """Two terminal/output answers that differ only by how far the command got."""
    if not (isinstance(got, dict) and isinstance(want, dict)):
        return False
    a, b = got.get("output"), want.get("output")
    return isinstance(a, str) and isinstance(b, str) and (a.startswith(b) or b.startswith(a))


def _error_reply(code: int, message: str) -> Frame:
    """The answer to a line whose id cannot be read (JSON-RPC 2.0 §5: id null)."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


def _kind(frame: Frame) -> str:
    if "method" in frame:
        return "request" if "id" in frame else "notification"
    return "response"


class Replayer:
    """Runs one replay over the given binary streams."""

    def __init__(self, steps: list[Step], stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.steps = steps
        self.out = stdout
        self.differences: list[dict[str, Any]] = []
        self.incoming: queue.Queue[Frame | None] = queue.Queue()
        self.id_map: dict[str, Any] = {}  # recorded client request id (as JSON) -> live id
        # Ids the client invents (terminal ids are random by design): recorded -> live.
        self.value_map: dict[str, str] = {}
        self.sent_methods: dict[str, str] = {}  # our request id (as JSON) -> method
        self.frames = 0  # recorded frames replayed or matched
        self._lock = threading.Lock()
        threading.Thread(target=self._read, args=(stdin,), daemon=True).start()

    def _read(self, stdin: IO[bytes]) -> None:
        while True:
            raw = _read_line(stdin)
            if raw == b"":
                break
            if raw is not None and not raw.strip():
                continue
            try:
                if raw is None:
                    raise ValueError("frame too long")
                frame = _decode(raw)
            except (ValueError, RecursionError):
                self._send(_error_reply(-32700, "Parse error"))
                continue
            if isinstance(frame, dict):
                self.incoming.put(frame)
            else:  # JSON-RPC 2.0 §5: JSON that is no request object is an invalid request
                self._send(_error_reply(-32600, "Invalid Request"))
        self.incoming.put(None)

    def _send(self, frame: Frame) -> None:
        data = json.dumps(frame, separators=(",", ":")).encode() + b"\n"
        with self._lock:  # the reader thread answers parse errors
            self.out.write(data)
            self.out.flush()

    def _differ(self, line: int, message: str) -> None:
        self.differences.append({"line": line, "difference": message})

    def _next_live(self, line: int) -> Frame | None:
        try:
            return self.incoming.get(timeout=_WAIT)
        except queue.Empty:
            self._differ(line, f"the client sent nothing for {_WAIT:g} s")
            return None

    def run(self) -> None:
        for line, direction, frame in self.steps:
            if direction == "outgoing":
                if not self._expect(line, frame):
                    return
            else:
                self._emit(line, frame)
            self.frames += 1
        self._drain()

    def _expect(self, line: int, recorded: Frame) -> bool:
        kind = _kind(recorded)
        while True:
            live = self._next_live(line)
            if live is None:
                self._differ(
                    line, f"the client ended before sending the recorded {_describe(recorded)}"
                )
                return False
            if (
                _kind(live) == "notification"
                and live.get("method") == "$/cancel_request"
                and kind != "notification"
            ):
                continue  # timing-dependent; never part of the script
            break
        if _kind(live) != kind:
            self._differ(line, f"expected {_describe(recorded)}, the client sent {_describe(live)}")
        elif kind in ("request", "notification"):
            if live.get("method") != recorded.get("method"):
                self._differ(
                    line, f"expected {recorded.get('method')}, the client sent {live.get('method')}"
                )
            if kind == "request":
                self.id_map[json.dumps(recorded.get("id"))] = live.get("id")
            if recorded.get("method") == "initialize":
                self._same_version(line, live, recorded)
        else:
            if live.get("id") != recorded.get("id"):
                self._differ(
                    line, f"a response to id {live.get('id')!r}, expected id {recorded.get('id')!r}"
                )
            want = recorded.get("result", recorded.get("error"))
            got = live.get("result", live.get("error"))
            if isinstance(want, dict) and isinstance(got, dict):
                for key in _CLIENT_MINTED:
                    if isinstance(want.get(key), str) and isinstance(got.get(key), str):
                        self.value_map[want[key]] = got[key]
                        want = {**want, key: got[key]}
            method = self.sent_methods.pop(json.dumps(recorded.get("id")), "")
            if method == "terminal/output" and _same_output_so_far(got, want):
                return True  # output read while the command runs depends on timing
            if ("error" in recorded) != ("error" in live) or got != want:
                self._differ(
                    line,
                    f"the client answered {json.dumps(got)[:300]}, "
                    f"recorded {json.dumps(want)[:300]}",
                )
        return True

    def _same_version(self, line: int, live: Frame, recorded: Frame) -> None:
        got, want = _asked_version(live), _asked_version(recorded)
        if got != want:
            self._differ(
                line,
                f"the client asked for protocol version {json.dumps(got)[:40]}, "
                f"the recording for {json.dumps(want)[:40]}",
            )

    def _emit(self, line: int, recorded: Frame) -> None:
        frame: Frame = _substitute(recorded, self.value_map) if self.value_map else dict(recorded)
        if _kind(frame) == "request":
            self.sent_methods[json.dumps(frame.get("id"))] = frame.get("method", "")
        if _kind(frame) == "response":
            key = json.dumps(frame.get("id"))
            if key not in self.id_map:
                self._differ(
                    line, f"recorded a response to id {frame.get('id')!r} the client never sent"
                )
                return
            frame["id"] = self.id_map.pop(key)
        self._send(frame)

    def _drain(self) -> None:
        # The script is over: answer whatever else comes until the client leaves.
        while True:
            live = self.incoming.get()
            if live is None:
                return
            if _kind(live) == "request":
                self._differ(0, f"the client sent {live.get('method')} after the end of the trace")
                self._send(
                    {
                        "jsonrpc": "2.0",
                        "id": live.get("id"),
                        "error": {
                            "code": -32601,
                            "message": "Method not found: the trace ends here",
                        },
                    }
                )


def _asked_version(frame: Frame) -> Any:
    """The ``protocolVersion`` an ``initialize`` asks for (None when it names none)."""
    params = frame.get("params")
    return params.get("protocolVersion") if isinstance(params, dict) else None


def _describe(frame: Frame) -> str:
    kind = _kind(frame)
    if kind == "response":
        return f"a response to id {frame.get('id')!r}"
    return f"{kind} {frame.get('method')}"


_DESCRIPTION = """\
Act as the agent of a recorded trace (from acphost --trace): the agent's frames
are played back, the client's are compared with the recording. Use it as the
agent command of a client, e.g.
  acphost --agent-command "acphost replay t.jsonl" "the recorded prompt"

At the end, one line on stderr sums up how the client differed from the
recording; -v lists every difference, --report FILE writes them all as JSON.
Exit status: 0 the client behaved as recorded, 1 it differed, 2 the trace
cannot be replayed."""


def _parser(prog: str, parser_class: Any, add_flags: Callable[[Any], None] | None) -> Any:
    import argparse  # noqa: PLC0415 - the agent's other start-up stays small

    p = (parser_class or argparse.ArgumentParser)(
        prog=prog, description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("trace", help="the JSONL trace to replay")
    p.add_argument(
        "-v", "--verbose", action="count", default=0, help="list every difference on stderr"
    )
    if add_flags is not None:
        add_flags(p)
    p.add_argument(
        "--report",
        metavar="FILE",
        help='write the differences as JSON: {"trace", "frames", "differences": [{"line", '
        '"difference"}]}',
    )
    return p


def _summary(trace: str, frames: int, diffs: list[dict[str, Any]]) -> str:
    if not diffs:
        return f"replay: {trace}: the client matched the recording ({frames} frames)"
    first = diffs[0]
    where = f"line {first['line']}" if first["line"] else "after the end"
    return (
        f"replay: {trace}: {len(diffs)} difference{'s' if len(diffs) > 1 else ''} "
        f"from the recording, the first at {where}: {first['difference']}"
        " (-v lists them, --report FILE saves them)"
    )


def _write_report(path: str, report: dict[str, Any]) -> None:
    import os  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".replay-report.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(
    argv: list[str] | None = None,
    *,
    prog: str = "python -m acphost.agents.replay",
    parser_class: Any = None,
    add_flags: Callable[[Any], None] | None = None,
) -> int:
    """``replay TRACE [-v] [--report FILE]``; returns the exit status.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        prog: the command name shown in usage and help.
        parser_class: the ``argparse.ArgumentParser`` subclass to parse with
            (``acphost replay`` passes the command line's, whose usage
            errors are one line).
        add_flags: adds the options the calling command accepts everywhere.

    Returns:
        0 the client behaved as recorded, 1 it differed, 2 the trace (or
        the report file) cannot be used.

    """
    try:
        parser = _parser(prog, parser_class, add_flags)
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # --help, or a usage error argparse printed
        return int(exc.code or 0)
    shown = sanitize_line(args.trace)
    try:
        steps = _load(args.trace)
    except InputFileError as exc:
        sys.stderr.write(f"replay: {sanitize_line(str(exc))}\n")
        return 2
    except OSError as exc:  # a read error after the open
        sys.stderr.write(f"replay: cannot read trace {shown}: {exc.strerror or exc}\n")
        return 2
    except TraceError as exc:
        sys.stderr.write(f"replay: cannot replay {shown}: {sanitize_line(str(exc))}\n")
        return 2
    replayer = Replayer(steps, sys.stdin.buffer, sys.stdout.buffer)
    try:  # noqa: SIM105 - contextlib would cost start-up time
        replayer.run()
    except BrokenPipeError:
        pass
    diffs = replayer.differences
    if args.report is not None:
        report = {"trace": args.trace, "frames": replayer.frames, "differences": diffs}
        try:
            _write_report(args.report, report)
        except OSError as exc:
            shown_report = sanitize_line(args.report)
            sys.stderr.write(f"replay: cannot write the report {shown_report}: {exc.strerror}\n")
            return 2
    sys.stderr.write(sanitize_line(_summary(args.trace, replayer.frames, diffs)) + "\n")
    if args.verbose:
        for d in diffs:
            sys.stderr.write(
                sanitize_line(f"replay: {args.trace}:{d['line']}: {d['difference']}") + "\n"
            )
    return 1 if diffs else 0
