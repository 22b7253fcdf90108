#!/usr/bin/env python3
"""The figures `ndjq stats` must report, computed from the project's stats rules.

This is an independent second implementation used by tests/stats.rs: it was written from
the project's stats rules (documented in docs/REFERENCE.md, "Token and cost rules" and
"The `ndjq.stats/2` JSON schema"; the quoted rules below are in the contract's words), not
from ndjq's source. It reads every FILE given (in order,
as one run over several inputs) and prints one JSON object:

    {"files", "lines", "bytes", "valid", "invalid", "empty", "types", "sessions",
     "tokens", "result_tokens", "cost_usd_reported", "turns", "tools"}

(`cost_usd_reported`: the estimated part of the cost needs a price table, which this script
does not have; tests/stats.rs checks estimates against ccusage instead.)

Standard library only. Usage: python3 tests/stats_expected.py [--each] FILE [FILE...]
(`--each`: one object per FILE, one per line, instead of one for them all).

tests/stats.rs does not need Python: this script's output for every input it checks is
committed under testdata/expected/stats-oracle/. When python3 is on PATH, the tests run
the script as well and fail if its output differs from the committed one;
`NDJQ_BLESS=1 cargo test --test stats` writes the committed files again.

Every input is read as a whole; no dialect detection is needed because the rules below
are keyed by record types that the dialects do not share (`assistant`/`result` are
Claude's, `thread.started`/`turn.*`/`item.*` Codex exec's, `session_meta`/`event_msg`/
`response_item` the Codex rollouts').
"""
import json
import sys

MAX_DEPTH = 128  # `--max-depth` (default 128); deeper records are not parsed.


# --------------------------------------------------------------------------------------
# Framing and decoding (docs/REFERENCE.md, "Input framing")
# --------------------------------------------------------------------------------------

