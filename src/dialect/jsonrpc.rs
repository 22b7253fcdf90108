//! `jsonrpc`: JSON-RPC 2.0 over stdio (Codex `app-server`), where the `jsonrpc` member may
//! be absent on the wire (testdata/corpus/SCHEMA-NOTES.md section 4). No `type`.

pub(super) mod events;

use super::agent::{self, Agent, StatsReader};
use super::facts::Fact;
use super::Head;
use super::{expect, SchemaProblem, Want};
use super::{texts, RecordInfo};
use crate::gaps::{InputEnd, Op};
use crate::json::Json;

pub(super) const KNOWN_TYPES: &[&str] = &[];

/// Decisive: no `type`, and the shape of a request, response or notification.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    ty.is_none()
        && !obj.has("type")
        && (obj.has("jsonrpc")
            || obj.has("method")
            || (obj.has("id") && (obj.has("result") || obj.has("error"))))
}

/// A request has a string `method` and an `id`; a response an `id` and a `result` or an
/// `error {code, message}`; a notification a `method` alone. `id` is a string or a number.
pub(super) fn check(obj: Json<'_>, _head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    expect(obj, "jsonrpc", Want::Str, false, p);
    expect(obj, "method", Want::Str, false, p);
    expect(obj, "id", Want::StrOrNum, false, p);
    expect(obj, "params", Want::Obj, false, p);
    if obj.has("error") {
        expect(obj, "error", Want::Obj, true, p);
        expect(obj, "error.code", Want::Num, true, p);
        expect(obj, "error.message", Want::Str, true, p);
    }
    if !obj.has("method") && !obj.has("result") && !obj.has("error") {
        p.push(SchemaProblem {
            path: "method".to_string(),
            expected: "a method (request, notification) or a result or error (response)",
            found: None,
        });
    }
}

/// The session a JSON-RPC message belongs to: the Codex `app-server` thread it names
/// (`params.threadId`, `params.thread.id`, `result.thread.id`, `params.conversationId`),
/// read alike by `events` and `stats`.
pub(crate) fn session(v: Json<'_>) -> Option<&str> {
    [
        &["params", "threadId"][..],
        &["params", "thread", "id"],
        &["result", "thread", "id"],
        &["params", "conversationId"],
    ]
    .iter()
    .find_map(|path| v.path(path).and_then(|s| s.as_str()))
}

/// The stats facts of a JSON-RPC record: the session it names, nothing else (its usage is
/// not reported).
pub(crate) fn facts<'a>(
    v: Json<'a>,
    _ty: Option<&'a str>,
    _session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    if let Some(id) = session(v) {
        f(Fact::Session(id));
    }
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// What a message tells the gap trackers: requests and their responses, by `id`.
fn gap_ops(_: &RecordInfo<'_>, value: Json<'_>, ops: &mut Vec<Op>, text: &mut String) -> bool {
    gaps::ops(value, ops, text);
    false
}

/// JSON-RPC messages have no type: each is checked whole.
fn untyped(_: Json<'_>, _: Option<&str>) -> Option<&'static str> {
    Some("")
}

/// The `jsonrpc` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "jsonrpc",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: Some(untyped),
    turns_into: None,
    guessed_by_type: false,
    named_session: agent::no_session,
    claude: None,
    carries_session: false,
    inherits_context: true,
    events: Some(|| Box::<events::Rpc>::default()),
    stats: StatsReader {
        read: |v, top, s| s.facts(facts, v, top),
        claude_fields: false,
    },
    gap_ops,
    input_end: InputEnd::Nothing,
    texts: texts::all_strings,
    tools: agent::no_tools,
    log_folders: agent::no_log_folders,
    cli: None,
};
