//! One agent's descriptor: everything the registry asks of an agent, in one value its
//! module defines (`pub(super) static AGENT: Agent = Agent { ... }`). The registry's one
//! match ([`super::Dialect::agent`]) says which descriptor a dialect is; every
//! [`super::Dialect`] method reads a field of it (docs/DESIGN.md, "Adding an agent").
//!
//! Every field is required, with no default: a new agent whose descriptor forgets one
//! does not compile. That is the point: the compiler, not a reviewer, lists what an agent
//! must say. A field an agent has no answer for is written out as such (`None`, `&[]`,
//! `false`, [`no_gap_ops`]).

pub(crate) use super::stats_reader::StatsReader;
use super::Head;
use super::{RecordInfo, RunFacts, SchemaProblem};
use crate::event::NewReader;
use crate::gaps::{InputEnd, Op};
use crate::json::Json;
use std::ffi::{OsStr, OsString};

/// The command line that resumes a session: the program, its arguments, the session id.
pub(crate) type ResumeFn = fn(&OsStr, &[OsString], &str) -> Vec<OsString>;

/// What a valid record (its type and subtype) tells the supervisor of a run.
pub(crate) type RunFactsFn = for<'a> fn(Json<'a>, &str, Option<&str>) -> RunFacts<'a>;

/// What ndjq knows of one agent's records and CLI. Every field is required: adding an
/// agent without saying one of them is a compile error (see the module's doc).
pub(crate) struct Agent {
    /// The dialect's name (`--dialect`, reports).
    pub(super) name: &'static str,
    /// The record types the dialect knows (empty: it flags none).
    pub(super) known_types: &'static [&'static str],
    /// Whether a type is known, when that is more than membership of `known_types`
    /// (Copilot's dotted event families); `None`: `known_types` says.
    pub(super) knows: Option<fn(&str) -> bool>,
    /// Whether a record carries the dialect's decisive signature (detection).
    pub(super) recognises: fn(Json<'_>, Option<&str>) -> bool,
    /// The schema problems of a record of a known type.
    pub(super) check: fn(Json<'_>, &Head<'_>, &mut Vec<SchemaProblem>),
    /// The session a record names itself, if it names one.
    pub(super) named_session: for<'a> fn(Json<'a>) -> Option<&'a str>,

    // ---- the family the agent belongs to ----
    /// Its records are Claude's message objects, read as Claude's own.
    pub(super) reads_as_claude_messages: bool,
    /// Its check and `stats` read the top-level fields of [`super::ClaudeTop`]: the
    /// classifier's walk finds them too (docs/DESIGN.md, "One walk over a record's top
    /// level"), at the cost of one more comparison a key for every record of the input.
    pub(super) claude_top: bool,
    /// Its usage counts the cached input inside `input_tokens`.
    pub(super) input_includes_cache: bool,
    /// A tool result's text tells a failed command even when `is_error` is false.
    pub(super) result_text_tells_failure: bool,
    /// A session named by one record carries to the records after it that name none.
    pub(super) carries_session: bool,
    /// A record means something only with what earlier records of its input said, so the
    /// input is read in one piece by `stats`, never in blocks counted apart.
    pub(super) inherits_context: bool,

    // ---- its readers ----
    /// What makes its reader of one input's records into normalized events, holding what
    /// the agent keeps between them (`None`: every record is `unknown`).
    pub(super) events: Option<NewReader>,
    /// Its reader of records for `stats`: one function, given each record with its
    /// top-level fields and the store (`read: |v, top, s| s.facts(facts, v, top)` for a
    /// reader into neutral facts).
    pub(super) stats: StatsReader,
    /// What a record tells the gap trackers. Returns true when the reader looked the
    /// sequence fields up itself, in its own walk over the record (`crate::gaps::seq_op`),
    /// so the trackers need not walk the record again for them.
    pub(super) gap_ops: fn(&RecordInfo<'_>, Json<'_>, &mut Vec<Op>, &mut String) -> bool,
    /// What the end of an input leaves owed to the gap trackers
    /// ([`InputEnd::SessionResult`]: each session ends with a result record).
    pub(super) input_end: InputEnd,
    /// Calls `f` on each piece of a record's human text until it returns true
    /// (`filter --grep`); whether it did.
    pub(super) texts: for<'a> fn(Json<'a>, &mut dyn FnMut(Json<'a>) -> bool) -> bool,

    // ---- its CLI, for `ndjq run` ----
    /// The program names its CLI runs as (empty: no CLI ndjq knows).
    pub(super) programs: &'static [&'static str],
    /// The command line that resumes session `id`, run before as `program` with `args`
    /// (`None`: ndjq does not know how).
    pub(super) resume: Option<ResumeFn>,
    /// What a valid record of a type tells the supervisor (`None`: ndjq does not
    /// supervise this agent).
    pub(super) run_facts: Option<RunFactsFn>,
}

/// The `gap_ops` of an agent whose records tell the gap trackers nothing.
pub(super) fn no_gap_ops(_: &RecordInfo<'_>, _: Json<'_>, _: &mut Vec<Op>, _: &mut String) -> bool {
    false
}

/// The `named_session` of an agent whose records name no session.
pub(super) fn no_session(_: Json<'_>) -> Option<&str> {
    None
}

/// A top-level `session_id` (Claude-shaped streams, Gemini's stream).
pub(super) fn session_id(v: Json<'_>) -> Option<&str> {
    v.str("session_id")
}

/// A top-level `sessionId` (the session logs).
pub(super) fn session_id_camel(v: Json<'_>) -> Option<&str> {
    v.str("sessionId")
}
