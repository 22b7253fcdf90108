//! One agent's descriptor: everything the registry asks of an agent, in one value its
//! module defines (`pub(super) static AGENT: Agent = Agent { ... }`). The registry's one
//! match ([`super::Dialect::agent`]) says which descriptor a dialect is; every
//! [`super::Dialect`] method reads a field of it (docs/DESIGN.md, "Adding an agent").
//!
//! Every field is required, with no default: a new agent whose descriptor forgets one
//! does not compile. That is the point: the compiler, not a reviewer, lists what an agent
//! must say. A field an agent has no answer for is written out as such (`None`, `&[]`,
//! `false`, [`no_gap_ops`]).

use super::claude::ClaudeShape;
pub(crate) use super::stats_reader::StatsReader;
use super::Head;
use super::{RecordInfo, RunFacts, SchemaProblem};
use crate::event::NewReader;
use crate::gaps::{InputEnd, Op};
use crate::input::LogFolder;
use crate::json::Json;
use std::ffi::{OsStr, OsString};
use std::path::Path;

/// The command line that resumes a session: the program, its arguments, the session id.
pub(crate) type ResumeFn = fn(&OsStr, &[OsString], &str) -> Vec<OsString>;

/// What a valid record (its type and subtype) tells the supervisor of a run.
pub(crate) type RunFactsFn = for<'a> fn(Json<'a>, &str, Option<&str>) -> RunFacts<'a>;

/// A reader of the tool calls a record holds (`filter --tool`): calls `f` with each call's
/// id and, where the record names it, its tool (the name `events` and `stats` give it).
pub(crate) type ToolsFn = for<'a> fn(Json<'a>, &mut dyn FnMut(Option<&'a str>, Option<&'a str>));

/// Where an agent keeps its logs (`ndjq` given no path on a terminal): pushes its folders
/// to `out`, given a reader of the environment variables that are set (not empty) and the
/// home folder.
pub(crate) type LogFoldersFn =
    fn(&dyn Fn(&str) -> Option<OsString>, Option<&Path>, &mut Vec<LogFolder>);

/// The type a record is checked as when its `type` does not tell ([`Agent::untyped`]).
pub(crate) type UntypedFn = fn(Json<'_>, Option<&str>) -> Option<&'static str>;

/// The agent a later record tells a stream is ([`Agent::turns_into`]).
pub(crate) type TurnsIntoFn = fn(Json<'_>, Option<&str>) -> Option<super::Dialect>;

/// What ndjq knows of an agent's CLI, for `ndjq run`.
#[derive(Clone, Copy)]
pub(crate) struct Cli {
    /// The program names its CLI runs as.
    pub(super) programs: &'static [&'static str],
    /// The command line that resumes session `id`, run before as `program` with `args`.
    pub(super) resume: ResumeFn,
    /// What a valid record of a type tells the supervisor.
    pub(super) run_facts: RunFactsFn,
}

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
    /// The type a record is checked as when its `type` does not tell (JSON-RPC's messages
    /// have none and are checked whole, as `""`; Gemini's `-o json` document has none), its
    /// type then not looked up in `known_types`; `None`: only by its `type`.
    pub(super) untyped: Option<UntypedFn>,
    /// The agent a stream detected as this one's turns out to be, told by a later record
    /// (Claude's stream that did not open with its init: Qwen's and Cursor's own records);
    /// `None`: detection is final.
    pub(super) turns_into: Option<TurnsIntoFn>,
    /// A record read before its input's agent is decided (a transcript opening with lines
    /// of no signature) is searched by `filter --grep` as this agent's when its type is one
    /// this agent knows.
    pub(super) guessed_by_type: bool,
    /// The session a record names itself, if it names one.
    pub(super) named_session: for<'a> fn(Json<'a>) -> Option<&'a str>,

    // ---- the family the agent belongs to ----
    /// How it shares Claude's shape, read by Claude's shared readers (its messages, its
    /// top-level fields, its usage, its tool results); `None`: it does not.
    pub(super) claude: Option<&'static ClaudeShape>,
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
    /// The tool calls a record holds, each by its id and, where the record names it, its
    /// tool (`filter --tool`, which remembers the names by id to attribute results).
    pub(super) tools: ToolsFn,
    /// Where the agent keeps its NDJSON logs by default, whether they exist or not
    /// ([`no_log_folders`]: none ndjq reads).
    pub(super) log_folders: LogFoldersFn,

    // ---- its CLI, for `ndjq run` ----
    /// The agent's CLI as `ndjq run` knows it (`None`: no CLI ndjq runs, resumes or
    /// supervises).
    pub(super) cli: Option<Cli>,
}

/// The `gap_ops` of an agent whose records tell the gap trackers nothing.
pub(super) fn no_gap_ops(_: &RecordInfo<'_>, _: Json<'_>, _: &mut Vec<Op>, _: &mut String) -> bool {
    false
}

/// The `tools` of an agent whose records hold no tool call ndjq reads.
pub(super) fn no_tools<'a>(_: Json<'a>, _: &mut dyn FnMut(Option<&'a str>, Option<&'a str>)) {}

/// The `log_folders` of an agent whose logs ndjq does not look for.
pub(super) fn no_log_folders(
    _: &dyn Fn(&str) -> Option<OsString>,
    _: Option<&Path>,
    _: &mut Vec<LogFolder>,
) {
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
