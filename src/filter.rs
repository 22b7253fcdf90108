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
                remember_tools(v, &mut self.tool_names);
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
        if !p.tools.is_empty() && !holds_tool(value, &p.tools, &self.tool_names) {
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

/// Calls `f` with every content block of a Claude message (`message.content[]`).
fn for_each_block<'a>(value: Json<'a>, f: impl FnMut(Json<'a>)) {
    if let Some(content) = value.get("message").and_then(|m| m.get("content")) {
        content.for_each_element(f);
    }
}

/// The tool call a record of the other agents holds outside Claude's content blocks: its
/// id and, where the record names it, its tool (Gemini `tool_use`/`tool_result`, OpenCode
/// tool parts, Copilot tool executions, Gemini log `toolCalls`, Codex exec items and
/// rollout calls, Qwen log `functionCall`/`functionResponse` parts, each tool by the name
/// `events` and `stats` give it).
fn for_each_agent_tool<'a>(value: Json<'a>, mut f: impl FnMut(Option<&'a str>, Option<&'a str>)) {
    let s = |v: Option<Json<'a>>, k: &str| v.and_then(|v| v.str(k));
    let v = Some(value);
    match s(v, "type") {
        Some("tool_use") if value.has("tool_id") => f(s(v, "tool_id"), s(v, "tool_name")),
        Some("tool_result") if value.has("tool_id") => f(s(v, "tool_id"), None),
        // OpenCode's stream, and its store (`tool`).
        Some("tool_use" | "tool") if value.has("part") => {
            let part = value.get("part");
            f(s(part, "callID"), s(part, "tool"));
        }
        Some("tool.execution_start" | "tool.execution_complete") => {
            let data = value.get("data");
            f(s(data, "toolCallId"), s(data, "toolName"));
        }
        // Gemini CLI's `-o json` document: its calls only counted, by name.
        None => {
            if let Some(by_name) = value.path(&["stats", "tools", "byName"]) {
                by_name.for_each_entry(|name, _| f(None, Some(name)));
            }
        }
        Some("gemini") => {
            if let Some(calls) = value.get("toolCalls") {
                calls.for_each_element(|c| f(s(Some(c), "id"), s(Some(c), "name")));
            }
        }
        Some("item.started" | "item.completed") => {
            if let Some(item) = value.get("item") {
                if let Some(name) = crate::dialect::codex_tool_name(item) {
                    f(s(Some(item), "id"), Some(name));
                }
            }
        }
        Some("response_item") => {
            let payload = value.get("payload");
            let ptype = s(payload, "type").unwrap_or_default();
            match crate::dialect::codex_log_tool_name(ptype, s(payload, "name")) {
                Some(name) => f(s(payload, "call_id"), Some(name)),
                None if ptype.ends_with("_output") => f(s(payload, "call_id"), None),
                None => {}
            }
        }
        _ => {}
    }
    // Qwen Code's session log: Gemini-style `message.parts`, a call's `functionCall` and
    // its `functionResponse`, each naming the tool.
    if let Some(parts) = value.get("message").and_then(|m| m.get("parts")) {
        parts.for_each_element(|part| {
            if let Some(call) = part
                .get("functionCall")
                .or_else(|| part.get("functionResponse"))
            {
                f(s(Some(call), "id"), s(Some(call), "name"));
            }
        });
    }
}

fn remember_tools(value: Json<'_>, names: &mut HashMap<String, String>) {
    for_each_agent_tool(value, |id, name| {
        if let (Some(id), Some(name)) = (id, name) {
            if names.len() >= TOOL_ID_CAP {
                names.clear();
            }
            names.insert(id.to_string(), name.to_string());
        }
    });
    for_each_block(value, |b| {
        if b.str("type") == Some("tool_use") {
            if let (Some(id), Some(name)) = (b.str("id"), b.str("name")) {
                if names.len() >= TOOL_ID_CAP {
                    names.clear();
                }
                names.insert(id.to_string(), name.to_string());
            }
        }
    });
}

fn holds_tool(value: Json<'_>, tools: &[String], names: &HashMap<String, String>) -> bool {
    let mut hit = false;
    for_each_agent_tool(value, |id, name| {
        let name = name.or_else(|| id.and_then(|id| names.get(id)).map(String::as_str));
        hit |= name.is_some_and(|n| tools.iter().any(|t| t == n));
    });
    for_each_block(value, |b| {
        let name = match b.str("type") {
            Some("tool_use") => b.str("name"),
            Some("tool_result") => b
                .str("tool_use_id")
                .and_then(|id| names.get(id))
                .map(String::as_str),
            _ => None,
        };
        hit |= name.is_some_and(|n| tools.iter().any(|t| t == n));
    });
    hit
}
