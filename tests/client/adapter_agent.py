"""A scripted agent speaking the frames codex-acp 2.6.0 and claude-agent-acp 0.101.0 send.

``adapter_agent.py FLAVOUR [OPTIONS]``; FLAVOUR is ``codex`` or ``claude``. The
shapes are those of recorded runs of the two adapters (v1, offline):

- an ``_auth/status_update`` extension notification before the ``session/new``
  answer (``{"authStatus": {kind, label, detail}}``);
- codex: a ``session_info_update`` that carries only ``_meta.codex.threadStatus``
  (``active`` at the turn's start, ``idle`` at its end), the title later in an
  update of its own;
- a ``usage_update`` with the context only (no cost);
- the ``session/prompt`` answer with ``usage`` (codex adds ``thoughtTokens``) and
  ``_meta.quota`` (token counts, in the adapter's own names, per model);
- its own requests numbered from 0: each prompt asks ``ASK`` permissions (ids 0,
  1, ... over the whole run, as both adapters number them), so that one of them
  has the id of the client's pending ``session/prompt``.

Options:
    --asks N: permissions each prompt asks (default 1).
    --quota-only: the answer has ``_meta.quota`` but no ``usage``.
    --child PIDFILE: start a process of its own (a sleeping one that ignores
        SIGTERM), write ``"AGENT CHILD"`` pids to PIDFILE.
    --linger: keep running after stdin closes, as codex-acp does, until a
        signal ends it (claude-agent-acp exits).
    --title-at-eof: claude's title, which it sends right after its answer,
        comes when stdin closes instead (the latest it may come).
    --auth-update: after the extension's notification, the unstable schema's
        ``auth/status_update`` (which neither adapter sends) with the same news.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("flavour", choices=("codex", "claude"))
parser.add_argument("--asks", type=int, default=1)
parser.add_argument("--quota-only", action="store_true")
parser.add_argument("--child", metavar="PIDFILE")
parser.add_argument("--linger", action="store_true")
parser.add_argument("--auth-update", action="store_true")
parser.add_argument("--title-at-eof", action="store_true")
opts = parser.parse_args()
CODEX = opts.flavour == "codex"
SID = "01a21f16-589e-7ec3-91a8-6fbab3a53489" if CODEX else "570e4721-cefb-4632-bb58-a41d64b90fc3"

if opts.child:
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)
    with open(opts.child + ".tmp", "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    os.replace(opts.child + ".tmp", opts.child)

INIT_CODEX = {
    "protocolVersion": 1,
    "agentInfo": {"name": "@agentclientprotocol/codex-acp", "title": "Codex", "version": "2.6.0"},
    "agentCapabilities": {
        "auth": {"logout": {}},
        "providers": {},
        "loadSession": True,
        "promptCapabilities": {"embeddedContext": True, "image": True},
        "sessionCapabilities": {"resume": {}, "list": {}, "close": {}, "subagents": {}},
        "mcpCapabilities": {"acp": False, "http": True, "sse": False},
        "_meta": {"authStatus": {}},
    },
    "authMethods": [
        {"id": "api-key", "name": "API Key", "_meta": {"api-key": {"provider": "openai"}}}
    ],
    "_meta": {"steering": {"supported": True}},
}
INIT_CLAUDE = {
    "protocolVersion": 1,
    "agentCapabilities": {
        "_meta": {"claudeCode": {"promptQueueing": True}, "authStatus": {}},
        "promptCapabilities": {"image": True, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": True},
        "auth": {"logout": {}},
        "providers": {},
        "loadSession": True,
        "sessionCapabilities": {"close": {}, "list": {}, "resume": {}},
    },
    "agentInfo": {
        "name": "@agentclientprotocol/claude-agent-acp",
        "title": "Claude Agent",
        "version": "0.101.0",
    },
    "authMethods": [],
    "_meta": {"steering": {"supported": True}},
}
AUTH_STATUS = (
    {"kind": "gateway", "label": "Custom model gateway", "detail": "fake"}
    if CODEX
    else {"kind": "api_key", "label": "Anthropic API key", "detail": "ANTHROPIC_API_KEY"}
)
#: The answer's usage, as each adapter names it (claude sends no thoughtTokens).
USAGE = {
    "totalTokens": 70,
    "inputTokens": 50,
    "cachedReadTokens": 4,
    "cachedWriteTokens": 3,
    "outputTokens": 20,
}
if CODEX:
    USAGE["thoughtTokens"] = 6
QUOTA_COUNT = {
    "totalTokens": 70,
    "inputTokens": 50,
    "cachedInputTokens": 4,
    "cacheWriteInputTokens" if CODEX else "cachedWriteTokens": 3,
    "outputTokens": 20,
    "reasoningOutputTokens": 6 if CODEX else 0,
}
QUOTA = {
    "token_count": QUOTA_COUNT,
    "model_usage": [
        {
            "model": "gpt-5.3-codex" if CODEX else "claude-opus-5-5",
            # claude's per-model count is the process's, not the turn's
            "token_count": {**QUOTA_COUNT, "totalTokens": 70 if CODEX else 140},
        }
    ],
}

#: The agent's own request ids (the adapters number them from 0) and its turns.
COUNT = {"requests": 0, "turns": 0}


def send(msg: dict) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **msg}) + "\n")
    sys.stdout.flush()


def update(upd: dict) -> None:
    send({"method": "session/update", "params": {"sessionId": SID, "update": upd}})


def chunk(text: str) -> None:
    update(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "msg_fake_41",
            "content": {"type": "text", "text": text},
        }
    )


def ask(n: int) -> str:
    """Ask one permission with the next id; return the option the client chose."""
    rid = COUNT["requests"]
    COUNT["requests"] += 1
    call = f"call_fake_{n}"
    send(
        {
            "id": rid,
            "method": "session/request_permission",
            "params": {
                "sessionId": SID,
                "toolCall": {
                    "toolCallId": call,
                    "title": "touch shell-ran",
                    "kind": "execute",
                    "status": "pending",
                    "rawInput": {"command": "touch shell-ran"},
                },
                "options": [
                    {"optionId": "allow_once", "name": "Yes", "kind": "allow_once"},
                    {"optionId": "cancel", "name": "No", "kind": "reject_once"},
                ],
            },
        }
    )
    for line in sys.stdin:
        msg = json.loads(line)
        if "method" in msg:
            continue  # nothing else is expected while the question is open
        if msg.get("id") != rid or "result" not in msg:
            raise SystemExit(f"expected the answer to request {rid}, got {msg!r}")
        return msg["result"]["outcome"].get("optionId", "cancelled")
    raise SystemExit("stdin closed while a permission was asked")


def prompt(rid: object) -> None:
    COUNT["turns"] += 1
    if CODEX:
        update(
            {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "Model metadata for `gpt-5.3-codex` not found.",
            }
        )
        update(
            {
                "sessionUpdate": "session_info_update",
                "_meta": {"codex": {"threadStatus": {"type": "active", "activeFlags": []}}},
            }
        )
    chosen = [ask(n) for n in range(opts.asks)]
    chunk("hello from")
    chunk(" the fake model" + (f" ({', '.join(chosen)})" if chosen else ""))
    used = {"sessionUpdate": "usage_update", "used": 70, "size": 258400 if CODEX else 1000000}
    if not CODEX:
        used["_meta"] = {"_claude/model": "claude-opus-5-5"}
    update(used)
    if CODEX:
        update(
            {
                "sessionUpdate": "session_info_update",
                "_meta": {"codex": {"threadStatus": {"type": "idle"}}},
            }
        )
        if COUNT["turns"] == 1:  # codex names the thread after its first prompt, once
            update({"sessionUpdate": "session_info_update", "title": "Probe turn"})
    result: dict = {"stopReason": "end_turn", "_meta": {"quota": QUOTA}}
    if not opts.quota_only:
        result["usage"] = USAGE
    send({"id": rid, "result": result})
    if not CODEX and not opts.title_at_eof:
        update(
            {
                "sessionUpdate": "session_info_update",
                "title": "Probe turn",
                "updatedAt": "2026-11-27T22:17:01.798Z",
            }
        )


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method is None:
        continue
    if method == "initialize":
        send({"id": rid, "result": INIT_CODEX if CODEX else INIT_CLAUDE})
    elif method == "session/new":
        send({"method": "_auth/status_update", "params": {"authStatus": AUTH_STATUS}})
        if opts.auth_update:
            account = {"label": AUTH_STATUS["label"], "active": True}
            send(
                {
                    "method": "auth/status_update",
                    "params": {"state": "authenticated", "accounts": [account]},
                }
            )
        send({"id": rid, "result": {"sessionId": SID}})
    elif method == "session/prompt":
        prompt(rid)
    elif rid is not None:
        send({"id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})

if opts.title_at_eof:
    update({"sessionUpdate": "session_info_update", "title": "Probe turn"})
if opts.linger:
    while True:  # stdin is closed; codex-acp goes on until it is signalled
        time.sleep(60)
