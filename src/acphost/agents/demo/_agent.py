"""The demo agent's protocol side: read frames, answer methods, run turns.

The main thread reads stdin line by line and handles every frame in order.
Methods other than ``session/prompt`` are answered at once; a prompt runs its
script in a turn thread, so ``session/cancel`` is seen while it streams.
Wire names and shapes follow ACP schema-v1.25.0 (``schema.json``, and
``schema.unstable.json`` for the unstable methods it answers when called); a
connection that negotiates version 2 gets the v2 draft's methods and shapes
(``_v2``).
"""

from __future__ import annotations

import os
import sys
import threading

from ._codec import DecodeError, dumps, loads
from ._scripts import choose
from ._sessions import ANSWERED, HANDLERS
from ._store import Store, default_state_dir, iso_now
from ._turn import MICROS_PER_TOKEN, Cancelled, ScriptError, Turn, available_commands
from ._wire import (
    AUTH_REQUIRED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOT_FOUND,
    PARSE_ERROR,
    RpcError,
    Wire,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

    from ._store import Session

    Json = dict[str, Any]
    Handler = Callable[["Agent", object, Json], object]

PROTOCOL_VERSION = 1
VERSION = "0.1.0"
AUTH_METHOD = "demo-login"
AUTH_DESCRIPTION = "Always succeeds; optional unless ACPHOST_DEMO_REQUIRE_AUTH=1"


def _system_prompt_modes(value: str | None) -> tuple[str, ...]:
    value = (value or "").strip().lower()
    if value == "none":
        return ()
    return ("append",) if value == "append" else ("append", "override")


def _masked(line: str) -> str:
    """``line`` for the debug log, the values of MCP servers' headers and env hidden.

    An ``mcpServers`` entry's headers and env carry the client's credentials
    for its server (an HTTP bearer token, a socket secret): they stay out of stderr.
    """
    if '"mcpServers"' not in line:
        return line
    try:
        message = loads(line)
    except DecodeError:
        return line
    params = message.get("params") if isinstance(message, dict) else None
    servers = params.get("mcpServers") if isinstance(params, dict) else None
    for server in servers if isinstance(servers, list) else []:
        for key in ("headers", "env"):
            pairs = server.get(key) if isinstance(server, dict) else None
            for pair in pairs if isinstance(pairs, list) else []:
                if isinstance(pair, dict) and "value" in pair:
                    pair["value"] = "<hidden>"
    return dumps(message)


def _flag(env: dict[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() not in ("", "0", "false", "no")


class Agent:
    """The demo agent's state: client capabilities, auth, sessions and turns."""

    def __init__(self, wire: Wire, env: dict[str, str], state_dir: str | None) -> None:
        self.wire = wire
        self.store = Store(
            state_dir,
            env.get("ACPHOST_DEMO_SEED"),
            max(1, int(env.get("ACPHOST_DEMO_MAX_SESSIONS") or 200)),
        )
        self.require_auth = _flag(env, "ACPHOST_DEMO_REQUIRE_AUTH")
        self.page_size = max(1, int(env.get("ACPHOST_DEMO_PAGE_SIZE") or 2))
        self.step = float(env.get("ACPHOST_DEMO_STEP") or 0.05)
        # The system prompt modes it takes: both by default; "append" or
        # "none" to act as an agent that takes less.
        self.system_prompt_modes = _system_prompt_modes(env.get("ACPHOST_DEMO_SYSTEM_PROMPT"))
        # ACPHOST_DEMO_PROTOCOL=1 makes an agent that speaks only v1, as agents did
        # before v2: it answers 1 to any initialize (a client's fallback is tested on it).
        self.max_protocol = 1 if env.get("ACPHOST_DEMO_PROTOCOL", "").strip() == "1" else 2
        self.authenticated = False
        self.auth_reported: str | None = None  # the state last sent by auth/status(_update)
        self.client: Json = {}
        #: The ACP version ``initialize`` negotiated: 1 until a v2 client asks for 2.
        self.protocol = PROTOCOL_VERSION
        self.threads: list[threading.Thread] = []
        self.v1_handlers: dict[str, Handler] = {
            "initialize": Agent.initialize,
            "authenticate": Agent.authenticate,
            "logout": Agent.logout,
            "auth/status": Agent.auth_status,
            "session/prompt": Agent.prompt,
            **HANDLERS,
        }
        self.handlers = self.v1_handlers

    # -- the read loop --------------------------------------------------------

    def run(self, stdin: BinaryIO) -> int:
        """Serve until stdin ends; then cancel turns and return the exit code (0)."""
        for raw in iter(stdin.readline, b""):
            line = raw.decode("utf-8", "replace").strip()
            if line:
                if self.wire.debug:
                    self.wire.log(f"<- {_masked(line)}")
                self.receive(line)
        self.wire.log("stdin closed; exiting")
        self.wire.close()
        for session in self.store.held():
            if session.turn is not None:
                session.turn.cancel()
        for thread in self.threads:
            thread.join(2.0)
        for session in self.store.held():
            if session.host is not None:  # stop the MCP servers this agent started
                session.host.close()
        return 0

    def receive(self, line: str) -> None:
        """Handle one line from the client."""
        try:
            message = loads(line)
        except DecodeError as exc:
            self.wire.fail(None, PARSE_ERROR, f"Parse error: {exc}")
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
            result = handler(self, request_id, params)
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
            elif isinstance(session_id, str) and session is None:
                subagents = sys.modules.get(f"{__package__}._subagent")
                if subagents is not None:  # a child session of a running subagent
                    subagents.cancel(session_id)
        # `$/cancel_request`: "free to ignore" (schema, CancelRequestNotification);
        # requests here are answered at once, and prompts are cancelled by session/cancel.

    # -- helpers for the method handlers ------------------------------------------

    def check_auth(self) -> None:
        """Raise the ACP ``auth_required`` error until the client has logged in, if required."""
        if self.require_auth and not self.authenticated:
            method = "auth/login" if self.protocol == 2 else "authenticate"
            raise RpcError(AUTH_REQUIRED, f"Authentication required: call {method}(demo-login)")

    def session(self, params: Json, *, open_only: bool = True) -> Session:
        """Return the session named by ``params["sessionId"]``.

        Raises:
            RpcError: Not logged in (when required), a bad id, an unknown session
                (-32002), or a closed one when ``open_only``.

        """
        self.check_auth()
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: sessionId must be a string")
        session = self.store.get(session_id)
        if session is None:
            raise RpcError(NOT_FOUND, f"Resource not found: no session {session_id}")
        if open_only and not session.open:
            raise RpcError(NOT_FOUND, f"Session {session_id} is closed: load or resume it first")
        return session

    def client_session_cap(self, name: str, sub: str | None = None) -> bool:
        """Return whether the client advertised ``clientCapabilities.session.<name>[.<sub>]``.

        An object means yes; omitted or ``null`` means no (schema, ClientSessionCapabilities).
        """
        session = self.client.get("session")
        value = session.get(name) if isinstance(session, dict) else None
        if sub is not None:
            value = value.get(sub) if isinstance(value, dict) else None
        return isinstance(value, dict)

    def send_update(self, session: Session, update: Json) -> None:
        """Send one ``session/update`` notification for ``session``."""
        self.wire.notify("session/update", {"sessionId": session.id, "update": update})

    @staticmethod
    def commands_update() -> Json:
        """Return the ``available_commands_update`` every session gets."""
        return available_commands()

    # -- initialization and authentication ------------------------------------------

    def initialize(self, request_id: object, params: Json) -> Json:
        """``initialize``: answer 2 to a v2-shaped request for 2 or more, else 1.

        As the SDK's protocol router does: the highest version this agent speaks
        at or below the one asked for. A request for exactly 2 is checked
        strictly: without ``info`` it fails with -32602 and the connection
        stays open for a v1 retry. A later version without the v2 shape gets
        the v1 answer, as before v2 existed.
        """
        version = params.get("protocolVersion")
        if not isinstance(version, int):
            raise RpcError(INVALID_PARAMS, "Invalid params: protocolVersion must be an integer")
        if self.max_protocol >= 2 and (version == 2 or (version > 2 and "info" in params)):
            from . import _v2  # noqa: PLC0415 - only a v2 client loads it

            info = {"name": "acphost-demo", "title": "acphost demo agent", "version": VERSION}
            method = {"methodId": AUTH_METHOD, "type": "agent", "name": "Demo login"}
            method["description"] = AUTH_DESCRIPTION
            result = _v2.initialize(self, params, info, method)
            self.handlers = _v2.handlers(self.v1_handlers)
            return result
        self.protocol, self.handlers, self.wire.v2 = PROTOCOL_VERSION, self.v1_handlers, None
        caps = params.get("clientCapabilities")
        self.client = caps if isinstance(caps, dict) else {}
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                "mcpCapabilities": {"http": False, "sse": False},
                # list/resume/close/delete are stable; fork/title/status/archive
                # are where schema.unstable.json puts its session methods.
                "sessionCapabilities": {
                    "list": {},
                    "resume": {},
                    "close": {},
                    "delete": {},
                    "fork": {},
                    "title": {},
                    "status": {},
                    "archive": {},
                    **self._system_prompt_capability(),
                },
                # `status` (auth/status) is unstable; `logout` is stable.
                "auth": {"logout": {}, "status": {}},
            },
            "authMethods": [
                {
                    "id": AUTH_METHOD,
                    "name": "Demo login",
                    "description": AUTH_DESCRIPTION,
                }
            ],
            "agentInfo": {
                "name": "acphost-demo",
                "title": "acphost demo agent",
                "version": VERSION,
            },
        }

    def _system_prompt_capability(self) -> Json:
        # Schema SessionSystemPromptCapabilities: {} is append only.
        if not self.system_prompt_modes:
            return {}
        if "override" in self.system_prompt_modes:
            return {"systemPrompt": {"mode": {"override": {}}}}
        return {"systemPrompt": {}}

    def authenticate(self, request_id: object, params: Json) -> object:
        """``authenticate``: only ``demo-login`` exists."""
        if params.get("methodId") != AUTH_METHOD:
            raise RpcError(
                INVALID_PARAMS, f"Invalid params: unknown auth method {params.get('methodId')!r}"
            )
        self.authenticated = True
        self.wire.respond(request_id, {})
        self._auth_changed()
        return ANSWERED

    def logout(self, request_id: object, params: Json) -> object:
        """``logout`` (advertised as ``agentCapabilities.auth.logout``)."""
        self.authenticated = False
        self.wire.respond(request_id, {})
        self._auth_changed()
        return ANSWERED

    def _auth_state(self) -> Json:
        if self.authenticated:
            account = {"label": "Demo account", "name": "demo", "active": True}
            return {"state": "authenticated", "accounts": [account]}
        return {"state": "unauthenticated" if self.require_auth else "not_required"}

    def auth_status(self, request_id: object, params: Json) -> Json:
        """``auth/status`` (unstable): the login state; never ``auth_required`` (-32000)."""
        state = self._auth_state()
        self.auth_reported = str(state["state"])
        return state

    def _auth_changed(self) -> None:
        # auth/status_update (unstable) goes only to a client that has called
        # auth/status, and only when the state differs from the last one sent
        # (schema.unstable.json, AuthStatusUpdateNotification).
        if self.auth_reported is None:
            return
        state = self._auth_state()
        if state["state"] != self.auth_reported:
            self.auth_reported = str(state["state"])
            self.wire.notify("auth/status_update", state)

    # -- prompt turns -----------------------------------------------------------------

    def prompt(self, request_id: object, params: Json) -> object:
        """``session/prompt``: start the turn thread; it sends the answer."""
        session = self.session(params)
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
            protocol=self.protocol,
        )
        session.turn = turn
        if self.protocol == 2:
            from . import _v2  # noqa: PLC0415 - loaded by initialize already

            _v2.accept(self, request_id, turn, blocks)
        thread = threading.Thread(
            target=self._run_turn, args=(request_id, turn), name="acphost-demo.turn", daemon=True
        )
        self.threads = [t for t in self.threads if t.is_alive()]
        self.threads.append(thread)
        thread.start()
        return ANSWERED

    def _run_turn(self, request_id: object, turn: Turn) -> None:
        script, rest = choose(turn.text)
        try:
            stop_reason = script(turn, rest)
        except Cancelled:
            stop_reason = "cancelled"
        except ScriptError as exc:
            self._finish(turn)
            self._failed(request_id, turn, exc.code, exc.message, exc.data)
            return
        except Exception as exc:
            # A bug in a script must not leave the prompt unanswered: report it
            # on stderr, answer with an internal error, and keep serving.
            import traceback  # noqa: PLC0415 - the error path only

            traceback.print_exc()
            self._finish(turn)
            self._failed(request_id, turn, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")
            return
        self._finish(turn)
        if turn.protocol == 2:
            from . import _v2  # noqa: PLC0415 - loaded by initialize already

            _v2.end(self.wire, turn, stop_reason)
            self._after(turn)
            return
        result: Json = {"stopReason": stop_reason}
        if turn.usage is not None:
            # PromptResponse.usage: token usage for this turn (schema.unstable.json;
            # the stable PromptResponse leaves extra fields open).
            result["usage"] = turn.usage
        self.wire.respond(request_id, result)
        self._after(turn)

    def _failed(
        self, request_id: object, turn: Turn, code: int, message: str, data: Any = None
    ) -> None:
        if turn.protocol == 2:
            # v2 answered the prompt when it was inserted: the work ends in error
            # (schema IdleStateUpdate, stopReason "error" with the JSON-RPC error).
            from . import _v2  # noqa: PLC0415 - loaded by initialize already

            _v2.end(self.wire, turn, "error", _v2.failed(code, message, data))
        else:
            self.wire.fail(request_id, code, message, data)

    @staticmethod
    def _after(turn: Turn) -> None:
        for work in turn.after:  # after the turn's end: a subagent that goes on
            try:
                work()
            except Exception:
                import traceback  # noqa: PLC0415 - the error path only

                traceback.print_exc()

    def _finish(self, turn: Turn) -> None:
        session = turn.session
        with self.store.lock:
            session.history.append(
                {"role": "user", "messageId": turn.user_message_id, "text": turn.text}
            )
            session.history.extend(turn.events)
            session.history.append(
                {"role": "agent", "messageId": turn.message_id, "text": "".join(turn.reply)}
            )
            # The prompt joins the context; so does the reply, unless the script
            # reported its usage (and counted its tokens) itself.
            added = len(turn.text) // 4
            if turn.usage is None:
                added += sum(len(t) for t in turn.reply) // 4 + 10
            session.tokens += added
            session.cost_micros += added * MICROS_PER_TOKEN
            session.updated = iso_now()
            session.turn = None
            if self.store.get(session.id) is session:
                self.store.save(session)


USAGE = """usage: python -m acphost.agents.demo [--memory | --state-dir DIR]

The acphost demo agent: a scripted ACP agent on stdin/stdout (no model, no network).
Sessions persist in $XDG_STATE_HOME/acphost/demo (default ~/.local/state/acphost/demo).

  --memory         keep sessions in memory only (also ACPHOST_DEMO_MEMORY=1)
  --state-dir DIR  keep sessions in DIR (also ACPHOST_DEMO_STATE_DIR)
  --version        print the version and exit
  -h, --help       print this help and exit
"""


def main(argv: list[str] | None = None) -> int:
    """Run the demo agent on this process's stdin and stdout; return the exit code."""
    args = sys.argv[1:] if argv is None else argv
    if "-h" in args or "--help" in args:
        sys.stdout.write(USAGE)
        return 0
    if "--version" in args:
        sys.stdout.write(f"acphost-demo {VERSION}\n")
        return 0
    rest = list(args)
    if "--state-dir" in rest:
        index = rest.index("--state-dir")
        if index + 1 >= len(rest) or not rest[index + 1]:
            sys.stderr.write("acphost-demo: --state-dir needs a directory\n" + USAGE)
            return 2
        del rest[index : index + 2]
    rest = [a for a in rest if a != "--memory"]
    if rest:
        sys.stderr.write(f"acphost-demo: unknown argument {rest[0]!r}\n" + USAGE)
        return 2
    env = dict(os.environ)
    wire = Wire(sys.stdout.buffer, debug=_flag(env, "ACPHOST_DEMO_DEBUG"))
    try:
        return Agent(wire, env, default_state_dir(env, args)).run(sys.stdin.buffer)
    except KeyboardInterrupt:
        return 130
