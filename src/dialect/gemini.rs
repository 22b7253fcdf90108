//! `gemini`: Gemini CLI `--output-format stream-json`, and its `-o json` document.
//!
//! Types and fields from the CLI's source (`packages/core/src/output/types.ts`) and the real
//! captures of Gemini CLI 0.61.0 (testdata/other-agents/real-client): every event has `type`
//! and an ISO `timestamp`. `init{session_id, model}` (`model` is often an alias such as
//! `auto`), `message{role, content, delta?}` (assistant text arrives in `delta` chunks),
//! `tool_use{tool_name, tool_id, parameters}`, `tool_result{tool_id, status, output?,
//! error?}`, `error{severity, message}`, `result{status, error?, stats?}`.
//!
//! `-o json` prints one pretty-printed document without a `type`: `{session_id, response,
//! stats{models{<model>{tokens{…}}}}}`, or `{session_id, error{type, message, code}}`. The
//! framing reads it whole (see `crate::pipeline`); here it is recognised by its keys and its
//! fields checked under the pseudo-type [`DOCUMENT`].

pub(super) mod events;

use super::agent::{self, Agent, Cli, StatsReader};
use super::check_value;
use super::facts::{at, from_prompt, Fact};
use super::texts;
use super::Head;
use super::RunFacts;
use super::{expect, SchemaProblem, Want};
use crate::gaps::InputEnd;
use crate::json::Json;
use crate::stats::{Key, Tokens};
use std::ffi::{OsStr, OsString};

pub(super) const KNOWN_TYPES: &[&str] = &[
    "init",
    "message",
    "tool_use",
    "tool_result",
    "error",
    "result",
];

/// The name the `-o json` document is checked under (it has no `type`).
pub const DOCUMENT: &str = "(document)";

/// Whether an object without `type` is the `-o json` document.
pub fn is_document(obj: Json<'_>) -> bool {
    !obj.has("type")
        && (obj.has("response")
            || obj.path(&["stats", "models"]).is_some()
            || (obj.has("session_id") && obj.get("error").is_some_and(|e| e.has("message"))))
}

/// Decisive: a Gemini event type with its ISO `timestamp` and the field that type always
/// has (OpenCode's `error` has an epoch-ms timestamp and a `sessionID`), or the document.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    let Some(ty) = ty else {
        return is_document(obj);
    };
    if obj.get("timestamp").is_none_or(|t| t.as_str().is_none()) || obj.has("sessionID") {
        return false;
    }
    match ty {
        "init" => obj.has("session_id") && obj.has("model"),
        "message" => obj.has("role") && obj.has("content"),
        "tool_use" | "tool_result" => obj.has("tool_id"),
        "result" => obj.has("status") && !obj.has("session_id"),
        "error" => obj.has("severity"),
        _ => false,
    }
}

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    if ty == DOCUMENT {
        expect(obj, "session_id", Want::Str, false, p);
        expect(obj, "response", Want::Str, false, p);
        expect(obj, "stats", Want::Obj, false, p);
        expect(obj, "stats.models", Want::Obj, false, p);
        expect(obj, "error", Want::Obj, false, p);
        expect(obj, "error.message", Want::Str, false, p);
        return;
    }
    check_value(head.timestamp, "timestamp", Want::Str, true, p);
    match ty {
        "init" => {
            expect(obj, "session_id", Want::Str, true, p);
            expect(obj, "model", Want::Str, false, p);
        }
        "message" => {
            expect(obj, "role", Want::Str, true, p);
            expect(obj, "content", Want::Str, true, p);
            expect(obj, "delta", Want::Bool, false, p);
        }
        "tool_use" => {
            expect(obj, "tool_name", Want::Str, true, p);
            expect(obj, "tool_id", Want::Str, true, p);
            expect(obj, "parameters", Want::Obj, false, p);
        }
        "tool_result" => {
            expect(obj, "tool_id", Want::Str, true, p);
            expect(obj, "status", Want::Str, true, p);
            expect(obj, "output", Want::Str, false, p);
            expect(obj, "error", Want::Obj, false, p);
        }
        "error" => {
            expect(obj, "severity", Want::Str, false, p);
            expect(obj, "message", Want::Str, true, p);
        }
        "result" => {
            expect(obj, "status", Want::Str, true, p);
            expect(obj, "error", Want::Obj, false, p);
            expect(obj, "stats", Want::Obj, false, p);
            expect(obj, "stats.models", Want::Obj, false, p);
        }
        _ => {}
    }
}

