//! `opencode`: `opencode run --format json` (sst/opencode,
//! `packages/opencode/src/cli/cmd/run.ts`, `emit()`; real captures of OpenCode 1.18.33).
//!
//! Every line is `{type, timestamp (epoch ms), sessionID "ses_…"}` plus a `part`:
//! `step_start`, `text`, `reasoning`, `tool_use{part{tool, callID, state{status, input,
//! output, metadata{exit}}}}`, `step_finish{part{reason, cost, tokens{total, input, output,
//! reasoning, cache{read, write}}}}`; `error{error{name, data{message}}}` has no part; newer
//! versions end with `done`. There is no init and no final result: a run ends well when
//! its last `step_finish` has reason `stop`.
//!
//! OpenCode's SQLite store is read as records of this dialect too
//! ([`store`]): a message row is a `user` or `assistant` record
//! whose `message` holds the row's JSON (an assistant's `tokens`, `cost`, `modelID`,
//! `finish`, `error`), a part row a record of the part's own type (`text`, `reasoning`,
//! `tool`, `step-start`, `step-finish`, ...) whose `part` holds the row's JSON. Usage is
//! counted once, from each assistant message; its `step-finish` parts repeat it and are
//! not counted again.

pub(super) mod events;
pub(crate) mod store;

use super::agent::{self, Agent, Cli, StatsReader};
use super::check_value;
use super::facts::{at, Fact};
use super::texts;
use super::Head;
use super::RunFacts;
use super::{expect, SchemaProblem, Want};
use crate::gaps::InputEnd;
use crate::json::Json;
use crate::stats::{Key, Tokens};
use std::ffi::{OsStr, OsString};

pub(super) const KNOWN_TYPES: &[&str] = &[
    "step_start",
    "text",
    "reasoning",
    "tool_use",
    "step_finish",
    "error",
    "done",
    // OpenCode's store (module docs): its messages by role, its parts by their own type.
    "user",
    "assistant",
    "step-start",
    "tool",
    "step-finish",
    "file",
    "patch",
    "snapshot",
    "agent",
    "subtask",
    "retry",
    "compaction",
];

/// Decisive: an OpenCode session id (`ses_…`) under `sessionID`.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    ty.is_some() && obj.str("sessionID").is_some_and(|s| s.starts_with("ses_"))
}

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    expect(obj, "sessionID", Want::Str, true, p);
    check_value(head.timestamp, "timestamp", Want::Num, false, p);
    match ty {
        "error" => {
            expect(obj, "error", Want::Obj, true, p);
        }
        "done" => {}
        "user" | "assistant" => {
            expect(obj, "message", Want::Obj, true, p);
            expect(obj, "message.role", Want::Str, true, p);
            if ty == "assistant" {
                expect(obj, "message.tokens", Want::Obj, false, p);
                expect(obj, "message.cost", Want::Cost, false, p);
                expect(obj, "message.error", Want::Obj, false, p);
            }
        }
        _ => {
            expect(obj, "part", Want::Obj, true, p);
            match ty {
                "text" | "reasoning" => expect(obj, "part.text", Want::Str, true, p),
                "tool_use" | "tool" => {
                    expect(obj, "part.tool", Want::Str, true, p);
                    expect(obj, "part.callID", Want::Str, false, p);
                    expect(obj, "part.state", Want::Obj, true, p);
                    expect(obj, "part.state.status", Want::Str, true, p);
                }
                "step_finish" | "step-finish" => {
                    expect(obj, "part.reason", Want::Str, false, p);
                    expect(obj, "part.cost", Want::Cost, false, p);
                    expect(obj, "part.tokens", Want::Obj, false, p);
                }
                _ => {}
            }
        }
    }
}

/// Whether the record ends the run: a `step_finish` (the store's `step-finish`) with
/// reason `stop`, an `error`, `done` (OpenCode has no result record), or in the store an
/// assistant message that failed ([`store_error`]).
pub fn ends_run(obj: Json<'_>, ty: &str) -> bool {
    match ty {
        "step_finish" | "step-finish" => {
            obj.path(&["part", "reason"]).and_then(|r| r.as_str()) == Some("stop")
        }
        "error" | "done" => true,
        "assistant" => store_error(obj).is_some(),
        _ => false,
    }
}

/// The error of a store's assistant message (`message.error`, `{name, data{message}}`),
/// the store's record of a run that failed.
pub(crate) fn store_error(obj: Json<'_>) -> Option<Json<'_>> {
    obj.path(&["message", "error"]).filter(Json::is_object)
}

/// Whether a tool part's `state` reports a failure: status `error`, or a non-zero
/// `metadata.exit`. The rule `stats`, `events` and `gaps` all use.
pub(crate) fn tool_failed(state: Option<Json<'_>>) -> bool {
    state.and_then(|s| s.str("status")) == Some("error")
        || super::nonzero(state.and_then(|s| s.path(&["metadata", "exit"])))
}

// ---- CLI knowledge: the `opencode` program ----

/// The program names OpenCode runs as.
pub(super) const PROGRAMS: &[&str] = &["opencode"];

/// Resumes with `run --session ID` (an existing `--session`, `-s`, `--continue`, `-c`
/// dropped; `run` added when missing).
pub(super) fn resume(program: &OsStr, args: &[OsString], id: &str) -> Vec<OsString> {
    let mut argv = vec![program.to_os_string()];
    let rest = super::argv::without_options(args, &[b"--session", b"-s"], &[b"--continue", b"-c"]);
    let run = rest.iter().position(|a| a == "run");
    let at = run.map_or(0, |r| r + 1);
    if run.is_none() {
        argv.push("run".into());
    }
    argv.extend(rest[..at].iter().cloned());
    argv.push("--session".into());
    argv.push(id.into());
    argv.extend(rest[at..].iter().cloned());
    argv
}

/// Every line names its session (`sessionID`); a run ends at [`ends_run`], and a
/// `step_start` after that begins another.
pub(super) fn run_facts<'a>(obj: Json<'a>, ty: &str, _subtype: Option<&str>) -> RunFacts<'a> {
    let mut facts = RunFacts {
        session: obj.str("sessionID"),
        ..RunFacts::default()
    };
    if ends_run(obj, ty) {
        facts.ends = true;
    } else if matches!(ty, "step_start" | "user") {
        facts.begins = true;
    }
    facts
}

