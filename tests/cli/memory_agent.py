"""A scripted ACP agent that remembers its sessions in a file, with chosen session capabilities.

``memory_agent.py CAPS STORE``: CAPS is ``load`` (``loadSession``), ``resume``
(``sessionCapabilities.resume``) or ``none``; STORE is a JSON file holding
each session's prompts. A prompt is answered with what it heard and the
session's earlier prompts, so a test sees whether a session went on.
``session/load`` replays the earlier prompts and answers as chunks first.
No embedded context is advertised: a client must send plain text.
"""

import json
import os
import sys

caps_kind, store_path = sys.argv[1], sys.argv[2]


def load_store():
    if not os.path.exists(store_path):
        return {}
    with open(store_path) as f:
        return json.load(f)


def save_store(store):
    with open(store_path, "w") as f:
        json.dump(store, f)


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def update(sid, kind, text):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": sid, "update": {"sessionUpdate": kind,
                                     "content": {"type": "text", "text": text}}}})


def prompt_text(blocks):
    parts = []
    for b in blocks:
        if b.get("type") == "text":
            parts.append(b["text"])
        elif b.get("type") == "resource":
            parts.append("[resource " + b["resource"]["uri"] + "]")
        else:
            parts.append("[" + b.get("type", "?") + "]")
    return " ".join(parts)


caps = {"promptCapabilities": {}}
if caps_kind == "load":
    caps["loadSession"] = True
elif caps_kind == "resume":
    caps["sessionCapabilities"] = {"resume": {}}

for line in sys.stdin:
    msg = json.loads(line)
    method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if rid is None:
        continue  # notifications (session/cancel): every turn here is instant
    error = None
    result = {}
    store = load_store()
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": caps}
    elif method == "session/new":
        sid = f"mem-{len(store) + 1}"
        store[sid] = []
        save_store(store)
        result = {"sessionId": sid}
    elif method in ("session/load", "session/resume"):
        sid = params.get("sessionId")
        allowed = {"session/load": "load", "session/resume": "resume"}[method]
        if caps_kind != allowed:
            error = {"code": -32601, "message": f"{method} is not offered"}
        elif sid not in store:
            error = {"code": -32002, "message": f"unknown session {sid}"}
        elif method == "session/load":
            for said in store[sid]:
                update(sid, "user_message_chunk", said)
                update(sid, "agent_message_chunk", "noted")
    elif method == "session/prompt":
        sid = params["sessionId"]
        heard = prompt_text(params.get("prompt", []))
        earlier = store.get(sid, [])
        update(sid, "agent_message_chunk",
               f"heard: {heard}\nearlier: {' | '.join(earlier) or '(nothing)'}\n")
        store.setdefault(sid, []).append(heard)
        save_store(store)
        result = {"stopReason": "end_turn"}
    else:
        error = {"code": -32601, "message": f"no method {method}"}
    reply = {"jsonrpc": "2.0", "id": rid}
    reply.update({"error": error} if error else {"result": result})
    send(reply)