/// Whether a stream-json `tool_result` reports a failed call: status `error`, or an output
/// that says its command failed ([`super::output_reports_failure`]). The rule `stats`,
/// `events` and `gaps` all use.
pub(crate) fn tool_result_failed(v: Json<'_>) -> bool {
    v.str("status") == Some("error") || v.str("output").is_some_and(super::output_reports_failure)
}

// ---- CLI knowledge: the `gemini` program ----

/// The program names Gemini CLI runs as.
pub(super) const PROGRAMS: &[&str] = &["gemini"];

/// Resumes with `--resume ID` (an existing `--resume`/`-r` dropped; `-c` is
/// `--checkpointing` and stays).
pub(super) fn resume(program: &OsStr, args: &[OsString], id: &str) -> Vec<OsString> {
    super::argv::with_resume_flag(program, args, &[b"--resume", b"-r"], &[], id)
}

/// `init` begins a session (naming it in `session_id`), `result` ends the run.
pub(super) fn run_facts<'a>(obj: Json<'a>, ty: &str, _subtype: Option<&str>) -> RunFacts<'a> {
    let mut facts = RunFacts::default();
    match ty {
        "init" => {
            facts.session = obj.str("session_id");
            facts.begins = true;
        }
        "result" => facts.ends = true,
        _ => {}
    }
    facts
}

/// A Gemini `tokens` object (-o json model tokens, session-log message tokens): `input` or
/// `prompt` is the whole prompt, `candidates` or `output` the answer, `thoughts` apart.
pub(super) fn model_tokens(t: Json<'_>) -> Tokens {
    let prompt = t.count("prompt").or_else(|| t.count("input")).unwrap_or(0);
    let answer = t
        .count("candidates")
        .or_else(|| t.count("output"))
        .unwrap_or(0);
    let thoughts = at(t, &["thoughts"]);
    let cached = at(t, &["cached"]);
    Tokens {
        reasoning_output: thoughts,
        ..from_prompt(prompt, cached, answer.saturating_add(thoughts))
    }
}

