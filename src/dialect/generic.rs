//! `generic`: any NDJSON. It knows no types, so it flags none; its type is read from
//! `--type-field` (default `type`). Dialects without a schema of their own yet use its
//! (empty) checks.

use super::agent::{self, Agent, StatsReader};
use super::texts;
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

/// The `generic` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "generic",
    known_types: &[],
    knows: None,
    recognises,
    check,
    named_session: agent::no_session,
    reads_as_claude_messages: false,
    claude_top: false,
    input_includes_cache: false,
    result_text_tells_failure: false,
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
    programs: &[],
    resume: None,
    run_facts: None,
};
