"""The demo agent's protocol side: read frames, answer methods, run turns.

The main thread reads stdin line by line and handles every frame in order.
Methods other than ``session/prompt`` are answered at once; a prompt runs its
script in a turn thread, so ``session/cancel`` is seen while it streams.
Wire names and shapes follow ``acphost/schema/v1/schema.json`` (v1.21.0).
"""

from __future__ import annotations

import os
import sys
import threading

from ._codec import DecodeError, loads
from ._scripts import choose
from ._store import MODELS, MODES, Store, iso_now
from ._turn import Cancelled, ScriptError, Turn, available_commands
from ._wire import Wire

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

    from ._store import Session

    Json = dict[str, Any]

PROTOCOL_VERSION = 1
VERSION = "0.1.0"
AUTH_METHOD = "demo-login"

# JSON-RPC and ACP error codes (schema `ErrorCode`).
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
AUTH_REQUIRED = -32000
NOT_FOUND = -32002

_ANSWERED = object()  # a handler that already sent its response returns this


class RpcError(Exception):
    """Answer the current request with this JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _flag(env: dict[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() not in ("", "0", "false", "no")


class Agent:
    """The demo agent's state: client capabilities, auth, sessions and turns."""

    def __init__(self, wire: Wire, env: dict[str, str]) -> None:
        self.wire = wire
        self.store = Store(env.get("ACPHOST_DEMO_STATE_DIR") or None, env.get("ACPHOST_DEMO_SEED"))
        self.require_auth = _flag(env, "ACPHOST_DEMO_REQUIRE_AUTH")
        self.page_size = max(1, int(env.get("ACPHOST_DEMO_PAGE_SIZE") or 2))
        self.step = float(env.get("ACPHOST_DEMO_STEP") or 0.05)
        self.authenticated = False
        self.client: Json = {}
        self.threads: list[threading.Thread] = []
        self.handlers: dict[str, Callable[[object, Json], object]] = {
            "initialize": self.initialize,
            "authenticate": self.authenticate,
            "logout": self.logout,
            "session/new": self.session_new,
            "session/load": self.session_load,
            "session/list": self.session_list,
            "session/resume": self.session_resume,
            "session/close": self.session_close,
            "session/delete": self.session_delete,
            "session/set_mode": self.set_mode,
            "session/set_config_option": self.set_config_option,
            "session/prompt": self.prompt,
        }

    # -- the read loop --------------------------------------------------------

    def run(self, stdin: BinaryIO) -> int:
        """Serve until stdin ends; then cancel turns and return the exit code (0)."""
        for raw in iter(stdin.readline, b""):
            line = raw.decode("utf-8", "replace").strip()
            if line:
                self.wire.log(f"<- {line}")
                self.receive(line)
        self.wire.log("stdin closed; exiting")
        self.wire.close()
        for session in self.store.all():
            if session.turn is not None:
                session.turn.cancel()
        for thread in self.threads:
            thread.join(2.0)
        return 0

    def receive(self, line: str) -> None:
        """Handle one line from the client."""
        try:
            message = loads(line)
        except DecodeError as exc:
            self.wire.fail(None, -32700, f"Parse error: {exc}")
            return
        if not isinstance(message, dict):
            self.wire.fail(None, INVALID_REQUEST, "Invalid request: not a JSON object")
            return
        method = message.get("method")
        if method is None and "id" in message and ("result" in message or "error" in message):
            self.wire.receive_response(message)
            return
        if not isinstance(method, str):
            self.wire.fail(message.get("id"), INVALID_REQUEST, "Invalid request: no method")
            return
        params = message.get("params")
        if "id" not in message:
            self.notification(method, params if isinstance(params, dict) else {})
            return
        request_id = message["id"]
        handler = self.handlers.get(method)
        if handler is None:
            self.wire.fail(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")
            return
        if params is None:
            params = {}
        try:
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "Invalid params: params must be an object")
            result = handler(request_id, params)
        except RpcError as exc:
            self.wire.fail(request_id, exc.code, exc.message)
            return
        if isinstance(result, dict):
            self.wire.respond(request_id, result)

    def notification(self, method: str, params: Json) -> None:
        """Handle a notification; unknown ones (and ``$/cancel_request``) are ignored."""
        if method == "session/cancel":
            session_id = params.get("sessionId")
            session = self.store.get(session_id) if isinstance(session_id, str) else None
            if session is not None and session.turn is not None:
                session.turn.cancel()
        # `$/cancel_request`: "free to ignore" (schema, CancelRequestNotification);
        # requests here are answered at once, and prompts are cancelled by session/cancel.

    # -- helpers ----------------------------------------------------------------

    def _check_auth(self) -> None:
        if self.require_auth and not self.authenticated:
            raise RpcError(AUTH_REQUIRED, "Authentication required: call authenticate(demo-login)")

    def _session(self, params: Json, *, open_only: bool = True) -> Session:
        self._check_auth()
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: sessionId must be a string")
        session = self.store.get(session_id)
        if session is None:
            raise RpcError(NOT_FOUND, f"Resource not found: no session {session_id}")
        if open_only and not session.open:
            raise RpcError(NOT_FOUND, f"Session {session_id} is closed: load or resume it first")
        return session

    @staticmethod
    def _cwd(params: Json) -> str:
        cwd = params.get("cwd")
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            raise RpcError(INVALID_PARAMS, "Invalid params: cwd must be an absolute path")
        return cwd

    def _bool_options(self) -> bool:
        # Boolean config options only for clients that opt in (schema,
        # SessionConfigOptionsCapabilities.boolean).
        session = self.client.get("session")
        options = session.get("configOptions") if isinstance(session, dict) else None
        return isinstance(options, dict) and isinstance(options.get("boolean"), dict)

    def _state(self, session: Session) -> Json:
        modes = [{"id": i, "name": n, "description": d} for i, n, d in MODES]
        config: list[Json] = [
            {
                "id": "model",
                "name": "Model",
                "category": "model",
                "type": "select",
                "currentValue": session.model,
                "options": [{"value": value, "name": name} for value, name in MODELS],
            }
        ]
        if self._bool_options():
            config.append(
                {
                    "id": "verbose",
                    "name": "Verbose",
                    "type": "boolean",
                    "currentValue": session.verbose,
                }
            )
        return {
            "modes": {"currentModeId": session.mode, "availableModes": modes},
            "configOptions": config,
        }

    def _after(self, request_id: object, result: Json, session: Session) -> object:
        # The commands update follows the response: only then does the client
        # know the session id it belongs to.
        self.wire.respond(request_id, result)
        self.wire.notify(
            "session/update", {"sessionId": session.id, "update": available_commands()}
        )
        return _ANSWERED

    # -- methods ----------------------------------------------------------------

    def initialize(self, request_id: object, params: Json) -> Json:
        """``initialize``: always answer version 1, the only one this agent speaks."""
        if not isinstance(params.get("protocolVersion"), int):
            raise RpcError(INVALID_PARAMS, "Invalid params: protocolVersion must be an integer")
        caps = params.get("clientCapabilities")
        self.client = caps if isinstance(caps, dict) else {}
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                "mcpCapabilities": {"http": False, "sse": False},
                "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "delete": {}},
                "auth": {"logout": {}},
            },
            "authMethods": [
                {
                    "id": AUTH_METHOD,
                    "name": "Demo login",
                    "description": "Always succeeds; optional unless ACPHOST_DEMO_REQUIRE_AUTH=1",
                }
            ],
            "agentInfo": {
                "name": "acphost-demo",
                "title": "acphost demo agent",
                "version": VERSION,
            },
        }

    def authenticate(self, request_id: object, params: Json) -> Json:
        """``authenticate``: only ``demo-login`` exists."""
        if params.get("methodId") != AUTH_METHOD:
            raise RpcError(
                INVALID_PARAMS, f"Invalid params: unknown auth method {params.get('methodId')!r}"
            )
        self.authenticated = True
        return {}

    def logout(self, request_id: object, params: Json) -> Json:
        """``logout`` (advertised as ``agentCapabilities.auth.logout``)."""
        self.authenticated = False
        return {}

    def session_new(self, request_id: object, params: Json) -> object:
        """``session/new``: a fresh session in mode ``ask`` with model ``demo-fast``."""
        self._check_auth()
        session = self.store.create(self._cwd(params))
        return self._after(request_id, {"sessionId": session.id, **self._state(session)}, session)

    def session_load(self, request_id: object, params: Json) -> object:
        """``session/load``: replay the history as message chunks, then answer."""
        cwd = self._cwd(params)
        session = self._session(params, open_only=False)
        for entry in session.history:
            kind = "user_message_chunk" if entry.get("role") == "user" else "agent_message_chunk"
            update = {
                "sessionUpdate": kind,
                "content": {"type": "text", "text": str(entry.get("text", ""))},
                "messageId": str(entry.get("messageId")),
            }
            self.wire.notify("session/update", {"sessionId": session.id, "update": update})
        session.cwd, session.open = cwd, True
        return self._after(request_id, self._state(session), session)

    def session_resume(self, request_id: object, params: Json) -> object:
        """``session/resume``: reopen a session without replaying its history."""
        cwd = self._cwd(params)
        session = self._session(params, open_only=False)
        session.cwd, session.open = cwd, True
        return self._after(request_id, self._state(session), session)

    def session_list(self, request_id: object, params: Json) -> Json:
        """``session/list``: oldest first, ``page_size`` per page, opaque ``nextCursor``."""
        self._check_auth()
        cwd, cursor = params.get("cwd"), params.get("cursor")
        if cwd is not None and not isinstance(cwd, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: cwd must be a string")
        start = 0
        if cursor is not None:
            if not (
                isinstance(cursor, str) and cursor.startswith("demo:") and cursor[5:].isdigit()
            ):
                raise RpcError(INVALID_PARAMS, f"Invalid params: bad cursor {cursor!r}")
            start = int(cursor[5:])
        sessions = [s for s in self.store.all() if cwd is None or s.cwd == cwd]
        end = start + self.page_size
        result: Json = {"sessions": [s.info() for s in sessions[start:end]]}
        if end < len(sessions):
            result["nextCursor"] = f"demo:{end}"
        return result

    def session_close(self, request_id: object, params: Json) -> Json:
        """``session/close``: cancel its turn and mark it closed (it stays loadable)."""
        session = self._session(params, open_only=False)
        if session.turn is not None:
            session.turn.cancel()
        session.open = False
        return {}

    def session_delete(self, request_id: object, params: Json) -> Json:
        """``session/delete``: cancel its turn and forget it, file included."""
        session = self._session(params, open_only=False)
        if session.turn is not None:
            session.turn.cancel()
        self.store.delete(session.id)
        return {}

    def set_mode(self, request_id: object, params: Json) -> Json:
        """``session/set_mode``: send ``current_mode_update`` before the answer."""
        session = self._session(params)
        mode = params.get("modeId")
        if mode not in [m[0] for m in MODES]:
            raise RpcError(INVALID_PARAMS, f"Invalid params: unknown mode {mode!r}")
        session.mode = str(mode)
        self._changed(session, {"sessionUpdate": "current_mode_update", "currentModeId": mode})
        return {}

    def set_config_option(self, request_id: object, params: Json) -> Json:
        """``session/set_config_option``: answer the full option list."""
        session = self._session(params)
        config_id, value = params.get("configId"), params.get("value")
        if config_id == "model" and value in [m[0] for m in MODELS]:
            session.model = str(value)
        elif config_id == "verbose" and self._bool_options() and isinstance(value, bool):
            session.verbose = value
        else:
            raise RpcError(INVALID_PARAMS, f"Invalid params: bad option {config_id!r} = {value!r}")
        options = self._state(session)["configOptions"]
        self._changed(session, {"sessionUpdate": "config_option_update", "configOptions": options})
        return {"configOptions": options}

    def _changed(self, session: Session, update: Json) -> None:
        # The update goes before the response, so a client that reads frames in
        # order already holds the new state when its request returns.
        session.updated = iso_now()
        self.store.save(session)
        self.wire.notify("session/update", {"sessionId": session.id, "update": update})

    def prompt(self, request_id: object, params: Json) -> object:
        """``session/prompt``: start the turn thread; it sends the answer."""
        session = self._session(params)
        blocks = params.get("prompt")
        if not isinstance(blocks, list):
            raise RpcError(INVALID_PARAMS, "Invalid params: prompt must be an array")
        texts: list[str] = []
        attachments: list[str] = []
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                texts.append(str(block.get("text", "")))
            elif kind == "resource_link":
                attachments.append(f"{block.get('name')} <{block.get('uri')}>")
            elif kind == "resource":
                resource = block.get("resource")
                uri = resource.get("uri") if isinstance(resource, dict) else None
                attachments.append(f"embedded resource <{uri}>")
            elif kind == "image":
                attachments.append(f"image ({block.get('mimeType')})")
            else:
                raise RpcError(INVALID_PARAMS, f"Invalid params: unsupported content {kind!r}")
        if session.turn is not None:
            raise RpcError(
                INVALID_PARAMS, "Invalid params: a turn is already running in this session"
            )
        turn = Turn(
            self.wire,
            session,
            text="".join(texts),
            attachments=attachments,
            client=self.client,
            step=self.step,
        )
        session.turn = turn
        thread = threading.Thread(
            target=self._run_turn, args=(request_id, turn), name="acphost-demo.turn", daemon=True
        )
        self.threads = [t for t in self.threads if t.is_alive()]
        self.threads.append(thread)
        thread.start()
        return _ANSWERED

    def _run_turn(self, request_id: object, turn: Turn) -> None:
        script, rest = choose(turn.text)
        try:
            stop_reason = script(turn, rest)
        except Cancelled:
            stop_reason = "cancelled"
        except ScriptError as exc:
            self._finish(turn)
            self.wire.fail(request_id, exc.code, exc.message, exc.data)
            return
        self._finish(turn)
        self.wire.respond(request_id, {"stopReason": stop_reason})

    def _finish(self, turn: Turn) -> None:
        session = turn.session
        with self.store.lock:
            session.history.append(
                {"role": "user", "messageId": turn.user_message_id, "text": turn.text}
            )
            session.history.append(
                {"role": "agent", "messageId": turn.message_id, "text": "".join(turn.reply)}
            )
            session.tokens += (len(turn.text) + sum(len(t) for t in turn.reply)) // 4 + 10
            session.updated = iso_now()
            session.turn = None
            if self.store.get(session.id) is session:
                self.store.save(session)


def main() -> int:
    """Run the demo agent on this process's stdin and stdout; return the exit code."""
    env = dict(os.environ)
    wire = Wire(sys.stdout.buffer, debug=_flag(env, "ACPHOST_DEMO_DEBUG"))
    try:
        return Agent(wire, env).run(sys.stdin.buffer)
    except KeyboardInterrupt:
        return 130
