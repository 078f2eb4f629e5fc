"""A fake model server: replays scripted responses in three vendor wire formats.

Real agents (Claude Code, Gemini CLI, Qwen Code) point their model endpoint at
this server (127.0.0.1, a free port) and run a whole prompt turn offline.

It speaks, streamed:

- the Anthropic Messages API: ``POST /v1/messages`` (SSE ``message_start``,
  ``content_block_start/delta/stop`` with text or ``tool_use`` blocks,
  ``message_delta`` with ``stop_reason``, ``message_stop``) and
  ``/v1/messages/count_tokens``;
- the Gemini API: ``…:streamGenerateContent?alt=sse`` (text or
  ``functionCall`` parts), ``…:generateContent`` (JSON mode: the answer is
  built from the request's response schema, so the CLI's router and
  next-speaker checks parse it) and ``…:countTokens``;
- OpenAI Chat Completions: ``/v1/chat/completions`` (streamed deltas with
  ``tool_calls``, or one JSON object when ``stream`` is false);
- the OpenAI Responses API as Codex uses it: ``/v1/responses`` (SSE
  ``response.created``, ``response.output_item.added/done`` with a ``message``
  or a ``function_call`` item, ``response.output_text.delta``,
  ``response.completed`` with ``usage``). A tool that the request offers only
  inside a ``namespace`` tool (Codex's ``multi_agent_v1``) is called with that
  ``namespace`` on the ``function_call``, as the API requires.

A script is a list of steps, one per model call of the *main* conversation:
``Tool(name, args)`` asks the agent to call a tool, ``Text(text)`` answers.
The step for a request is chosen by how many tool results the conversation
already holds, so a retried request gets the same answer. A subagent's
conversation is told apart by its task: :attr:`FakeModel.children` maps a
marker to the script of any conversation whose user text holds it (the
parent hands the child a prompt carrying the marker). Requests without
tools (titles, topic checks, summaries) are side calls: they get
:attr:`FakeModel.side_text` and never consume a step. Every request is
recorded, so a test can check what the agent sent back to the model (for
instance that it saw a rejection).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Tool:
    """Ask the agent to call ``name`` with ``args``."""

    name: str
    args: dict[str, Any]
    namespace: str | None = None  # Responses API: the namespace tool offering it


@dataclass(frozen=True)
class Text:
    """Answer with text, streamed in ``chunks`` pieces ``delay`` seconds apart."""

    text: str
    chunks: int = 1
    delay: float = 0.0

    def pieces(self) -> list[str]:
        if self.chunks <= 1:
            return [self.text]
        size = max(1, len(self.text) // self.chunks)
        return [self.text[i : i + size] for i in range(0, len(self.text), size)]


Step = Tool | Text


@dataclass
class Recorded:
    """One request the server received."""

    api: str
    path: str
    body: Any
    main: bool


@dataclass
class FakeModel:
    """The scripted server; use as a context manager, read :attr:`base_url`."""

    script: list[Step] = field(default_factory=list)
    # marker -> the script of a conversation whose user text holds the marker
    children: dict[str, list[Step]] = field(default_factory=dict)
    side_text: str = "ok"
    requests: list[Recorded] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.streaming = threading.Event()  # set when a main answer starts streaming

    # -- lifecycle ------------------------------------------------------------------

    def __enter__(self) -> FakeModel:
        model = self

        class Handler(_Handler):
            fake = model

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- scripting ------------------------------------------------------------------

    def step(self, done: int, script: list[Step] | None = None) -> Step:
        """The step after ``done`` tool results; past the end, a short final text."""
        script = self.script if script is None else script
        return script[done] if done < len(script) else Text("Done.")

    def next_step(self, api: str, body: Any) -> Step:
        """The step for a main request: its conversation's script, at its tool results."""
        said = "\n".join(_user_texts(api, body))
        script = next((s for k, s in self.children.items() if k in said), self.script)
        return self.step(len(_tool_results(api, body)), script)

    def sent(self, needle: str) -> bool:
        """Whether any main request carried ``needle`` (a system prompt, say)."""
        return any(needle in json.dumps(r.body) for r in self.main_requests())

    def record(self, api: str, path: str, body: Any, main: bool) -> None:
        with self._lock:
            self.requests.append(Recorded(api, path, body, main))

    def blocked(self) -> list[str]:
        """Requests for any host but this server (refused)."""
        with self._lock:
            return [r.path for r in self.requests if r.api == "blocked"]

    def main_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.main]

    def tool_results(self) -> str:
        """Everything the agent sent back to the model as tool results, as JSON text."""
        out: list[str] = []
        for r in self.main_requests():
            out.extend(_tool_results(r.api, r.body))
        return "\n".join(out)


