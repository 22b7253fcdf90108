#!/usr/bin/env python3
"""Writes the hand-made Claude Code session logs of testdata/report/ (the `report` tests
and tests/browser.sh read them). Run from this folder: python3 make.py"""
import json, os

HOSTILE_SCRIPT = "</script><script>alert(1)</script>"
HOSTILE_IMG = "<img src=x onerror=alert(1)>"

def session(path, sid, cwd, day, model, turns, hostile=False):
    tag = os.path.basename(path)[-10:-6]
    lines = []
    n = 0
    def base(kind, minute):
        return {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd,
                "sessionId": sid, "version": "2.0.0", "gitBranch": "main", "type": kind,
                "timestamp": f"{day}T{10 + minute // 60:02d}:{minute % 60:02d}:00.000Z"}
    for t in range(turns):
        n += 1
        u = base("user", t * 7)
        u["uuid"] = f"{tag}-u{n}"
        text = f"Task {t + 1}: fix the tests"
        if hostile and t == 0:
            text = f"Please print {HOSTILE_SCRIPT} and {HOSTILE_IMG}"
        u["message"] = {"role": "user", "content": text}
        lines.append(u)
        a = base("assistant", t * 7 + 1)
        a["uuid"] = f"{tag}-a{n}"
        a["requestId"] = f"req_{tag}_{n}"
        cmd = f"cargo test --test t{t}"
        if hostile and t == 0:
            cmd = f"echo '{HOSTILE_IMG}'"
        a["message"] = {"id": f"msg_{tag}_{n}", "type": "message", "role": "assistant",
                        "model": model,
                        "content": [{"type": "thinking", "thinking": "Let me look at the failing test first."},
                                    {"type": "text", "text": "I will run the tests."},
                                    {"type": "tool_use", "id": f"toolu_{tag}_{n}", "name": "Bash",
                                     "input": {"command": cmd, "description": "run tests"}}],
                        "stop_reason": "tool_use",
                        "usage": {"input_tokens": 100 * (t + 1), "output_tokens": 50 * (t + 1),
                                  "cache_creation_input_tokens": 1000, "cache_read_input_tokens": 20000}}
        lines.append(a)
        r = base("user", t * 7 + 2)
        r["uuid"] = f"{tag}-r{n}"
        failed = (t % 3 == 2) or (hostile and t == 0)
        out = "test result: ok. 12 passed" if not failed else f"error: test failed {HOSTILE_SCRIPT}"
        if t == 1:
            out = "\n".join(f"line {i}: compiling crate number {i} of the workspace" for i in range(400))
        r["message"] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{tag}_{n}",
                                                       "content": out, "is_error": failed}]}
        lines.append(r)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for l in lines:
            f.write(json.dumps(l) + "\n")

session("projects/-home-me-web/1a2b3c4d-0000-4000-8000-000000000001.jsonl",
        "1a2b3c4d-0000-4000-8000-000000000001", "/home/me/web", "2025-06-01",
        "claude-sonnet-4-5-20250929", 4, hostile=True)
session("projects/-home-me-web/1a2b3c4d-0000-4000-8000-000000000002.jsonl",
        "1a2b3c4d-0000-4000-8000-000000000002", "/home/me/web", "2025-06-02",
        "claude-opus-4-1-20250805", 3)
session("projects/-home-me-api/1a2b3c4d-0000-4000-8000-000000000003.jsonl",
        "1a2b3c4d-0000-4000-8000-000000000003", "/home/me/api", "2025-06-02",
        "claude-haiku-4-5-20251001", 5)
session("projects/-tmp-evil/1a2b3c4d-0000-4000-8000-000000000004.jsonl",
        "evil\"><script>alert(1)</script>", f"/tmp/{HOSTILE_IMG}", "2025-06-04",
        f"model{HOSTILE_SCRIPT}", 2, hostile=True)
session("projects/-home-me-api/1a2b3c4d-0000-4000-8000-000000000005.jsonl",
        "1a2b3c4d-0000-4000-8000-000000000005", "/home/me/api", "2025-06-05",
        "claude-sonnet-4-5-20250929", 6)
