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

use super::RunFacts;
use super::{expect, SchemaProblem, Want};
use crate::json::Json;
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

pub(super) fn check(obj: Json<'_>, ty: &str, p: &mut Vec<SchemaProblem>) {
    if ty == DOCUMENT {
        expect(obj, "session_id", Want::Str, false, p);
        expect(obj, "response", Want::Str, false, p);
        expect(obj, "stats", Want::Obj, false, p);
        expect(obj, "stats.models", Want::Obj, false, p);
        expect(obj, "error", Want::Obj, false, p);
        expect(obj, "error.message", Want::Str, false, p);
        return;
    }
    expect(obj, "timestamp", Want::Str, true, p);
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
    super::str_field(v, "status") == Some("error")
        || super::str_field(v, "output").is_some_and(super::output_reports_failure)
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
pub(super) fn run_facts<'a>(obj: Json<'a>, ty: &str) -> RunFacts<'a> {
    let mut facts = RunFacts::default();
    match ty {
        "init" => {
            facts.session = obj.get("session_id").and_then(|s| s.as_str());
            facts.begins = true;
        }
        "result" => facts.ends = true,
        _ => {}
    }
    facts
}