# -- counting tool results -------------------------------------------------------------


def _tool_results(api: str, body: Any) -> list[str]:
    found: list[str] = []
    if api == "anthropic":
        for msg in body.get("messages", []):
            content = msg.get("content")
            if isinstance(content, list):
                found += [json.dumps(b) for b in content if b.get("type") == "tool_result"]
    elif api == "gemini":
        for msg in body.get("contents", []):
            found += [json.dumps(p) for p in msg.get("parts", []) if "functionResponse" in p]
    elif api == "openai":
        found += [json.dumps(m) for m in body.get("messages", []) if m.get("role") == "tool"]
    elif api == "responses":
        found += [
            json.dumps(item)
            for item in body.get("input", [])
            if isinstance(item, dict) and str(item.get("type", "")).endswith("call_output")
        ]
    return found


def _texts(content: Any, kinds: tuple[str, ...]) -> list[str]:
    """The text of a message's content: a string, or its blocks of the given types."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") in kinds
    ]


def _user_texts(api: str, body: Any) -> list[str]:
    """What the user side said in a conversation: its text, never tool results."""
    found: list[str] = []
    if api in ("anthropic", "openai"):
        for msg in body.get("messages", []):
            if isinstance(msg, dict) and msg.get("role") == "user":
                found += _texts(msg.get("content"), ("text",))
    elif api == "gemini":
        for msg in body.get("contents", []):
            if isinstance(msg, dict) and msg.get("role") == "user":
                parts = msg.get("parts") or []
                found += [str(p["text"]) for p in parts if isinstance(p, dict) and "text" in p]
    elif api == "responses":
        for item in body.get("input", []):
            if isinstance(item, dict) and item.get("role") == "user":
                found += _texts(item.get("content"), ("input_text", "text"))
    return found


def _namespace_of(name: str, tools: Any) -> str | None:
    """The ``namespace`` tool that offers ``name``, when no top-level tool does."""
    if not isinstance(tools, list):
        return None
    top = {t.get("name") for t in tools if isinstance(t, dict) and t.get("type") != "namespace"}
    if name in top:
        return None
    for t in tools:
        if isinstance(t, dict) and t.get("type") == "namespace":
            inner = t.get("tools") or []
            if any(isinstance(x, dict) and x.get("name") == name for x in inner):
                return str(t.get("name"))
    return None


# -- JSON mode: an answer that fits the schema ---------------------------------------------


def _from_schema(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "ok"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties", {})
        return {k: _from_schema(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    return "ok"


# -- the HTTP handler ------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    fake: FakeModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, obj: Any, status: int = 200) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _sse(self, data: Any, event: str | None = None) -> None:
        text = "" if event is None else f"event: {event}\n"
        payload = data if isinstance(data, str) else json.dumps(data)
        self.wfile.write((text + f"data: {payload}\n\n").encode())
        self.wfile.flush()

    def _foreign(self) -> bool:
        """A proxied request for another host: refuse and record it.

        Agents get this server as their HTTP(S) proxy too, so nothing they
        send can leave 127.0.0.1.
        """
        parts = urlsplit(self.path)
        if not parts.netloc or parts.netloc == f"127.0.0.1:{self.fake.port}":
            return False
        self.fake.record("blocked", self.path, None, False)
        self._json({"error": {"message": "blocked by the fake model server"}}, 403)
        return True

    def do_CONNECT(self) -> None:
        if self.path == f"127.0.0.1:{self.fake.port}":
            # A tunnel to ourselves (Qwen Code tunnels even plain http): the
            # requests that follow on this connection are ordinary ones.
            self.send_response(200, "Connection Established")
            self.end_headers()
            self.close_connection = False  # undici sends "connection: close" on CONNECT
            return
        self.fake.record("blocked", f"CONNECT {self.path}", None, False)
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.close_connection = True

    def do_GET(self) -> None:
        if self._foreign():
            return
        self.fake.record("get", self.path, None, False)
        self._json({"error": {"message": "not found"}}, 404)

    def do_HEAD(self) -> None:
        self.send_response(404)
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if self._foreign():
            return
        path = urlsplit(self.path).path
        try:
            if path.endswith("/messages/count_tokens"):
                self.fake.record("anthropic", path, body, False)
                self._json({"input_tokens": 42})
            elif path.endswith("/messages"):
                self._anthropic(path, body)
            elif path.endswith("/responses"):
                self._responses(path, body)
            elif path.endswith("/chat/completions"):
                self._openai(path, body)
            elif ":streamGenerateContent" in path:
                self._gemini(path, body, stream=True)
            elif ":generateContent" in path:
                self._gemini(path, body, stream=False)
            elif ":countTokens" in path:
                self.fake.record("gemini", path, body, False)
                self._json({"totalTokens": 42})
            else:
                self.fake.record("unknown", path, body, False)
                self._json({"error": {"message": f"no route {path}"}}, 404)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the agent hung up (a cancelled turn): nothing to finish

    # -- Anthropic ------------------------------------------------------------------

    def _anthropic(self, path: str, body: dict[str, Any]) -> None:
        main = bool(body.get("tools"))
        self.fake.record("anthropic", path, body, main)
        step: Step = self.fake.next_step("anthropic", body) if main else Text(self.fake.side_text)
        model = body.get("model", "claude-fake")
        usage = {"input_tokens": 10, "output_tokens": 5}
        if isinstance(step, Tool):
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_{int(time.time() * 1e6)}",
                "name": step.name,
                "input": step.args,
            }
            stop = "tool_use"
        else:
            block = {"type": "text", "text": step.text}
            stop = "end_turn"
        message = {
            "id": f"msg_{int(time.time() * 1e6)}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            self._json(message)
            return
        self._sse_start()
        self._sse(
            {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}},
            "message_start",
        )
        if isinstance(step, Tool):
            start = {**block, "input": {}}
            self._sse(
                {"type": "content_block_start", "index": 0, "content_block": start},
                "content_block_start",
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(step.args)}
            self._sse(
                {"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta"
            )
        else:
            self._sse(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                "content_block_start",
            )
            for piece in step.pieces():
                if main:
                    self.fake.streaming.set()
                self._sse(
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                    "content_block_delta",
                )
                time.sleep(step.delay)
        self._sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self._sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
            "message_delta",
        )
        self._sse({"type": "message_stop"}, "message_stop")

    # -- Gemini ---------------------------------------------------------------------

    def _gemini(self, path: str, body: dict[str, Any], *, stream: bool) -> None:
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        json_mode = config.get("responseMimeType") == "application/json"
        main = bool(body.get("tools")) and not json_mode
        self.fake.record("gemini", path, body, main)
        step: Step
        if json_mode:
            step = Text(json.dumps(_from_schema(schema)))
        elif main:
            step = self.fake.next_step("gemini", body)
        else:
            step = Text(self.fake.side_text)
        usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}

        def chunk(parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
            cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
            if finish:
                cand["finishReason"] = finish
            out: dict[str, Any] = {"candidates": [cand], "modelVersion": "gemini-fake"}
            if finish:
                out["usageMetadata"] = usage
            return out

        if isinstance(step, Tool):
            parts = [{"functionCall": {"name": step.name, "args": step.args}}]
            if not stream:
                self._json(chunk(parts, "STOP"))
                return
            self._sse_start()
            self._sse(chunk(parts, "STOP"))
            return
        if not stream:
            self._json(chunk([{"text": step.text}], "STOP"))
            return
        self._sse_start()
        pieces = step.pieces()
        for i, piece in enumerate(pieces):
            if main:
                self.fake.streaming.set()
            self._sse(chunk([{"text": piece}], "STOP" if i == len(pieces) - 1 else None))
            time.sleep(step.delay)

    # -- OpenAI ---------------------------------------------------------------------

    def _openai(self, path: str, body: dict[str, Any]) -> None:
        fmt = body.get("response_format") or {}
        json_mode = fmt.get("type") in ("json_object", "json_schema")
        main = bool(body.get("tools")) and not json_mode
        self.fake.record("openai", path, body, main)
        step: Step
        if json_mode:
            schema = (fmt.get("json_schema") or {}).get("schema")
            step = Text(json.dumps(_from_schema(schema)))
        elif main:
            step = self.fake.next_step("openai", body)
        else:
            step = Text(self.fake.side_text)
        ident = f"chatcmpl-{int(time.time() * 1e6)}"
        model = body.get("model", "fake")
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        call = None
        if isinstance(step, Tool):
            call = {
                "id": f"call_{int(time.time() * 1e6)}",
                "type": "function",
                "function": {"name": step.name, "arguments": json.dumps(step.args)},
            }
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": None}
            if call is not None:
                message["tool_calls"] = [call]
            else:
                message["content"] = step.text  # type: ignore[union-attr]
            self._json(
                {
                    "id": ident,
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if call else "stop",
                        }
                    ],
                    "usage": usage,
                }
            )
            return

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        self._sse_start()
        if call is not None:
            self._sse(chunk({"role": "assistant", "tool_calls": [{"index": 0, **call}]}, None))
            self._sse(chunk({}, "tool_calls"))
        else:
            assert isinstance(step, Text)
            for piece in step.pieces():
                if main:
                    self.fake.streaming.set()
                self._sse(chunk({"role": "assistant", "content": piece}, None))
                time.sleep(step.delay)
            self._sse(chunk({}, "stop"))
        self._sse({**chunk({}, None), "choices": [], "usage": usage})
        self._sse("[DONE]")

    # -- OpenAI Responses (Codex) -----------------------------------------------------

    def _responses(self, path: str, body: dict[str, Any]) -> None:
        main = bool(body.get("tools"))
        self.fake.record("responses", path, body, main)
        step: Step = self.fake.next_step("responses", body) if main else Text(self.fake.side_text)
        stamp = int(time.time() * 1e6)
        response: dict[str, Any] = {
            "id": f"resp_{stamp}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "in_progress",
            "model": body.get("model", "fake"),
            "output": [],
        }
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        self._sse_start()
        self._sse({"type": "response.created", "response": response}, "response.created")
        item: dict[str, Any]
        if isinstance(step, Tool):
            item = {
                "type": "function_call",
                "id": f"fc_{stamp}",
                "call_id": f"call_{stamp}",
                "name": step.name,
                "arguments": json.dumps(step.args),
                "status": "completed",
            }
            namespace = step.namespace or _namespace_of(step.name, body.get("tools"))
            if namespace is not None:
                item["namespace"] = namespace
            added = {**item, "arguments": "", "status": "in_progress"}
            self._sse(
                {"type": "response.output_item.added", "output_index": 0, "item": added},
                "response.output_item.added",
            )
        else:
            item = {"type": "message", "id": f"msg_{stamp}", "role": "assistant"}
            added = {**item, "status": "in_progress", "content": []}
            self._sse(
                {"type": "response.output_item.added", "output_index": 0, "item": added},
                "response.output_item.added",
            )
            for piece in step.pieces():
                if main:
                    self.fake.streaming.set()
                delta = {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": piece,
                }
                self._sse(delta, "response.output_text.delta")
                time.sleep(step.delay)
            text = {"type": "output_text", "text": step.text, "annotations": []}
            item = {**item, "status": "completed", "content": [text]}
        self._sse(
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            "response.output_item.done",
        )
        done = {**response, "status": "completed", "output": [item], "usage": usage}
        self._sse({"type": "response.completed", "response": done}, "response.completed")
