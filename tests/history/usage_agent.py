"""A scripted agent that reports usage: ``usage_update`` during each turn, ``usage`` in the answer.

The prompt ``tool`` also sends a tool call whose ``_meta`` names the agent's own tool;
``ask`` asks permission for a tool call it never announced, and waits for the answer.

Each prompt's turn streams one message chunk, one ``usage_update`` whose
cumulative cost grows by 0.25 USD per turn (or by 10 credits when the prompt
says ``credits``), and answers with token counts that grow with the turn number.
"""

import json
import sys

turns = 0
cost = 0.0


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {}}
    elif method == "session/new":
        result = {"sessionId": "usage-1"}
    elif method == "session/prompt":
        turns += 1
        sid = msg["params"]["sessionId"]
        text = " ".join(b.get("text", "") for b in msg["params"]["prompt"])
        credits = "credits" in text
        cost = 10.0 * turns if credits else cost + 0.25
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {
            "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"turn {turns}"}}}})
        if text == "ask":
            send({"jsonrpc": "2.0", "id": 900, "method": "session/request_permission", "params": {
                "sessionId": sid, "toolCall": {"toolCallId": "p1", "title": "Delete x", "kind": "delete"},
                "options": [{"optionId": "y", "name": "Yes", "kind": "allow_once"},
                            {"optionId": "n", "name": "No", "kind": "reject_once"}]}})
            for reply in sys.stdin:
                if json.loads(reply).get("id") == 900:
                    break
        if text == "tool":
            send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {
                "sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Run ls", "kind": "execute",
                "status": "completed", "_meta": {"claudeCode": {"toolName": "Bash"}}}}})
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {
            "sessionUpdate": "usage_update", "used": 1000 * turns, "size": 100000,
            "cost": {"amount": cost, "currency": "credits" if credits else "USD"}}}})
        usage = {"inputTokens": 100 * turns, "outputTokens": 10 * turns, "thoughtTokens": 5,
                 "cachedReadTokens": 50, "totalTokens": 110 * turns + 5}
        result = {"stopReason": "end_turn", "usage": usage}
    elif rid is None:
        continue
    else:
        result = {}
    send({"jsonrpc": "2.0", "id": rid, "result": result})