/// The stats facts of an OpenCode record: each `step_finish` (`tokens.input` is already
/// non-cached; `reasoning` apart from `output`) and its `cost` (summed per session: the
/// reported cost, as old Claude transcripts' per-message `costUSD`); tool parts by `callID`.
/// In the store, each assistant message's `tokens`, `cost` and `modelID` (its
/// `step-finish` parts repeat them and count nothing).
pub(crate) fn facts<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    _session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    if let Some(s) = v.str("sessionID") {
        f(Fact::Session(s));
    }
    if ty == Some("assistant") {
        let Some(message) = v.get("message") else {
            return;
        };
        // The model the message's cost and the records after it go under.
        if let Some(model) = message.str("modelID") {
            f(Fact::Model(model));
        }
        if let Some(cwd) = message.path(&["path", "cwd"]).and_then(|c| c.as_str()) {
            f(Fact::Cwd(cwd));
        }
        let key = Key::of(&["opencode message", message.str("id").unwrap_or("")]);
        if let Some(t) = message.get("tokens").filter(Json::is_object) {
            f(Fact::Usage {
                key,
                model: message.str("modelID"),
                tokens: tokens_of(t),
            });
        }
        if let Some(cost) = message.get("cost").and_then(|c| c.as_cost()) {
            f(Fact::StepCost {
                key,
                cost_usd: cost,
            });
        }
        return;
    }
    let Some(part) = v.get("part") else {
        return;
    };
    match ty {
        Some("tool_use" | "tool") => {
            let Some(id) = part.str("callID") else {
                return;
            };
            let key = Key::of(&[id]);
            f(Fact::ToolCall {
                key,
                name: part.str("tool").unwrap_or("(unknown)"),
            });
            if tool_failed(part.get("state")) {
                f(Fact::ToolError { key });
            }
        }
        Some("step_finish") => {
            let id = part.str("id").unwrap_or("");
            if let Some(t) = part.get("tokens").filter(Json::is_object) {
                f(Fact::Usage {
                    key: Key::of(&["opencode step", id]),
                    model: None,
                    tokens: tokens_of(t),
                });
            }
            if let Some(cost) = part.get("cost").and_then(|c| c.as_cost()) {
                f(Fact::StepCost {
                    key: Key::of(&["opencode step", id]),
                    cost_usd: cost,
                });
            }
        }
        _ => {}
    }
}

/// OpenCode's `tokens` object (`{input, output, reasoning, cache{read, write}}`) as ndjq
/// counts it: `input` is already non-cached; `reasoning` is added to `output` and kept
/// apart as `reasoning_output`.
fn tokens_of(t: Json<'_>) -> Tokens {
    let reasoning = at(t, &["reasoning"]);
    Tokens {
        input: at(t, &["input"]),
        output: at(t, &["output"]).saturating_add(reasoning),
        cache_creation: at(t, &["cache", "write"]),
        cache_read: at(t, &["cache", "read"]),
        reasoning_output: reasoning,
        cache_creation_1h: 0,
    }
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// `sessionID`, on every record.
fn named_session(v: Json<'_>) -> Option<&str> {
    v.str("sessionID")
}

/// The tool call of a tool part, in the stream (`tool_use`) and the store (`tool`): its
/// `callID` and tool (`filter --tool`).
fn tools<'a>(value: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    if matches!(value.str("type"), Some("tool_use" | "tool")) {
        if let Some(part) = value.get("part") {
            f(part.str("callID"), part.str("tool"));
        }
    }
}

/// The `opencode` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "opencode",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: None,
    turns_into: None,
    guessed_by_type: false,
    named_session,
    claude: None,
    carries_session: true,
    inherits_context: false,
    events: Some(|| Box::new(crate::event::Stateless(events::map))),
    stats: StatsReader {
        read: |v, top, s| s.facts(facts, v, top),
        claude_fields: false,
    },
    gap_ops: gaps::ops,
    input_end: InputEnd::SessionResult,
    texts: texts::all_strings,
    tools,
    log_folders: agent::no_log_folders,
    cli: Some(Cli {
        programs: PROGRAMS,
        resume,
        run_facts,
    }),
};

#[cfg(test)]
mod tests {
    use crate::dialect::argv::os;
    use crate::supervisor::resume_command;
    use std::ffi::OsStr;

    #[test]
    fn opencode_resumes_with_run_session() {
        let run = |program: &str, args: &[&str]| {
            resume_command(None, OsStr::new(program), &os(args), "S", None)
        };
        // OpenCode: `run --session ID`, an old --session / -s / --continue dropped.
        assert_eq!(
            run("opencode", &["run", "-s", "old", "--format", "json", "go"]),
            Some(os(&[
                "opencode",
                "run",
                "--session",
                "S",
                "--format",
                "json",
                "go"
            ]))
        );
        assert_eq!(
            run("opencode", &["--print-logs", "run", "-c", "go"]),
            Some(os(&[
                "opencode",
                "--print-logs",
                "run",
                "--session",
                "S",
                "go"
            ]))
        );
    }
}
