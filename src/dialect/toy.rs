//! `toy`: an agent that exists only in the unit tests. It walks docs/DESIGN.md's "Adding an
//! agent" for real: its module, its descriptor, one line in the registry's `Dialect`
//! enum, `ALL` and `Dialect::agent`, and nothing in any engine. Its test then reads its
//! records through every engine (detection, schema checks, `events`, `stats`, `gaps`,
//! `filter --grep`'s texts and `--tool`'s calls) and holds them to one meaning, so a
//! change of the descriptor or of an engine that would make adding an agent need more
//! than those steps fails here.
//!
//! Its records, one JSON object a line, each naming its session:
//!
//! ```text
//! {"type":"toy.start","session":"t1","model":"toy-1"}
//! {"type":"toy.say","session":"t1","text":"hello"}
//! {"type":"toy.call","session":"t1","id":"c1","tool":"Bash","input":{"command":"ls"}}
//! {"type":"toy.done","session":"t1","id":"c1","failed":false,"output":"a b"}
//! {"type":"toy.usage","session":"t1","id":"m1","model":"toy-1","input":10,"output":5}
//! {"type":"toy.end","session":"t1"}
//! ```

mod events;
mod gaps;

use super::agent::StatsReader;
use super::agent::{self, Agent};
use super::facts::Fact;
use super::{expect, Head, SchemaProblem, Want};
use crate::gaps::InputEnd;
use crate::json::Json;
use crate::stats::{Key, Tokens};

const KNOWN_TYPES: &[&str] = &[
    "toy.start",
    "toy.say",
    "toy.call",
    "toy.done",
    "toy.usage",
    "toy.end",
];

/// Decisive evidence: a `toy.` type and a session named.
fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    ty.is_some_and(|t| t.starts_with("toy.")) && obj.str("session").is_some()
}

fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    expect(obj, "session", Want::Str, true, p);
    match head.ty {
        "toy.say" => expect(obj, "text", Want::Str, true, p),
        "toy.call" => {
            expect(obj, "id", Want::Str, true, p);
            expect(obj, "tool", Want::Str, true, p);
        }
        "toy.done" => {
            expect(obj, "id", Want::Str, true, p);
            expect(obj, "failed", Want::Bool, true, p);
        }
        "toy.usage" => {
            expect(obj, "id", Want::Str, true, p);
            expect(obj, "input", Want::Count, true, p);
            expect(obj, "output", Want::Count, true, p);
        }
        _ => {}
    }
}

/// The failure rule, written once: the events, the stats and the gap trackers all ask it.
fn call_failed(v: Json<'_>) -> bool {
    v.get("failed").and_then(|f| f.as_bool()) == Some(true)
}

fn named_session(v: Json<'_>) -> Option<&str> {
    v.str("session")
}

/// The toy's stats: its usage by message id, its calls and their failures, its end.
fn facts<'a>(v: Json<'a>, ty: Option<&'a str>, _session: &str, f: &mut dyn FnMut(Fact<'a>)) {
    if let Some(s) = v.str("session") {
        f(Fact::Session(s));
    }
    match ty {
        Some("toy.usage") => {
            if let Some(id) = v.str("id") {
                f(Fact::Usage {
                    key: Key::of(&[id]),
                    model: v.str("model"),
                    tokens: Tokens {
                        input: v.count("input").unwrap_or(0),
                        output: v.count("output").unwrap_or(0),
                        ..Tokens::default()
                    },
                });
            }
        }
        Some("toy.call") => {
            if let Some(id) = v.str("id") {
                f(Fact::ToolCall {
                    key: Key::of(&[id]),
                    name: v.str("tool").unwrap_or("(unknown)"),
                });
            }
        }
        Some("toy.done") if call_failed(v) => {
            if let Some(id) = v.str("id") {
                f(Fact::ToolError {
                    key: Key::of(&[id]),
                });
            }
        }
        Some("toy.end") => f(Fact::Result {
            tokens: None,
            duration_ms: None,
            turns: None,
        }),
        _ => {}
    }
}

/// The human text of a record (`filter --grep`).
fn texts<'a>(v: Json<'a>, f: &mut dyn FnMut(Json<'a>) -> bool) -> bool {
    ["text", "output"].iter().filter_map(|k| v.get(k)).any(f)
}

/// The tool calls a record holds (`filter --tool`).
fn tools<'a>(v: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    match v.str("type") {
        Some("toy.call") => f(v.str("id"), v.str("tool")),
        Some("toy.done") => f(v.str("id"), None),
        _ => {}
    }
}

pub(super) static AGENT: Agent = Agent {
    name: "toy",
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
    texts,
    tools,
    log_folders: agent::no_log_folders,
    cli: None,
};

mod tests;
