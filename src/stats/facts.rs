//! The stats engine's vocabulary for what a record says: [`Fact`]s, in no agent's terms.
//! An agent's reader into facts (a [`FactsFn`], in the agent's module) gives them;
//! [`crate::stats::Ingest::facts`] applies them to the store (docs/DESIGN.md "The stats
//! rooms").

use super::{Key, Tokens};
use crate::json::Json;

/// A reader of records into [`Fact`]s: the record, its type, the session its input is in
/// so far, and where the facts go.
pub(crate) type FactsFn = for<'a> fn(Json<'a>, Option<&'a str>, &str, &mut dyn FnMut(Fact<'a>));

/// One thing a record says, in no agent's terms.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fact<'a> {
    /// The session the record (and the records after it in its input) belongs to.
    Session(&'a str),
    /// The model the records after this one use (Copilot names it apart).
    Model(&'a str),
    /// The working directory of the record's session, its project (the first one named
    /// counts): OpenCode's store names it in each assistant message.
    Cwd(&'a str),
    /// A usage snapshot: the last one under a key counts.
    Usage {
        key: Key,
        model: Option<&'a str>,
        /// `reasoning_output` set where the agent reports it apart.
        tokens: Tokens,
    },
    ToolCall {
        key: Key,
        name: &'a str,
    },
    ToolError {
        key: Key,
    },
    /// The session's result: its billed totals where the agent gives them, its length.
    Result {
        tokens: Option<Tokens>,
        duration_ms: Option<u64>,
        turns: Option<u64>,
    },
    /// A cost the agent reported for one step, under a key (summed per session).
    StepCost {
        key: Key,
        cost_usd: f64,
    },
}