/// The stats facts of a Gemini CLI record (docs/REFERENCE.md "Stats of the other agents"):
/// the `result`'s `stats`, per model from `stats.models` (the CLI's own totals: the routing
/// model's call included); `input` there is the non-cached part, `input_tokens` the whole
/// prompt. Older versions have no `stats.models`: the init's model, unless it is an alias
/// (`auto`), names the totals. Keyed by the result's timestamp and model, so a resumed run
/// (a new process, its own totals) adds up and the same stream twice counts once. The
/// `-o json` document: `stats.models.<m>.tokens` (`prompt` whole, `cached`, `candidates`,
/// `thoughts`), and its tool counts from `stats.tools.byName`.
pub(crate) fn facts<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    match ty {
        None if is_document(v) => {
            let own = v.str("session_id");
            if let Some(s) = own {
                f(Fact::Session(s));
            }
            let session = own.unwrap_or(session);
            if let Some(models) = v.path(&["stats", "models"]) {
                models.for_each_entry(|model, m| {
                    let Some(t) = m.get("tokens") else { return };
                    f(Fact::Usage {
                        key: Key::of(&["gemini document", session, model]),
                        model: Some(model),
                        tokens: model_tokens(t),
                    });
                });
            }
            if let Some(by_name) = v.path(&["stats", "tools", "byName"]) {
                by_name.for_each_entry(|name, t| {
                    let calls = at(t, &["count"]);
                    let fails = at(t, &["fail"]).min(calls);
                    for i in 0..calls {
                        let n = i.to_string();
                        let key = Key::of(&["gemini document tool", session, name, &n]);
                        f(Fact::ToolCall { key, name });
                        if i < fails {
                            f(Fact::ToolError { key });
                        }
                    }
                });
            }
            f(Fact::Result {
                tokens: None,
                duration_ms: None,
                turns: None,
            });
        }
        Some("init") => {
            if let Some(s) = v.str("session_id") {
                f(Fact::Session(s));
            }
            // A real model (not an alias such as `auto` or `pro`) names the tokens of a
            // result without `stats.models` (older versions), so they can be priced.
            if let Some(m) = v.str("model").filter(|m| m.starts_with("gemini-")) {
                f(Fact::Model(m));
            }
        }
        Some("tool_use") => {
            if let Some(id) = v.str("tool_id") {
                f(Fact::ToolCall {
                    key: Key::of(&[id]),
                    name: v.str("tool_name").unwrap_or("(unknown)"),
                });
            }
        }
        Some("tool_result") => {
            let failed = tool_result_failed(v);
            if let (true, Some(id)) = (failed, v.str("tool_id")) {
                f(Fact::ToolError {
                    key: Key::of(&[id]),
                });
            }
        }
        Some("result") => {
            let Some(stats) = v.get("stats") else {
                return;
            };
            let when = v.str("timestamp").unwrap_or("");
            let tokens_of = |s: Json<'_>| {
                let cached = at(s, &["cached"]);
                let input = s
                    .count("input")
                    .unwrap_or_else(|| at(s, &["input_tokens"]).saturating_sub(cached));
                Tokens {
                    input,
                    output: at(s, &["output_tokens"]),
                    cache_read: cached,
                    ..Tokens::default()
                }
            };
            match stats.get("models").filter(Json::is_object) {
                Some(models) => models.for_each_entry(|model, m| {
                    f(Fact::Usage {
                        key: Key::of(&["gemini result", session, when, model]),
                        model: Some(model),
                        tokens: tokens_of(m),
                    });
                }),
                None => f(Fact::Usage {
                    key: Key::of(&["gemini result", session, when]),
                    model: None,
                    tokens: tokens_of(stats),
                }),
            }
            f(Fact::Result {
                tokens: None,
                duration_ms: stats.count("duration_ms"),
                turns: None,
            });
        }
        _ => {}
    }
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// The tool calls of Gemini's stream (`filter --tool`): a `tool_use` by its `tool_id` and
/// `tool_name`, a `tool_result` by the `tool_id` it answers; the `-o json` document's
/// calls are only counted, by name.
fn tools<'a>(value: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    match value.str("type") {
        Some("tool_use") if value.has("tool_id") => f(value.str("tool_id"), value.str("tool_name")),
        Some("tool_result") if value.has("tool_id") => f(value.str("tool_id"), None),
        None => {
            if let Some(by_name) = value.path(&["stats", "tools", "byName"]) {
                by_name.for_each_entry(|name, _| f(None, Some(name)));
            }
        }
        _ => {}
    }
}

/// The `-o json` document has no `type`: it is checked as [`DOCUMENT`].
fn untyped(obj: Json<'_>, ty: Option<&str>) -> Option<&'static str> {
    (ty.is_none() && is_document(obj)).then_some(DOCUMENT)
}

/// The `gemini` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "gemini",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: Some(untyped),
    turns_into: None,
    guessed_by_type: false,
    named_session: agent::session_id,
    claude: None,
    carries_session: true,
    inherits_context: true,
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
    fn gemini_keeps_checkpointing_and_drops_an_old_resume() {
        let run = |program: &str, args: &[&str]| {
            resume_command(None, OsStr::new(program), &os(args), "S", None)
        };
        // Gemini: `-c` is --checkpointing and stays; an old --resume goes.
        assert_eq!(
            run(
                "gemini",
                &["-p", "go", "-c", "--resume", "latest", "-o", "stream-json"]
            ),
            Some(os(&[
                "gemini",
                "-p",
                "go",
                "-c",
                "-o",
                "stream-json",
                "--resume",
                "S"
            ]))
        );
    }
}
