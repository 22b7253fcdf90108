#!/usr/bin/env python3
"""A fake agent CLI for ndjq's `run` / `-- CMD` tests.

Called as `claude` it speaks Claude Code stream-json, as `codex` codex exec --json (and as
`gemini`, `qwen` or `opencode` the capture given): it replays a real capture
(FAKE_AGENT_CAPTURE, by default testdata/claude/claude-tool.ndjson or
testdata/codex/codex-tool.ndjson) and misbehaves on request. FAKE_AGENT lists what to do,
comma-separated, in order; a resumed run (`--resume ID`, `exec resume ID`, or OpenCode's
`--session ID`) does FAKE_AGENT_RESUMED instead (default: `replay`), with the capture's
session/thread id replaced by ID so the resumed stream continues the session:

  replay        every line of the capture      replay:N   its first N lines
  burst:N       the capture N times, at once
  garbage:N     N lines that are not JSON      partial    half a JSON line, no newline
  hang          sleep for an hour              sleep:S    sleep S seconds
  exit:N        exit with status N             signal:S   kill itself with signal S (SEGV)
  stderr:N      N bytes on stderr at once      say:TEXT   a line on stderr
  ignore-term   ignore SIGTERM                 ignore-int  ignore SIGINT
  grandchild    start `sleep 60` holding stdout (its pid in FAKE_AGENT_PIDFILE.grandchild)
  close-stdout  close stdout and go on         pid        write its pid to FAKE_AGENT_PIDFILE

A resumed run replays FAKE_AGENT_RESUMED_CAPTURE instead of the capture when it is set (a
real resumed run's stdout, whose usage repeats the runs before it).

Every run appends its arguments, as a JSON list, to FAKE_AGENT_LOG when set. With
FAKE_AGENT_DELAY, lines are written that many seconds apart. FAKE_AGENT_AGAIN is the plan of
a start after the first that is not a resume (counted in FAKE_AGENT_LOG).
"""
import json
import os
import signal
import subprocess
import sys
import time


def resumed_id(args):
    for i, a in enumerate(args):
        if a in ("--resume", "-r", "--session") and i + 1 < len(args):
            return args[i + 1]
        if a == "resume" and i + 1 < len(args):
            return args[i + 1]
    return None


def write_atomically(path, pid):
    # Readers poll the file: they must never see it half written.
    with open(path + ".tmp", "w") as f:
        f.write(str(pid))
    os.replace(path + ".tmp", path)


def main():
    args = sys.argv[1:]
    log = os.environ.get("FAKE_AGENT_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps(args) + "\n")
    resume = resumed_id(args)
    plan = os.environ.get("FAKE_AGENT_RESUMED", "replay") if resume else os.environ.get("FAKE_AGENT", "replay")
    # FAKE_AGENT_AGAIN: the plan of a later start that is not a resume (needs FAKE_AGENT_LOG).
    again = os.environ.get("FAKE_AGENT_AGAIN")
    if again and not resume and log:
        with open(log) as f:
            if sum(1 for _ in f) > 1:
                plan = again
    delay = float(os.environ.get("FAKE_AGENT_DELAY", "0"))
    here = os.path.dirname(os.path.realpath(__file__))
    default = "codex/codex-tool.ndjson" if os.path.basename(sys.argv[0]) == "codex" else "claude/claude-tool.ndjson"
    capture = os.environ.get("FAKE_AGENT_CAPTURE") or os.path.join(here, "..", "..", "testdata", default)
    # FAKE_AGENT_RESUMED_CAPTURE: what a resumed run replays instead (a real resumed run's
    # stdout, whose usage is cumulative over the runs before it).
    if resume and os.environ.get("FAKE_AGENT_RESUMED_CAPTURE"):
        capture = os.environ["FAKE_AGENT_RESUMED_CAPTURE"]
    with open(capture, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    if resume:
        # The resumed stream continues the same session: the capture's ids become ID.
        old = None
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            old = rec.get("session_id") or rec.get("thread_id") or rec.get("sessionID")
            if old:
                break
        if old:
            lines = [l.replace(old.encode(), resume.encode()) for l in lines]
    out = sys.stdout.buffer

    def write(data):
        out.write(data)
        out.flush()
        if delay:
            time.sleep(delay)

    for step in plan.split(","):
        name, _, arg = step.partition(":")
        if name == "replay":
            for line in lines[: int(arg)] if arg else lines:
                write(line)
        elif name == "burst":
            out.write(b"".join(lines) * int(arg))
            out.flush()
        elif name == "garbage":
            for i in range(int(arg)):
                write(b"Error: upstream connection reset (%d) <html>garbage</html>\n" % i)
        elif name == "partial":
            write(b'{"type":"assistant","message":{"id":"msg_cut","content":[{"type":"te')
        elif name == "hang":
            time.sleep(3600)
        elif name == "sleep":
            time.sleep(float(arg))
        elif name == "exit":
            sys.exit(int(arg))
        elif name == "signal":
            os.kill(os.getpid(), getattr(signal, "SIG" + arg))
            time.sleep(5)
        elif name == "stderr":
            sys.stderr.buffer.write(b"e" * (int(arg) - 1) + b"\n")
            sys.stderr.flush()
        elif name == "say":
            sys.stderr.write(arg + "\n")
            sys.stderr.flush()
        elif name == "ignore-term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        elif name == "ignore-int":
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        elif name == "grandchild":
            child = subprocess.Popen(["sleep", "60"], stdout=sys.stdout, stderr=sys.stderr)
            pidfile = os.environ.get("FAKE_AGENT_PIDFILE")
            if pidfile:
                write_atomically(pidfile + ".grandchild", child.pid)
        elif name == "close-stdout":
            out.flush()
            os.close(1)
        elif name == "pid":
            write_atomically(os.environ["FAKE_AGENT_PIDFILE"], os.getpid())
        else:
            sys.stderr.write("fake agent: unknown step %r\n" % step)
            sys.exit(99)


if __name__ == "__main__":
    main()
