//! The record predicates of `filter` (docs/REFERENCE.md, "`filter` predicates"): which records to
//! select, and what to print of them. Predicates combine with AND; the values of one predicate with
//! OR. Selection looks at the decoded record, so key order and whitespace do not matter (only
//! `--grep`'s prefilter glances at the raw bytes first, to pass over lines quickly).
//!
//! The parts live beside this file: [`path`] (dotted paths with `*`), [`expr`]
//! (`--where PATH OP VALUE` and the errors that point into an expression), [`grep`]
//! (`--grep` and the human text of a record, per dialect) and [`projection`]
//! (`--print`). `--since` / `--until` read the record's time with [`crate::timestamp`].

pub mod expr;
pub mod grep;
pub mod path;
pub mod projection;

pub use expr::{ExprError, Where};
pub use grep::Grep;
pub use projection::Projection;

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::json::Json;
use crate::pipeline::{Record, Status};
use crate::timestamp::{self, TimeRange};
use std::collections::HashMap;

/// The predicates given on the command line.
#[derive(Debug, Clone, Default)]
pub struct Predicates {
    /// `--type`: a type, or `type/subtype`.
    pub types: Vec<String>,
    pub subtypes: Vec<String>,
    pub tools: Vec<String>,
    pub sessions: Vec<String>,
    pub models: Vec<String>,
    pub wheres: Vec<Where>,
    /// `--grep`: the patterns, any of which may match.
    pub grep: Option<Grep>,
    /// `--since` / `--until`; records without a time pass.
    pub time: TimeRange,
    /// `--valid` (true) or `--invalid` (false).
    pub valid: Option<bool>,
    pub diagnostics: Vec<Code>,
    pub invert: bool,
}

impl Predicates {
    fn has_field_predicates(&self) -> bool {
        !(self.types.is_empty()
            && self.subtypes.is_empty()
            && self.tools.is_empty()
            && self.sessions.is_empty()
            && self.models.is_empty()
            && self.wheres.is_empty()
            && self.grep.is_none()
            && self.time.is_unbounded())
    }
}

/// Tool ids remembered to name the tool of a `tool_result`; past this many the memory is
/// cleared (a result that far from its call is not attributed).
const TOOL_ID_CAP: usize = 1 << 20;

/// Applies predicates to records in stream order (it remembers tool ids to attribute
/// tool results to their tool).
#[derive(Debug, Clone)]
pub struct Matcher {
    predicates: Predicates,
    tool_names: HashMap<String, String>,
}

impl Matcher {
    pub fn new(predicates: Predicates) -> Self {
        Matcher {
            predicates,
            tool_names: HashMap::new(),
        }
    }

    /// Whether the record is selected (after `--invert`).
    pub fn matches(&mut self, record: &Record<'_>) -> bool {
        let selected = self.matches_plain(record);
        selected != self.predicates.invert
    }

    fn matches_plain(&mut self, record: &Record<'_>) -> bool {
        let p = &self.predicates;
        if !p.tools.is_empty() {
            if let Some(v) = record.value {
                remember_tools(record.info.dialect, v, &mut self.tool_names);
            }
        }
        let p = &self.predicates;
        if let Some(want_valid) = p.valid {
            let ok = match record.status {
                Status::Valid => want_valid,
                Status::Invalid => !want_valid,
                Status::Empty => false,
            };
            if !ok {
                return false;
            }
        }
        if !p.diagnostics.is_empty() && !p.diagnostics.iter().any(|c| record.has_code(*c)) {
            return false;
        }
        let no_predicates =
            !p.has_field_predicates() && p.valid.is_none() && p.diagnostics.is_empty();
        if no_predicates {
            return record.status == Status::Valid;
        }
        if !p.has_field_predicates() {
            return true;
        }
        let Some(value) = record.value.filter(|v| v.is_object()) else {
            return false;
        };
        let info = &record.info;
        if !p.types.is_empty() {
            let ty = info.ty.unwrap_or_default();
            let hit = p.types.iter().any(|t| match t.split_once('/') {
                Some((a, b)) => info.ty == Some(a) && info.subtype == Some(b),
                None => info.ty.is_some() && t == ty,
            });
            if !hit {
                return false;
            }
        }
        if !p.subtypes.is_empty() && !p.subtypes.iter().any(|s| info.subtype == Some(s)) {
            return false;
        }
        if !p.sessions.is_empty() {
            let session = session_of(value);
            if !p.sessions.iter().any(|s| session == Some(s.as_str())) {
                return false;
            }
        }
        if !p.models.is_empty() {
            let model = model_of(value);
            if !p.models.iter().any(|m| model == Some(m.as_str())) {
                return false;
            }
        }
        if !p.wheres.iter().all(|w| w.matches(value)) {
            return false;
        }
        if !p.tools.is_empty() && !holds_tool(info.dialect, value, &p.tools, &self.tool_names) {
            return false;
        }
        if !p.time.is_unbounded() {
            if let Some(t) = timestamp::record_time(value) {
                if !p.time.contains(t) {
                    return false;
                }
            }
        }
        if let Some(grep) = &p.grep {
            if !grep.matches(record.raw, info.dialect, value) {
                return false;
            }
        }
        true
    }
}

/// The session id of a record, in whichever spelling its agent uses.
pub fn session_of<'a>(value: Json<'a>) -> Option<&'a str> {
    ["session_id", "sessionId", "thread_id", "sessionID"]
        .iter()
        .find_map(|k| value.str(k))
}

/// The model of a record: `message.model` (assistant messages), `model` (init lines) or
/// `message.modelID` (OpenCode's store).
pub fn model_of<'a>(value: Json<'a>) -> Option<&'a str> {
    let message = value.get("message");
    let text = |v: Option<Json<'a>>, k: &str| v.and_then(|v| v.str(k));
    text(message, "model")
        .or_else(|| text(Some(value), "model"))
        .or_else(|| text(message, "modelID"))
}

fn remember_tools(dialect: Option<Dialect>, value: Json<'_>, names: &mut HashMap<String, String>) {
    Dialect::tool_calls(dialect, value, &mut |id, name| {
        if let (Some(id), Some(name)) = (id, name) {
            if names.len() >= TOOL_ID_CAP {
                names.clear();
            }
            names.insert(id.to_string(), name.to_string());
        }
    });
}

/// Whether a record holds a call of one of `tools`: a call by its name, a result by the
/// name remembered for its call's id.
fn holds_tool(
    dialect: Option<Dialect>,
    value: Json<'_>,
    tools: &[String],
    names: &HashMap<String, String>,
) -> bool {
    let mut hit = false;
    Dialect::tool_calls(dialect, value, &mut |id, name| {
        let name = name.or_else(|| id.and_then(|id| names.get(id)).map(String::as_str));
        hit |= name.is_some_and(|n| tools.iter().any(|t| t == n));
    });
    hit
}
