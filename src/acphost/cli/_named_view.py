"""A named session's run, rendered by its host: the run's turn for its output and terminal.

The host of a named session (:mod:`acphost.launch._named_host`) holds the
session and its state; each run that sends it a prompt gets a :class:`RunView`
that renders that run's turn with the command line's own renderers
(:func:`~acphost.cli._render.make_renderer`), as a plain run would on the
run's terminal: its output mode, whether its stdout and stderr are terminals,
their size and the variables that style them (``TERM``, ``NO_COLOR``...),
all sent by the run (:func:`~acphost.cli._named_client.terminal_facts`). What
the renderers write goes to the run as text for its stdout (``o``) and stderr
(``e``); the run only writes it (:mod:`acphost.cli._named_client`).
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO, cast

from ..safetext import escape_json_for_terminal
from ._edge import Edge, is_styled_terminal, warn

if TYPE_CHECKING:
    from ..client import Session
    from ..config import AgentSpec
    from ._render import Renderer

__all__ = ["RunView"]

#: What a run's terminal may say of itself; anything else is left out.
_OUTPUTS = frozenset(("text", "simple", "jsonl", "json"))
_MAX_SIZE = 10_000


class _Channel(io.TextIOBase):
    """A text stream whose writes reach a run's stdout (``o``) or stderr (``e``).

    Written text is held until the next :meth:`flush` and sent as one
    message: the renderers flush once per burst of updates, as on a real
    stream. Bytes (``-o jsonl`` mirrors frames exactly) go through
    :attr:`buffer`, carried as text with their undecodable bytes escaped
    (``surrogateescape``), which the run turns back into the same bytes.
    """

    def __init__(self, send: Callable[[dict[str, Any]], None], kind: str, tty: bool) -> None:
        super().__init__()
        self._send = send
        self._kind = kind
        self._tty = tty
        self._parts: list[str] = []
        self.buffer = _Bytes(self)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def isatty(self) -> bool:
        return self._tty

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._parts.append(text)
        return len(text)

    def flush(self) -> None:
        if self._parts:
            text = "".join(self._parts)
            self._parts.clear()
            self._send({"t": self._kind, "d": text})


class _Bytes:
    """The byte side of a :class:`_Channel` (``sys.stdout.buffer``'s role)."""

    def __init__(self, channel: _Channel) -> None:
        self._channel = channel

    def write(self, data: bytes) -> int:
        self._channel.write(data.decode("utf-8", "surrogateescape"))
        return len(data)

    def flush(self) -> None:
        self._channel.flush()


def _nothing(*_: object) -> None:
    pass


def _size(value: object) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value <= _MAX_SIZE
    return value if ok else None  # type: ignore[return-value]


class RunView:
    """One run's turn, rendered for the run's output and terminal.

    Args:
        request: the run's ``prompt`` request (``output``, ``tty``).
        send: sends the run one message.
        spec: the session's agent (``-o jsonl`` names it first, as a run does).

    """

    def __init__(
        self, request: dict[str, Any], send: Callable[[dict[str, Any]], None], spec: AgentSpec
    ) -> None:
        tty = request.get("tty")
        tty = tty if isinstance(tty, dict) else {}
        env = tty.get("env")
        self.environ = (
            {k: v for k, v in env.items() if isinstance(k, str) and isinstance(v, str)}
            if isinstance(env, dict)
            else {}
        )
        output = request.get("output")
        self.output = output if isinstance(output, str) and output in _OUTPUTS else "text"
        self.jsonl = self.output in ("jsonl", "json")
        # Streams to the renderers, as sys.stdout and sys.stderr are to a run's.
        self.out = cast("TextIO", _Channel(send, "o", tty.get("out") is True))
        self.err = cast("TextIO", _Channel(send, "e", tty.get("err") is True))
        # As rich sizes a terminal: COLUMNS and LINES, when set, before its size.
        self.width = None if "COLUMNS" in self.environ else _size(tty.get("columns"))
        self.height = None if "LINES" in self.environ else _size(tty.get("lines"))
        self.edge = Edge(self.out.isatty())
        self.spec = spec
        self.renderer: Renderer | None = None

    def started(self, session: Session, budgeted: bool) -> None:
        """The run's turn began: its renderer (or, ``-o jsonl``, the agent's line)."""
        if budgeted and session.state.usage is None:
            from ._budget import NO_USAGE_YET  # noqa: PLC0415

            warn(NO_USAGE_YET, stream=self.err)
        if self.jsonl:
            # Name and command only: args and env may carry secrets.
            frame = {
                "jsonrpc": "2.0",
                "method": "client/selected_agent",
                "params": {"name": self.spec.name, "command": self.spec.command},
            }
            self.frame("send", json.dumps(frame, separators=(",", ":")).encode())
            return
        from ._render import make_renderer  # noqa: PLC0415

        loop = asyncio.get_running_loop()
        self.renderer = make_renderer(
            self.out,
            self.err,
            session.state,
            output=self.output,
            styled=self.output == "text" and is_styled_terminal(self.out, self.environ),
            terminal=self.edge.terminal,
            defer=loop.call_soon,
            call_later=loop.call_later,
            # Writes reach the run as messages and never fail here; a run
            # that stops reading is the host's to drop (launch.send).
            on_closed=_nothing,
            on_error=_nothing,
            width=self.width,
            height=self.height,
            environ=self.environ,
        )

    def update(self, update: Any) -> None:
        """Show one update of the session."""
        if self.renderer is not None:
            self.renderer.update(update)

    def child(self, child: Any, update: Any) -> None:
        """Show one update of a subagent, attributed to it."""
        if self.renderer is not None:
            self.renderer.child(child, update)

    def frame(self, direction: str, line: bytes) -> None:
        """``-o jsonl``: one frame, exactly as it crossed the wire (JSON lines only)."""
        if not self.jsonl or line.lstrip()[:1] != b"{":
            return
        if self.out.isatty():
            line = escape_json_for_terminal(line)  # the same JSON, inert on a terminal
        self.out.buffer.write(line + b"\n")
        self.out.flush()

    def note(self, text: str) -> None:
        """Say ``acphost: text`` on the run's stderr, after what was shown."""
        if self.renderer is not None:
            self.renderer.note(text)
        else:
            warn(text, stream=self.err)

    def close(self) -> None:
        """Finish what the renderer shows; send what is held."""
        renderer, self.renderer = self.renderer, None
        if renderer is not None:
            renderer.close()
        self.out.flush()
        self.err.flush()

    def end(self, report: dict[str, Any]) -> int:
        """The turn ended: the usage line, the warnings; the run's exit code."""
        self.close()
        usage = report.get("usage")
        if self.output == "text" and isinstance(usage, str) and usage:
            self.out.write(f"[usage] {self.edge.field(usage)}\n")
            self.out.flush()
        warnings = report.get("warnings")
        for line in warnings if isinstance(warnings, list) else ():
            warn(str(line), stream=self.err)
        self.err.flush()
        code = report.get("code")
        return code if isinstance(code, int) and 0 <= code < 256 else 1

    def failed(self, report: dict[str, Any]) -> int:
        """The turn failed: what the run prints for it (``text``); its exit code."""
        self.close()
        text = report.get("text")
        if isinstance(text, str) and text:
            self.err.write(text if text.endswith("\n") else text + "\n")
            self.err.flush()
        code = report.get("code")
        return code if isinstance(code, int) and 0 <= code < 256 else 1
