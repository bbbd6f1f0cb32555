#!/usr/bin/env python3
"""Drive `airlock serve --stdio` from Python: list the tools, read files, answer approval prompts.
AIRLOCK is the command that starts Airlock, e.g. "airlock --cwd ~/project" (global flags go there)."""
import json, os, shlex, subprocess, sys
server = subprocess.Popen(shlex.split(os.environ.get("AIRLOCK", "airlock")) + ["serve", "--stdio"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
last_id = 0

def shown(text):
    """Model-controlled text (titles, file contents) for a terminal: no control characters."""
    return "".join(c if c.isprintable() else "?" for c in text)

def send(message):
    server.stdin.write(json.dumps(message) + "\n")
    server.stdin.flush()

def request(method, **params):
    """Send one request and return its result; answer the server's dialogs while waiting."""
    global last_id
    last_id += 1
    send({"jsonrpc": "2.0", "id": last_id, "method": method, "params": params})
    for line in server.stdout:
        message = json.loads(line)
        if message.get("method") == "ui/ask":  # an approval prompt: answer with a choice's id
            print("asked:", shown(message["params"]["title"].splitlines()[0]))
            once = any(choice["id"] == "once" for choice in message["params"].get("choices", []))
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"id": "once"} if once else {"noAnswer": {"kind": "declined"}}})
        elif message.get("id") == last_id and "method" not in message:
            if "error" in message:
                raise RuntimeError(message["error"]["message"])
            return message["result"]
    raise EOFError("airlock exited")

request("initialize", dialogs=True)  # we answer dialogs (see above); without it, an "ask" is a deny
print("tools:", ", ".join(request("tools/list")["enabled"]))
for path in sys.argv[1:]:
    result = request("tools/call", name="read", arguments={"path": path})
    print(f"{path} -> {result['outcome']}:", shown("".join(c.get("text", "") for c in result["content"]).strip()[:200]))
server.stdin.close()
sys.exit(server.wait())