def records(data):
    """Input rule: "records end at `\\n`; a `\\r` before it is tolerated; a UTF-8 BOM at the
    start of a record is tolerated; ... a last line without newline is still a record"."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline that ends the last record does not open another one
    for line in lines:
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        yield line


def _reject_constant(name):
    raise ValueError("not JSON: " + name)  # NaN / Infinity are Python extensions


def _well_formed(value, depth=1):
    """Strict JSON: no lone UTF-16 surrogates in strings, nesting within MAX_DEPTH."""
    if isinstance(value, str):
        value.encode("utf-8")  # raises on a lone surrogate such as "\ud800"
        return
    if isinstance(value, (list, dict)):
        if depth > MAX_DEPTH:
            raise ValueError("too deep")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            if isinstance(k, str):
                k.encode("utf-8")
            _well_formed(v, depth + 1)


def decode(line):
    """Returns ("empty", None), ("invalid", None) or ("valid", value).

    Input rule: "an empty line is counted, not an error" (a blank line counts as empty too);
    Diagnostics rule: bytes that are not UTF-8 or not JSON are errors (the record is invalid)."""
    if line.strip(b" \t") == b"":
        return "empty", None
    try:
        text = line.decode("utf-8")
        value = json.loads(text, parse_constant=_reject_constant)
        _well_formed(value)
    except (UnicodeError, ValueError, RecursionError):
        return "invalid", None
    return "valid", value


# --------------------------------------------------------------------------------------
# Small accessors
# --------------------------------------------------------------------------------------

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def get(obj, *path):
    """obj[path[0]][path[1]]..., or None where a step is missing or not an object."""
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def string(v):
    return v if isinstance(v, str) else None


def count(usage, key):
    v = get(usage, key)
    return v if is_int(v) else 0


CLAUDE_FIELDS = {
    "input": "input_tokens",
    "output": "output_tokens",
    "cache_creation": "cache_creation_input_tokens",
    "cache_read": "cache_read_input_tokens",
}


def claude_tokens(usage):
    # Rule: `input` = input tokens NOT read from cache (Claude's `input_tokens`),
    # `cache_read`, `cache_creation`, `output`.
    t = zero()
    for k, field in CLAUDE_FIELDS.items():
        t[k] = count(usage, field)
    return t


def model_usage_tokens(usage):
    # Rule: "`inputTokens`, `outputTokens`, `cacheReadInputTokens`,
    # `cacheCreationInputTokens`".
    t = zero()
    t["input"] = count(usage, "inputTokens")
    t["output"] = count(usage, "outputTokens")
    t["cache_creation"] = count(usage, "cacheCreationInputTokens")
    t["cache_read"] = count(usage, "cacheReadInputTokens")
    return t


def codex_tokens(usage):
    # Rule: "input = `input_tokens` − `cached_input_tokens` (Codex's input includes its
    # cached part), `cached_input_tokens` → cache_read, `cache_write_input_tokens` →
    # cache_creation, `output_tokens` → output, `reasoning_output_tokens` →
    # reasoning_output".
    cached = count(usage, "cached_input_tokens")
    return {
        "input": max(0, count(usage, "input_tokens") - cached),
        "output": count(usage, "output_tokens"),
        "cache_creation": count(usage, "cache_write_input_tokens"),
        "cache_read": cached,
        "reasoning_output": count(usage, "reasoning_output_tokens"),
    }


def zero():
    return {"input": 0, "output": 0, "cache_creation": 0, "cache_read": 0, "reasoning_output": 0}


def add(total, t):
    for k in total:
        total[k] += t[k]


# --------------------------------------------------------------------------------------
# The accumulator
# --------------------------------------------------------------------------------------

def exit_code(output):
    """The exit code a rollout tool output reports, or None."""
    import re
    text = output if isinstance(output, str) else (
        get(output, "content") if isinstance(get(output, "content"), str) else json.dumps(output))
    try:
        doc = json.loads(text)
        code = get(doc, "metadata", "exit_code")
        if isinstance(code, int):
            return code
    except ValueError:
        pass
    m = re.search(r"Process exited with code (-?\d+)", text) or re.search(r"Exit code: (-?\d+)", text)
    return int(m.group(1)) if m else None


class Expected:
    """One run over one or more inputs.

    Rule: "Across several inputs, totals deduplicate message ids, tool ids and sessions,
    so the same session logged twice is counted once": the dictionaries and sets below are
    keyed by those ids and span every input of the run."""

    def __init__(self):
        self.files = self.lines = self.bytes = 0
        self.valid = self.invalid = self.empty = 0
        self.types = {}
        self.sessions = set()
        # Claude: message.id -> (session, last usage snapshot).
        self.messages = {}
        # Claude: message.id -> the counts of its last `message_delta` usage.
        self.deltas = {}
        # Claude usage without a message id: (session, usage) per line.
        self.claude_summed = []
        # Old transcripts: message key -> (session, costUSD).
        self.message_costs = {}
        # Codex exec: (thread, usage) per completed turn.
        self.exec_turns = []
        # Claude usage without a message id, and Codex exec turn usage: summed as they come.
        self.summed = zero()
        # Claude: session -> last result usage with integer input/output tokens.
        self.result_usage = {}
        # Claude: session -> the billed total of that result (modelUsage sum, else usage).
        self.result_billed = {}
        # Claude: session -> last reported cost.
        self.cost = {}
        # Claude: session -> last num_turns; Codex exec: number of turns.
        self.result_turns = {}
        self.codex_turns = 0
        # Codex rollouts: session -> last cumulative total_token_usage.
        self.rollout_totals = {}
        # Tool calls: key -> name; failed tool calls: set of keys.
        self.tool_calls = {}
        self.tool_errors = set()

    def add_file(self, path):
        with open(path, "rb") as f:
            data = f.read()
        self.files += 1
        self.bytes += len(data)
        # Per-input context: later records of a Codex input belong to the thread/session
        # its last thread.started / session_meta named.
        thread = None
        rollout_session = None
        for line in records(data):
            self.lines += 1  # Rule: "`lines` (records, empty ones included)"
            verdict, value = decode(line)
            if verdict == "empty":
                self.empty += 1
                continue
            if verdict == "invalid":
                self.invalid += 1
                continue
            self.valid += 1
            self.add_type(value)
            if not isinstance(value, dict):
                continue
            ty = string(value.get("type"))
            if ty == "thread.started":
                thread = string(value.get("thread_id")) or thread
            if ty == "session_meta":
                rollout_session = string(get(value, "payload", "id")) or rollout_session
            self.add_session(value, ty)
            if ty == "assistant":
                self.add_assistant(value)
            elif ty == "stream_event":
                self.add_stream_event(value)
            elif ty == "user":
                self.add_user(value)
            elif ty == "result":
                self.add_result(value)
            elif ty in ("turn.completed", "turn.failed"):
                self.add_turn(value, ty, thread)
            elif ty == "item.completed":
                self.add_item(value, thread)
            elif ty == "event_msg":
                self.add_event_msg(value, rollout_session)
            elif ty == "response_item":
                self.add_response_item(value)

    def add_type(self, v):
        # Rule: "`types`: for each valid object, its `type`, or `type/subtype` when
        # `subtype` is a string; non-objects and objects without a string `type` count
        # under `(none)`."
        key = "(none)"
        if isinstance(v, dict) and isinstance(v.get("type"), str):
            key = v["type"]
            if isinstance(v.get("subtype"), str):
                key += "/" + v["subtype"]
        self.types[key] = self.types.get(key, 0) + 1

    def add_session(self, v, ty):
        # Rule: "`sessions`: distinct ids: Claude `session_id` / `sessionId`; Codex exec
        # `thread_id` of `thread.started`; Codex logs `payload.id` of `session_meta`."
        for key in ("session_id", "sessionId"):
            if string(v.get(key)):
                self.sessions.add(v[key])
                break
        if ty == "thread.started" and string(v.get("thread_id")):
            self.sessions.add(v["thread_id"])
        if ty == "session_meta" and string(get(v, "payload", "id")):
            self.sessions.add(v["payload"]["id"])

    @staticmethod
    def session_of(v):
        return string(v.get("session_id")) or string(v.get("sessionId"))

    def add_message(self, v, message):
        usage = message.get("usage")
        if isinstance(usage, dict):
            message_id = string(message.get("id"))
            if message_id is None:
                # Rule: "A usage without `message.id` counts once per line."
                self.claude_summed.append((self.session_of(v), claude_tokens(usage)))
            else:
                # Rule: "Per message (`message.id`, `requestId` — or `request_id` — or
                # none): the final usage is the LAST of its assistant snapshots".
                request = string(v.get("requestId")) or string(v.get("request_id"))
                self.messages[(message_id, request)] = (self.session_of(v), claude_tokens(usage))

    def add_stream_event(self, v):
        event = v.get("event")
        kind = get(event, "type")
        if kind == "message_delta" and isinstance(get(event, "usage"), dict):
            # Rule: "... and of the cumulative `usage` of its `stream_event`
            # `message_delta` (linked by `api_message_id`)": the counts it carries are
            # the message's last.
            message_id = string(v.get("api_message_id"))
            if message_id is None:
                return
            delta = {k: event["usage"][f] for k, f in CLAUDE_FIELDS.items()
                     if is_int(event["usage"].get(f))}
            if delta:
                self.deltas[message_id] = delta

    def add_assistant(self, v):
        message = v.get("message")
        if not isinstance(message, dict):
            return
        self.add_message(v, message)
        # Rule: "... or the sum of per-message `costUSD` in old transcripts": once per
        # message (its lines repeat it).
        if is_number(v.get("costUSD")):
            message_id = string(message.get("id"))
            request = string(v.get("requestId")) or string(v.get("request_id"))
            key = (message_id, request) if message_id is not None else ("line", len(self.message_costs))
            self.message_costs[key] = (self.session_of(v), float(v["costUSD"]))
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                # Rule: "`tools`: tool_use blocks in assistant messages, counted once per
                # tool_use `id`".
                if get(block, "type") == "tool_use" and string(get(block, "id")):
                    name = string(block.get("name")) or "(unknown)"
                    self.tool_calls[("claude", block["id"])] = name

    def add_user(self, v):
        content = get(v, "message", "content")
        if not isinstance(content, list):
            return
        for block in content:
            # Rule: "`errors`: tool_result blocks with `is_error: true`, once per
            # `tool_use_id`, attributed through that id to the tool's name (`(unknown)` if
            # none)". A set of ids gives the "once"; the name is looked up at the end.
            if (
                get(block, "type") == "tool_result"
                and get(block, "is_error") is True
                and string(get(block, "tool_use_id"))
            ):
                self.tool_errors.add(("claude", block["tool_use_id"]))

    def add_result(self, v):
        session = self.session_of(v)
        usage = v.get("usage")
        # Rule: "Claude `result_tokens`: per session, the `usage` of its LAST `result`
        # record that has integer input/output tokens; summed over sessions".
        if is_int(get(usage, "input_tokens")) and is_int(get(usage, "output_tokens")):
            self.result_usage[session] = claude_tokens(usage)
            # Rule: "the session's tokens are the result's: the sum over
            # `result.modelUsage` where present ..., else `result.usage`".
            model_usage = v.get("modelUsage")
            entries = [u for u in model_usage.values() if isinstance(u, dict)] \
                if isinstance(model_usage, dict) else []
            if entries:
                billed = zero()
                for u in entries:
                    add(billed, model_usage_tokens(u))
                self.result_billed[session] = billed
            else:
                self.result_billed[session] = claude_tokens(usage)
        # Rule: "`cost_usd`: per session, the LAST `total_cost_usd` (else `cost_usd`, else
        # `costUSD`) at the top level of a `result` record — it is cumulative across turns —
        # summed over sessions; null when no record reports one."
        for key in ("total_cost_usd", "cost_usd", "costUSD"):  # cost_usd_reported
            if is_number(v.get(key)):
                self.cost[session] = float(v[key])
                break
        # `turns` has no written rule; the README's schema table says: "from the
        # sessions' last results (`num_turns`, ...), plus Codex turns".
        if is_int(v.get("num_turns")):
            self.result_turns[session] = v["num_turns"]

    def add_turn(self, v, ty, thread):
        # Rule: "Codex exec `tokens`: sum of every `turn.completed.usage`".
        # real-client/README: "a failed turn carries no usage" (it still is a turn).
        self.codex_turns += 1
        if ty == "turn.completed" and isinstance(v.get("usage"), dict):
            self.exec_turns.append((thread, codex_tokens(v["usage"])))

    def add_item(self, v, thread):
        # Rule: "Codex `item.completed` items of type command_execution, mcp_tool_call,
        # file_change, web_search, once per item id (ids restart with each
        # `thread.started`), named by the item type (an MCP call by its tool)."
        item = v.get("item")
        item_type = string(get(item, "type"))
        item_id = string(get(item, "id"))
        if item_type not in ("command_execution", "mcp_tool_call", "file_change", "web_search"):
            return
        if item_id is None:
            return
        name = item_type
        if item_type == "mcp_tool_call":
            name = string(item.get("tool")) or item_type
        key = ("codex", thread, item_id)
        self.tool_calls[key] = name
        # Rule: errors are "Codex items with status failed, a non-zero exit_code or an
        # MCP error".
        exit_code = item.get("exit_code")
        if (
            item.get("status") == "failed"
            or (is_number(exit_code) and exit_code != 0)
            or item.get("error") is not None
        ):
            self.tool_errors.add(key)

    def add_event_msg(self, v, session):
        # Codex rollouts: the contract has no token rule for them. ndjq's documented choice
        # (src/stats.rs, README "Codex"): "a rollout's usage is its session's last
        # cumulative `token_count`, so a re-emitted count is not added twice", with the
        # Codex field mapping above.
        if get(v, "payload", "type") != "token_count":
            return
        total = get(v, "payload", "info", "total_token_usage")
        if isinstance(total, dict):
            self.rollout_totals[session] = codex_tokens(total)

    def add_response_item(self, v):
        # Codex rollouts: README "Codex tool calls are counted once per item (per call id
        # in rollouts)": a `function_call` response item. Rule ("One meaning
        # everywhere"): a tool is named as the record names it, the name `events` shows
        # (`exec_command`, `shell`, `apply_patch`); a `local_shell_call` names none and is
        # `local_shell`.
        payload = v.get("payload")
        ptype = get(payload, "type")
        if ptype in ("function_call", "custom_tool_call", "local_shell_call") \
                and string(get(payload, "call_id")):
            if ptype == "local_shell_call":
                name = "local_shell"
            else:
                name = string(payload.get("name")) or "(unknown)"
            self.tool_calls[("rollout", payload["call_id"])] = name
        # Rule: errors are also "Codex rollout function calls whose output reports a
        # non-zero exit (`Process exited with code N`, or `metadata.exit_code`)", a
        # structured output with `success: false`, or one that starts `failed in sandbox`.
        if ptype in ("function_call_output", "custom_tool_call_output",
                     "local_shell_call_output") and string(get(payload, "call_id")):
            output = payload.get("output")
            if (isinstance(output, dict) and isinstance(output.get("success"), bool)):
                failed = not output["success"]
            elif isinstance(output, str) and output.startswith("failed in sandbox"):
                # Codex's sandbox could not run the command at all.
                failed = True
            else:
                failed = exit_code(output) not in (None, 0)
            if failed:
                self.tool_errors.add(("rollout", payload["call_id"]))

    def result(self):
        tokens = zero()
        for (message_id, _request), (session, t) in self.messages.items():
            t = dict(t)
            t.update(self.deltas.get(message_id, {}))
            if session in self.result_billed:
                continue  # the session's result has its billed totals
            add(tokens, t)
        for session, t in self.claude_summed:
            if session not in self.result_billed:
                add(tokens, t)
        # Rule: "the same session logged twice is counted once": a Codex thread whose
        # rollout is read too has the rollout's cumulative total (the thread id is the
        # rollout's session id), not its exec turns besides.
        for thread, t in self.exec_turns:
            if thread not in self.rollout_totals:
                add(tokens, t)
        for t in self.result_billed.values():
            add(tokens, t)
        add(tokens, self.summed)
        for t in self.rollout_totals.values():
            add(tokens, t)
        result_tokens = None
        if self.result_usage:
            result_tokens = zero()
            for t in self.result_usage.values():
                add(result_tokens, t)
        reported = dict(self.cost)
        by_message = {}
        for session, c in self.message_costs.values():
            if session not in self.cost:
                by_message[session] = by_message.get(session, 0.0) + c
        reported.update(by_message)
        cost = sum(reported.values()) if reported else None
        tools = {}
        for name in self.tool_calls.values():
            tools.setdefault(name, {"calls": 0, "errors": 0})["calls"] += 1
        for key in self.tool_errors:
            name = self.tool_calls.get(key, "(unknown)")
            tools.setdefault(name, {"calls": 0, "errors": 0})["errors"] += 1
        return {
            "files": self.files,
            "lines": self.lines,
            "bytes": self.bytes,
            "valid": self.valid,
            "invalid": self.invalid,
            "empty": self.empty,
            "types": dict(sorted(self.types.items())),
            "sessions": len(self.sessions),
            "tokens": tokens,
            "result_tokens": result_tokens,
            "cost_usd_reported": cost,
            "turns": sum(self.result_turns.values()) + self.codex_turns,
            "tools": dict(sorted(tools.items())),
        }


def main(argv):
    args = argv[1:]
    each = bool(args) and args[0] == "--each"
    if each:
        args = args[1:]
    if not args:
        sys.stderr.write("usage: stats_expected.py [--each] FILE [FILE...]\n")
        return 2
    if each:
        # One object per file, one per line, in the order given: a test over many files
        # then starts Python once.
        for path in args:
            expected = Expected()
            expected.add_file(path)
            json.dump(expected.result(), sys.stdout, sort_keys=True)
            sys.stdout.write("\n")
        return 0
    expected = Expected()
    for path in args:
        expected.add_file(path)
    json.dump(expected.result(), sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
