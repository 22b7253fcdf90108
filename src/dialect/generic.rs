//! `generic`: any NDJSON. It knows no types, so it flags none; its type is read from
//! `--type-field` (default `type`). Dialects without a schema of their own yet use its
//! (empty) checks.

use super::agent::{self, Agent, StatsReader};
use super::texts;
use super::Dialect;
use super::Head;
use super::SchemaProblem;
use crate::gaps::InputEnd;
use crate::json::Json;

pub(super) fn check(_obj: Json<'_>, _head: &Head<'_>, _problems: &mut Vec<SchemaProblem>) {}

/// Never decisive: `generic` is what an input with no signature becomes
/// ([`super::Classifier`]), or what `--dialect generic` forces.
fn recognises(_obj: Json<'_>, _ty: Option<&str>) -> bool {
    false
}

/// A record of an input no agent was recognised in may hold any agent's tool calls: each
/// agent's reader is asked, once (`filter --tool`).
fn tools<'a>(value: Json<'a>, f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {
    let mut asked: Vec<usize> = Vec::with_capacity(Dialect::LISTED.len());
    for d in Dialect::LISTED {
        let reader = d.agent().tools;
        // Agents that share a reader (Claude's messages) are asked once.
        let at = reader as usize;
        if *d != Dialect::Generic && !asked.contains(&at) {
            asked.push(at);
            reader(value, f);
        }
    }
}

/// The `generic` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "generic",
    known_types: &[],
    knows: None,
    recognises,
    check,
    untyped: None,
    turns_into: None,
    guessed_by_type: false,
    named_session: agent::no_session,
    claude: None,
    carries_session: false,
    inherits_context: false,
    events: None,
    stats: StatsReader {
        read: super::claude::stats::read,
        claude_fields: true,
    },
    gap_ops: agent::no_gap_ops,
    input_end: InputEnd::Nothing,
    texts: texts::all_strings,
    tools,
    log_folders: agent::no_log_folders,
    cli: None,
};
