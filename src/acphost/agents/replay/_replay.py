"""The replay agent: plays the agent's side of a recorded trace back to a client.

It walks the trace in order:

- a recorded client frame (``outgoing``) is *expected*: the agent waits for
  the client's next frame and compares the method (requests and
  notifications) or the result (responses to the agent's own requests);
  request ids are mapped, since a new client numbers its requests afresh;
- a recorded agent frame (``incoming``) is *sent*: responses go out under the
  id of the live request they answer; notifications and the agent's own
  requests go out as recorded.

Differences are collected and written to stderr (or ``--report FILE`` as
JSON) when the client disconnects; the exit status is 0 when the client
behaved exactly as recorded, 1 otherwise. Client frames beyond the end of the
trace are answered -32601 (requests) or ignored.

Standard library only, like the demo agent: it is an independent peer.
"""

from __future__ import annotations

import json
import queue
import sys
import threading

TYPE_CHECKING = False  # not typing's: the replay agent starts without importing typing
if TYPE_CHECKING:
    from typing import IO, Any

    Frame = dict[str, Any]
    Step = tuple[int, str, Frame]

_WAIT = 30.0
_IGNORED = ("timestamp", "direction")


def _load(path: str) -> list[Step]:
    steps: list[Step] = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            record = json.loads(raw)
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
        threading.Thread(target=self._read, args=(stdin,), daemon=True).start()

    def _read(self, stdin: IO[bytes]) -> None:
        for raw in stdin:
            if raw.strip():
                try:
                    self.incoming.put(json.loads(raw))
                except ValueError:
                    self._send(
                        {
                            "jsonrpc": "2.0",
                            "id": None,
                            "error": {"code": -32700, "message": "Parse error"},
                        }
                    )
        self.incoming.put(None)

    def _send(self, frame: Frame) -> None:
        self.out.write(json.dumps(frame, separators=(",", ":")).encode() + b"\n")
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


def _describe(frame: Frame) -> str:
    kind = _kind(frame)
    if kind == "response":
        return f"a response to id {frame.get('id')!r}"
    return f"{kind} {frame.get('method')}"


def main(argv: list[str] | None = None) -> int:
    """``python -m acphost.agents.replay TRACE [--report FILE]``; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    report = None
    if "--report" in args:
        i = args.index("--report")
        if i + 1 >= len(args):
            sys.stderr.write("replay: --report needs a file\n")
            return 2
        report = args[i + 1]
        del args[i : i + 2]
    if len(args) != 1:
        sys.stderr.write("usage: python -m acphost.agents.replay TRACE [--report FILE]\n")
        return 2
    try:
        steps = _load(args[0])
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"replay: cannot read trace {args[0]}: {exc}\n")
        return 2
    replayer = Replayer(steps, sys.stdin.buffer, sys.stdout.buffer)
    try:  # noqa: SIM105 - contextlib would cost start-up time
        replayer.run()
    except BrokenPipeError:
        pass
    diffs = replayer.differences
    if report is not None:
        try:
            with open(report, "w", encoding="utf-8") as f:
                json.dump({"trace": args[0], "differences": diffs}, f, indent=2)
        except OSError as exc:
            sys.stderr.write(f"replay: cannot write the report {report}: {exc.strerror}\n")
            return 2
    for d in diffs:
        sys.stderr.write(f"replay: {args[0]}:{d['line']}: {d['difference']}\n")
    return 1 if diffs else 0
