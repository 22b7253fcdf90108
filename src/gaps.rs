//! Gap trackers: what is missing or unmatched in a stream as a whole, rather than wrong
//! with one record (SPEC section 6, the SEQ_, SESS_, TOOL_ and RPC_ codes).
//!
//! A [`GapTracker`] is fed the records of one input at a time, in stream order, and turns
//! what it sees into [`Diagnostic`]s: each at the record where the problem becomes known
//! (a sequence gap, a tool_result answering nothing, an error result), or at the end of
//! the input for what was opened and never closed (located at the opening record: "tool_use
//! toolu_… (Bash) at line 12 has no result"). It reads records; it does not print, decode or
//! classify them, and it never sees PROTO_ diagnostics.
//!
//! What it tracks:
//! - a numeric sequence field (`seq_field`, or auto-detected among [`SEQ_FIELDS`] on the
//!   first records that hold one as a non-negative integer): SEQ_GAP with the missing range,
//!   SEQ_DUPLICATE (the highest value so far again), SEQ_OUT_OF_ORDER (a lower one);
//! - Claude session transcripts: a `parentUuid` naming a uuid not seen before in the input
//!   is a broken chain. The taxonomy has no code of its own for it, so it is a SEQ_GAP
//!   ("parentUuid … never appeared (broken chain)"). Subagent (sidechain) files start from a
//!   uuid of the main session, so they are not checked; `parentUuid: null` (the first
//!   record, a compact boundary) is not a parent;
//! - sessions: SESS_NO_INIT, SESS_NO_RESULT and SESS_ERROR_RESULT for Claude stream-json
//!   (system/init … result; an error is a subtype `error_*`, `is_error: true` even under
//!   `success`, or a non-null `api_error_status`) and codex exec (thread.started, turn.started
//!   … turn.completed / turn.failed; top-level `error` lines are retry notices, not
//!   results). Transcripts have no result line, so they never lack one;
//! - the other agents' sessions: Qwen Code and Cursor as Claude (Cursor's `tool_call`
//!   started/completed too); Gemini CLI `init` … `result` (an error is a `status` other
//!   than `success`; the `-o json` document is a whole session, failed when it has an
//!   `error`); OpenCode, which has no init and no result, from its first record to a
//!   `step_finish` with reason `stop`, `done`, or an `error` (a failure); Copilot to its
//!   `result` (a failure when `exitCode` is not 0). A tool result is an error when the
//!   agent says so, or when a command's output or exit code says it failed (Gemini says
//!   `status: "success"` for a failed shell command);
//! - tool calls: TOOL_ORPHAN_USE, TOOL_ORPHAN_RESULT, TOOL_ERROR (a tool_result with
//!   `is_error: true`), and codex `item.started` never completed;
//! - JSON-RPC: RPC_UNANSWERED, RPC_UNMATCHED_RESPONSE, RPC_DUPLICATE_ID. Ids are matched as
//!   JSON values (their compact text): `"1"` and `1` differ. Requests are tracked whichever
//!   side sent them.
//!
//! Memory is bounded: every tracked set holds at most `cap` entries ([`DEFAULT_CAP`]). When
//! a set is full, one diagnostic says so, the oldest entry is dropped, and tracking goes on;
//! from then on an answer to nothing (or a parent never seen) may be one that was dropped,
//! so those are no longer reported for that set.

use crate::diagnostic::{excerpt, printable, Code, Diagnostic, Severity};
use crate::dialect::Dialect;
use crate::json::{Json, Kind};
use crate::pipeline::{Consumer, Flow, Record, Status};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::sync::Arc;

/// The most entries one tracked set holds (open tool calls, open requests, uuids seen).
pub const DEFAULT_CAP: usize = 100_000;

/// The fields looked at for a sequence number when none is given, in order of preference.
pub const SEQ_FIELDS: &[&str] = &["seq", "sequence", "event_id"];

/// How many valid records auto-detection of the sequence field looks at.
const SEQ_DETECTION_WINDOW: u64 = 64;

/// Where something was opened.
#[derive(Debug, Clone)]
struct Opened {
    line: u64,
    offset: u64,
    /// What it is, for the message: a tool's name, a method, an item type (interned: a
    /// stream names a handful of tools a million times).
    label: Arc<str>,
}

/// A set of open things with a cap: the oldest is dropped when it is full.
///
/// Entries sit in a queue in the order they were opened, each key allocated once and
/// shared with the index; closing one leaves a hole that is skipped when the oldest is
/// dropped, and the queue is compacted when holes outnumber entries, so memory stays
/// bounded by the cap whatever stays open.
#[derive(Debug)]
struct Tracked {
    /// Key → age; the entry of age `a` is `slots[a - base]`.
    by_key: HashMap<Arc<str>, u64>,
    slots: VecDeque<Option<(Arc<str>, Opened)>>,
    base: u64,
    cap: usize,
    /// The cap was hit in this input (reported once).
    capped: bool,
}

impl Tracked {
    fn new(cap: usize) -> Self {
        Tracked {
            by_key: HashMap::new(),
            slots: VecDeque::new(),
            base: 0,
            cap: cap.max(1),
            capped: false,
        }
    }

    fn clear(&mut self) {
        self.by_key.clear();
        self.slots.clear();
        self.base = 0;
        self.capped = false;
    }

    fn contains(&self, key: &str) -> bool {
        self.by_key.contains_key(key)
    }

    fn slot(&self, age: u64) -> Option<&(Arc<str>, Opened)> {
        let i = usize::try_from(age.checked_sub(self.base)?).ok()?;
        self.slots.get(i)?.as_ref()
    }

    fn get(&self, key: &str) -> Option<&Opened> {
        let age = *self.by_key.get(key)?;
        self.slot(age).map(|(_, o)| o)
    }

    /// Adds (or replaces) an entry. Returns true when this insertion hit the cap for the
    /// first time in the input (the oldest entry was dropped).
    fn insert(&mut self, key: &str, opened: Opened) -> bool {
        if let Some(age) = self.by_key.remove(key) {
            self.take(age);
        }
        let mut first_cap = false;
        if self.by_key.len() >= self.cap {
            self.drop_oldest();
            first_cap = !self.capped;
            self.capped = true;
        }
        let key: Arc<str> = Arc::from(key);
        let age = self.base + self.slots.len() as u64;
        self.by_key.insert(Arc::clone(&key), age);
        self.slots.push_back(Some((key, opened)));
        first_cap
    }

    fn remove(&mut self, key: &str) -> Option<Opened> {
        let age = self.by_key.remove(key)?;
        self.take(age).map(|(_, o)| o)
    }

    /// Empties the slot of `age` (its key is already out of the index).
    fn take(&mut self, age: u64) -> Option<(Arc<str>, Opened)> {
        let i = usize::try_from(age.checked_sub(self.base)?).ok()?;
        let entry = self.slots.get_mut(i)?.take();
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base += 1;
        }
        while let Some(None) = self.slots.back() {
            self.slots.pop_back();
        }
        if self.slots.len() > 2 * self.by_key.len() + 64 {
            self.compact();
        }
        entry
    }

    /// Drops the oldest open entry.
    fn drop_oldest(&mut self) {
        while let Some(slot) = self.slots.pop_front() {
            self.base += 1;
            if let Some((key, _)) = slot {
                self.by_key.remove(&*key);
                return;
            }
        }
    }

    /// Closes the holes left by removed entries, keeping the order.
    fn compact(&mut self) {
        let live: VecDeque<Option<(Arc<str>, Opened)>> =
            self.slots.drain(..).filter(Option::is_some).collect();
        self.slots = live;
        for (i, (key, _)) in self.slots.iter().flatten().enumerate() {
            if let Some(age) = self.by_key.get_mut(&**key) {
                *age = self.base + i as u64;
            }
        }
    }

    /// Everything still open, oldest first, leaving the set empty.
    fn drain(&mut self) -> Vec<(Arc<str>, Opened)> {
        self.by_key.clear();
        self.base = 0;
        self.slots.drain(..).flatten().collect()
    }
}

/// Labels shared by the entries that carry them; a bounded table, so a stream of ever new
/// names cannot grow it without end (past the bound, a label is just not shared).
#[derive(Debug, Default)]
struct Labels(HashSet<Arc<str>>);

impl Labels {
    const MAX: usize = 4096;

    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(l) = self.0.get(s) {
            return Arc::clone(l);
        }
        let l: Arc<str> = Arc::from(s);
        if self.0.len() < Self::MAX {
            self.0.insert(Arc::clone(&l));
        }
        l
    }
}

/// The numeric sequence of one input.
#[derive(Debug, Default)]
struct Sequence {
    field: Option<String>,
    max: Option<u64>,
    looked_at: u64,
}

/// Tracks gaps over the records of one input at a time. See the module documentation.
#[derive(Debug)]
pub struct GapTracker {
    seq_field: Option<String>,
    cap: usize,
    file: Arc<str>,
    seq: Sequence,
    tools: Tracked,
    items: Tracked,
    requests: Tracked,
    uuids: Tracked,
    sidechain: bool,
    /// A session start (system/init, thread.started) was seen in this input.
    saw_init: bool,
    /// SESS_NO_INIT was reported in this input.
    reported_no_init: bool,
    /// The open Claude session or codex turn: where it began.
    open_session: Option<Opened>,
    /// Diagnostics found and not yet taken (the [`Consumer`] use).
    found: Vec<Diagnostic>,
    labels: Labels,
}

impl GapTracker {
    /// A tracker with the default cap. `seq_field` names the sequence field; `None`
    /// auto-detects one of [`SEQ_FIELDS`].
    pub fn new(seq_field: Option<String>) -> Self {
        GapTracker::with_cap(seq_field, DEFAULT_CAP)
    }

    /// A tracker whose every set holds at most `cap` entries.
    pub fn with_cap(seq_field: Option<String>, cap: usize) -> Self {
        GapTracker {
            seq_field,
            cap,
            file: Arc::from(""),
            seq: Sequence::default(),
            tools: Tracked::new(cap),
            items: Tracked::new(cap),
            requests: Tracked::new(cap),
            uuids: Tracked::new(cap),
            sidechain: false,
            saw_init: false,
            reported_no_init: false,
            open_session: None,
            found: Vec::new(),
            labels: Labels::default(),
        }
    }

    /// A new input begins: nothing carries over from the one before.
    pub fn begin(&mut self, file: &Arc<str>) {
        self.file = file.clone();
        self.seq = Sequence {
            field: self.seq_field.clone(),
            ..Sequence::default()
        };
        self.tools.clear();
        self.items.clear();
        self.requests.clear();
        self.uuids.clear();
        self.sidechain = false;
        self.saw_init = false;
        self.reported_no_init = false;
        self.open_session = None;
    }

    /// Looks at one record; the gaps it reveals are pushed onto `out`.
    pub fn track(&mut self, record: &Record<'_>, out: &mut Vec<Diagnostic>) {
        if record.status != Status::Valid {
            return;
        }
        let Some(value) = record.value else { return };
        if !value.is_object() {
            return;
        }
        let at = At { record };
        self.track_seq(value, &at, out);
        match record.info.dialect {
            Some(Dialect::Claude | Dialect::Qwen | Dialect::Cursor) => {
                self.track_claude_session(value, &at, out);
                self.track_claude_tools(value, &at, out);
                self.track_cursor_tool(value, &at, out);
            }
            Some(Dialect::Gemini) => self.track_gemini(value, &at, out),
            Some(Dialect::OpenCode) => self.track_opencode(value, &at, out),
            Some(Dialect::Copilot) => self.track_copilot(value, &at, out),
            Some(Dialect::ClaudeLog) => {
                self.track_chain(value, &at, out);
                self.track_claude_tools(value, &at, out);
            }
            Some(Dialect::Codex) => self.track_codex(value, &at, out),
            Some(Dialect::JsonRpc) => self.track_rpc(value, &at, out),
            _ => {}
        }
    }

    /// The input ended: what was opened and never closed, in the order of the lines that
    /// opened it, is pushed onto `out`.
    pub fn end(&mut self, dialect: Option<Dialect>, out: &mut Vec<Diagnostic>) {
        let mut end = Vec::new();
        match dialect {
            Some(
                Dialect::Claude
                | Dialect::Qwen
                | Dialect::Cursor
                | Dialect::Gemini
                | Dialect::OpenCode
                | Dialect::Copilot,
            ) => {
                if let Some(s) = self.open_session.take() {
                    end.push(self.at_opened(
                        Code::SessNoResult,
                        &s,
                        format!(
                            "session that began at line {} has no result (stream ended)",
                            s.line
                        ),
                    ));
                }
            }
            Some(Dialect::Codex) => self.close_codex_process(&mut end, "stream ended"),
            _ => {}
        }
        for (id, o) in self.tools.drain() {
            end.push(self.at_opened(
                Code::ToolOrphanUse,
                &o,
                format!(
                    "tool_use {} ({}) at line {} has no result",
                    printable(&id),
                    printable(&o.label),
                    o.line
                ),
            ));
        }
        for (id, o) in self.requests.drain() {
            end.push(self.at_opened(
                Code::RpcUnanswered,
                &o,
                format!(
                    "request id {} ({}) at line {} was never answered",
                    printable(&id),
                    printable(&o.label),
                    o.line
                ),
            ));
        }
        end.sort_by_key(|d| d.line);
        out.extend(end);
        self.uuids.clear();
    }

    /// Takes what was found since the last call (when used as a [`Consumer`]).
    pub fn take_found(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.found)
    }

    fn at_opened(&self, code: Code, o: &Opened, message: String) -> Diagnostic {
        Diagnostic {
            file: self.file.clone(),
            line: o.line,
            column: None,
            offset: o.offset,
            code,
            severity: code.severity(),
            message,
            excerpt: String::new(),
        }
    }

    fn capped(&self, code: Code, severity: Severity, at: &At<'_, '_>, what: &str) -> Diagnostic {
        let mut d = at.diag(
            code,
            format!(
                "more than {} {what}: the oldest no longer tracked",
                self.cap.max(1)
            ),
        );
        d.severity = severity;
        d
    }

    // ---- sequence numbers ----

    fn track_seq(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        let n = match &self.seq.field {
            Some(f) => value.get(f).and_then(|v| v.as_u64()),
            None => {
                if self.seq.looked_at >= SEQ_DETECTION_WINDOW {
                    return;
                }
                self.seq.looked_at += 1;
                let found = SEQ_FIELDS
                    .iter()
                    .find_map(|f| value.get(f).and_then(|v| v.as_u64()).map(|n| (f, n)));
                match found {
                    Some((f, n)) => {
                        self.seq.field = Some((*f).to_string());
                        Some(n)
                    }
                    None => None,
                }
            }
        };
        let Some(n) = n else { return };
        let field = self.seq.field.as_deref().unwrap_or_default();
        match self.seq.max {
            None => self.seq.max = Some(n),
            Some(max) if n == max.saturating_add(1) => self.seq.max = Some(n),
            Some(max) if n > max => {
                let range = if n - 1 == max + 1 {
                    format!("{}", max + 1)
                } else {
                    format!("{}-{}", max + 1, n - 1)
                };
                out.push(at.diag(
                    Code::SeqGap,
                    format!("{field} jumps from {max} to {n}: missing {range}"),
                ));
                self.seq.max = Some(n);
            }
            Some(max) if n == max => {
                out.push(at.diag(Code::SeqDuplicate, format!("{field} {n} repeated")))
            }
            Some(max) => out.push(at.diag(
                Code::SeqOutOfOrder,
                format!("{field} {n} after {max}: out of order"),
            )),
        }
    }

    // ---- Claude transcripts: parentUuid chains ----

    fn track_chain(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        if value.get("isSidechain").and_then(|v| v.as_bool()) == Some(true) {
            self.sidechain = true;
        }
        if let Some(parent) = value.get("parentUuid").and_then(|v| v.as_str()) {
            if !self.sidechain && !self.uuids.capped && !self.uuids.contains(parent) {
                out.push(at.diag(
                    Code::SeqGap,
                    format!(
                        "parentUuid {} never appeared (broken chain)",
                        printable(parent)
                    ),
                ));
            }
        }
        if let Some(uuid) = value.get("uuid").and_then(|v| v.as_str()) {
            let opened = at.opened(self.labels.get(""));
            if self.uuids.insert(uuid, opened) {
                out.push(self.capped(Code::SeqGap, Severity::Info, at, "uuids"));
            }
        }
    }

    // ---- Claude stream-json sessions ----

    fn track_claude_session(
        &mut self,
        value: Json<'_>,
        at: &At<'_, '_>,
        out: &mut Vec<Diagnostic>,
    ) {
        let ty = at.record.info.ty.unwrap_or_default();
        let subtype = at.record.info.subtype.unwrap_or_default();
        if ty == "system" && subtype == "init" {
            self.saw_init = true;
            if self.open_session.is_none() {
                self.open_session = Some(at.opened(self.labels.get("")));
            }
            return;
        }
        if !matches!(ty, "assistant" | "user" | "result" | "stream_event") {
            return;
        }
        if !self.saw_init && !self.reported_no_init {
            self.reported_no_init = true;
            out.push(at.diag(
                Code::SessNoInit,
                format!("`{ty}` before any system/init: the session has no start"),
            ));
        }
        if self.open_session.is_none() {
            self.open_session = Some(at.opened(self.labels.get("")));
        }
        if ty != "result" {
            return;
        }
        self.open_session = None;
        let mut why = Vec::new();
        if subtype.starts_with("error") {
            why.push(format!("subtype `{}`", printable(subtype)));
        }
        if value.get("is_error").and_then(|v| v.as_bool()) == Some(true) {
            if why.is_empty() {
                why.push(format!("is_error true (subtype `{}`)", printable(subtype)));
            } else {
                why.push("is_error true".to_string());
            }
        }
        if let Some(status) = value.get("api_error_status") {
            if status.kind() != Kind::Null {
                why.push(format!("api_error_status {}", status.to_compact_string()));
            }
        }
        if !why.is_empty() {
            out.push(at.diag(
                Code::SessErrorResult,
                format!("the session ended in an error: {}", why.join(", ")),
            ));
        }
    }

    // ---- tool_use / tool_result (Claude stream-json and transcripts) ----

    fn track_claude_tools(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        let ty = at.record.info.ty.unwrap_or_default();
        if ty != "assistant" && ty != "user" {
            return;
        }
        let Some(content) = value.get("message").and_then(|m| m.get("content")) else {
            return;
        };
        if content.kind() != Kind::Array {
            return;
        }
        content.for_each_element(|block| self.track_block(block, at, out));
    }

    /// One content block: a tool_use opens a call, a tool_result closes one.
    fn track_block(&mut self, block: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        // One walk over the block for the fields either kind needs.
        let [ty, id, name, use_id, is_error] =
            block.get_many(["type", "id", "name", "tool_use_id", "is_error"]);
        match ty.and_then(|t| t.as_str()) {
            Some("tool_use") => {
                let Some(id) = id.and_then(|v| v.as_str()) else {
                    return;
                };
                let name = name.and_then(|v| v.as_str()).unwrap_or("?");
                let opened = at.opened(self.labels.get(name));
                if self.tools.insert(id, opened) {
                    out.push(self.capped(
                        Code::ToolOrphanUse,
                        Severity::Warning,
                        at,
                        "open tool calls",
                    ));
                }
            }
            Some("tool_result") => {
                let Some(id) = use_id.and_then(|v| v.as_str()) else {
                    return;
                };
                let is_error = is_error.and_then(|v| v.as_bool()) == Some(true);
                self.close_tool(id, is_error, at, out);
            }
            _ => {}
        }
    }

    // ---- codex exec ----

    fn track_codex(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        let ty = at.record.info.ty.unwrap_or_default();
        match ty {
            "thread.started" => {
                // `exec resume` starts a new process: what the last one left open stays
                // open for good, and item ids start again from item_0.
                if self.saw_init {
                    self.close_codex_process(out, "the process ended");
                }
                self.saw_init = true;
                return;
            }
            "turn.started" | "turn.completed" | "turn.failed" | "item.started" | "item.updated"
            | "item.completed" => {}
            _ => return,
        }
        if !self.saw_init && !self.reported_no_init {
            self.reported_no_init = true;
            out.push(at.diag(
                Code::SessNoInit,
                format!("`{ty}` before any thread.started: the session has no start"),
            ));
        }
        match ty {
            "turn.started" => self.open_session = Some(at.opened(self.labels.get(""))),
            "turn.completed" => self.open_session = None,
            "turn.failed" => {
                self.open_session = None;
                let message = value
                    .get("error")
                    .and_then(|e| e.get("message"))
                    .and_then(|m| m.as_str())
                    .map(|m| format!(": {}", printable(&m.chars().take(120).collect::<String>())))
                    .unwrap_or_default();
                out.push(at.diag(Code::SessErrorResult, format!("the turn failed{message}")));
            }
            "item.started" => {
                let item = value.get("item");
                let id = item.and_then(|i| i.get("id")).and_then(|v| v.as_str());
                if let Some(id) = id {
                    let kind = item
                        .and_then(|i| i.get("type"))
                        .and_then(|v| v.as_str())
                        .unwrap_or("?");
                    let opened = at.opened(self.labels.get(kind));
                    if self.items.insert(id, opened) {
                        out.push(self.capped(
                            Code::ToolOrphanUse,
                            Severity::Warning,
                            at,
                            "open items",
                        ));
                    }
                }
            }
            "item.completed" => {
                let id = value
                    .get("item")
                    .and_then(|i| i.get("id"))
                    .and_then(|v| v.as_str());
                if let Some(id) = id {
                    self.items.remove(id);
                }
            }
            _ => {}
        }
    }

    /// What a codex process left open: its turn and its started items.
    fn close_codex_process(&mut self, out: &mut Vec<Diagnostic>, why: &str) {
        if let Some(s) = self.open_session.take() {
            out.push(self.at_opened(
                Code::SessNoResult,
                &s,
                format!(
                    "turn started at line {} has no turn.completed or turn.failed ({why})",
                    s.line
                ),
            ));
        }
        for (id, o) in self.items.drain() {
            out.push(self.at_opened(
                Code::ToolOrphanUse,
                &o,
                format!(
                    "item {} ({}) started at line {} never completed ({why})",
                    printable(&id),
                    printable(&o.label),
                    o.line
                ),
            ));
        }
    }

    // ---- Gemini CLI, Cursor, OpenCode, Copilot ----

    /// Opens a tool call (`id`, named `name`).
    fn open_tool(&mut self, id: &str, name: &str, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        let opened = at.opened(self.labels.get(name));
        if self.tools.insert(id, opened) {
            out.push(self.capped(
                Code::ToolOrphanUse,
                Severity::Warning,
                at,
                "open tool calls",
            ));
        }
    }

    /// Closes a tool call; an error result is TOOL_ERROR, an answer to nothing an orphan.
    fn close_tool(&mut self, id: &str, is_error: bool, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        match self.tools.remove(id) {
            Some(o) => {
                if is_error {
                    out.push(at.diag(
                        Code::ToolError,
                        format!(
                            "tool_result for {} ({}, line {}) is an error",
                            printable(id),
                            printable(&o.label),
                            o.line
                        ),
                    ));
                }
            }
            None => {
                if is_error {
                    out.push(at.diag(
                        Code::ToolError,
                        format!("tool_result for {} is an error", printable(id)),
                    ));
                }
                if !self.tools.capped {
                    out.push(at.diag(
                        Code::ToolOrphanResult,
                        format!(
                            "tool_result for {}: no tool_use with that id before",
                            printable(id)
                        ),
                    ));
                }
            }
        }
    }

    /// A record of a session that has begun: opens it if it is not open (reporting a
    /// missing start once, where the dialect has one).
    fn session_record(&mut self, has_init: bool, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        if has_init && !self.saw_init && !self.reported_no_init {
            self.reported_no_init = true;
            let ty = at.record.info.ty.unwrap_or("(none)");
            out.push(at.diag(
                Code::SessNoInit,
                format!(
                    "`{}` before any init: the session has no start",
                    printable(ty)
                ),
            ));
        }
        if self.open_session.is_none() {
            self.open_session = Some(at.opened(self.labels.get("")));
        }
    }

    /// The session's terminal event: closes it, and reports it when it is an error.
    fn session_end(&mut self, error: Option<String>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        self.open_session = None;
        if let Some(why) = error {
            let why: String = why.chars().take(160).collect();
            out.push(at.diag(
                Code::SessErrorResult,
                format!("the session ended in an error: {}", printable(&why)),
            ));
        }
    }

    fn track_gemini(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        let str_at = |k: &str| value.get(k).and_then(|v| v.as_str());
        let Some(ty) = at.record.info.ty else {
            // The `-o json` document: a whole session in one record.
            if crate::dialect::gemini::is_document(value) {
                self.saw_init = true;
                self.session_record(true, at, out);
                let error = value
                    .get("error")
                    .filter(|e| e.kind() == Kind::Object)
                    .map(|e| {
                        e.get("message")
                            .and_then(|m| m.as_str())
                            .unwrap_or("error")
                            .to_string()
                    });
                self.session_end(error, at, out);
            }
            return;
        };
        if ty == "init" {
            self.saw_init = true;
            self.open_session = Some(at.opened(self.labels.get("")));
            return;
        }
        self.session_record(true, at, out);
        match ty {
            "tool_use" => {
                if let Some(id) = str_at("tool_id") {
                    self.open_tool(id, str_at("tool_name").unwrap_or("?"), at, out);
                }
            }
            "tool_result" => {
                if let Some(id) = str_at("tool_id") {
                    let failed = str_at("status") == Some("error")
                        || str_at("output").is_some_and(crate::event::reports_failure);
                    self.close_tool(id, failed, at, out);
                }
            }
            "result" => {
                let status = str_at("status").unwrap_or("?");
                let error = (status != "success").then(|| {
                    let message = value
                        .path(&["error", "message"])
                        .and_then(|m| m.as_str())
                        .unwrap_or("");
                    format!("status `{status}` {message}")
                        .trim_end()
                        .to_string()
                });
                self.session_end(error, at, out);
            }
            _ => {}
        }
    }

    fn track_cursor_tool(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        if at.record.info.ty != Some("tool_call") {
            return;
        }
        let Some(id) = value.get("call_id").and_then(|v| v.as_str()) else {
            return;
        };
        let mut name = None;
        let mut failed = false;
        if let Some(call) = value.get("tool_call") {
            call.for_each_entry(|k, inner| {
                if name.is_none() {
                    name = Some(k.strip_suffix("ToolCall").unwrap_or(k));
                    let result = inner.get("result");
                    failed = result.is_some_and(|r| r.has("failure") || r.has("error"))
                        || result
                            .and_then(|r| r.path(&["success", "exitCode"]))
                            .and_then(|c| c.as_f64())
                            .is_some_and(|c| c != 0.0);
                }
            });
        }
        match at.record.info.subtype {
            Some("started") => self.open_tool(id, name.unwrap_or("?"), at, out),
            Some("completed") => self.close_tool(id, failed, at, out),
            _ => {}
        }
    }

    fn track_opencode(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        let ty = at.record.info.ty.unwrap_or_default();
        // OpenCode has no init: every record belongs to the run it names.
        self.session_record(false, at, out);
        match ty {
            "tool_use" => {
                let part = value.get("part");
                let id = part.and_then(|p| p.get("callID")).and_then(|v| v.as_str());
                let Some(id) = id else { return };
                let name = part
                    .and_then(|p| p.get("tool"))
                    .and_then(|v| v.as_str())
                    .unwrap_or("?");
                let state = part.and_then(|p| p.get("state"));
                let status = state.and_then(|s| s.get("status")).and_then(|v| v.as_str());
                if !self.tools.contains(id) {
                    self.open_tool(id, name, at, out);
                }
                if matches!(status, Some("completed" | "error")) {
                    let exit = state
                        .and_then(|s| s.path(&["metadata", "exit"]))
                        .and_then(|c| c.as_f64());
                    let failed = status == Some("error") || exit.is_some_and(|c| c != 0.0);
                    self.close_tool(id, failed, at, out);
                }
            }
            "error" => {
                let e = value.get("error");
                let message = e
                    .and_then(|e| e.path(&["data", "message"]))
                    .and_then(|m| m.as_str())
                    .or_else(|| e.and_then(|e| e.get("name")).and_then(|n| n.as_str()))
                    .unwrap_or("error");
                self.session_end(Some(message.to_string()), at, out);
            }
            _ if crate::dialect::opencode::ends_run(value, ty) => self.session_end(None, at, out),
            _ => {}
        }
    }

    fn track_copilot(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        let ty = at.record.info.ty.unwrap_or_default();
        self.session_record(false, at, out);
        let data = value.get("data");
        let data_str = |k: &str| data.and_then(|d| d.get(k)).and_then(|v| v.as_str());
        match ty {
            "tool.execution_start" => {
                if let Some(id) = data_str("toolCallId") {
                    self.open_tool(id, data_str("toolName").unwrap_or("?"), at, out);
                }
            }
            "tool.execution_complete" => {
                if let Some(id) = data_str("toolCallId") {
                    let failed = data
                        .and_then(|d| d.get("success"))
                        .and_then(|s| s.as_bool())
                        == Some(false);
                    self.close_tool(id, failed, at, out);
                }
            }
            "result" => {
                let code = value.get("exitCode").and_then(|c| c.as_f64());
                let error = match code {
                    Some(c) => (c != 0.0).then(|| format!("exitCode {c}")),
                    None => Some("no exitCode".to_string()),
                };
                self.session_end(error, at, out);
            }
            _ => {}
        }
    }

    // ---- JSON-RPC ----

    fn track_rpc(&mut self, value: Json<'_>, at: &At<'_, '_>, out: &mut Vec<Diagnostic>) {
        let Some(id) = value.get("id") else { return };
        let key = id.to_compact_string();
        if let Some(method) = value.get("method") {
            let method = self.labels.get(method.as_str().unwrap_or("?"));
            if let Some(first) = self.requests.get(&key) {
                out.push(at.diag(
                    Code::RpcDuplicateId,
                    format!(
                        "request id {} reused while the request at line {} ({}) is still open",
                        printable(&key),
                        first.line,
                        printable(&first.label)
                    ),
                ));
            }
            if self.requests.insert(&key, at.opened(method)) {
                out.push(self.capped(Code::RpcUnanswered, Severity::Warning, at, "open requests"));
            }
        } else if (value.has("result") || value.has("error"))
            && self.requests.remove(&key).is_none()
            && !self.requests.capped
        {
            out.push(at.diag(
                Code::RpcUnmatchedResponse,
                format!(
                    "response id {}: no open request with that id",
                    printable(&key)
                ),
            ));
        }
    }
}

/// The record a diagnostic is about.
struct At<'r, 'a> {
    record: &'r Record<'a>,
}

impl At<'_, '_> {
    fn diag(&self, code: Code, message: String) -> Diagnostic {
        Diagnostic {
            file: self.record.file.clone(),
            line: self.record.line,
            column: None,
            offset: self.record.offset,
            code,
            severity: code.severity(),
            message,
            excerpt: excerpt(trim_newline(self.record.raw), None),
        }
    }

    fn opened(&self, label: Arc<str>) -> Opened {
        Opened {
            line: self.record.line,
            offset: self.record.offset,
            label,
        }
    }
}

fn trim_newline(raw: &[u8]) -> &[u8] {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    raw.strip_suffix(b"\r").unwrap_or(raw)
}

/// As a consumer, the tracker keeps what it finds for [`GapTracker::take_found`].
impl Consumer for GapTracker {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.begin(file);
        Ok(())
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        let mut found = std::mem::take(&mut self.found);
        self.track(record, &mut found);
        self.found = found;
        Ok(Flow::Continue)
    }

    fn end_input(&mut self, _file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        let mut found = std::mem::take(&mut self.found);
        self.end(dialect, &mut found);
        self.found = found;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Options, Pipeline};

    /// The tracked set against a plain list in opening order, through random opens,
    /// re-opens, closes and evictions: same entries, same order, bounded queue.
    #[test]
    fn tracked_set_matches_a_plain_list() {
        let mut t = Tracked::new(50);
        let mut model: Vec<(String, u64)> = Vec::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = format!("k{}", x % 97);
            let opened = Opened {
                line: step,
                offset: 0,
                label: Arc::from(""),
            };
            if x.is_multiple_of(3) {
                let got = t.remove(&key).map(|o| o.line);
                let want = model
                    .iter()
                    .position(|(k, _)| *k == key)
                    .map(|i| model.remove(i).1);
                assert_eq!(got, want, "remove {key} at {step}");
            } else {
                let capped = t.insert(&key, opened);
                model.retain(|(k, _)| *k != key);
                let mut dropped = false;
                if model.len() >= 50 {
                    model.remove(0);
                    dropped = true;
                }
                model.push((key.clone(), step));
                assert!(!capped || dropped);
            }
            assert_eq!(
                t.get(&key).map(|o| o.line),
                model.iter().find(|(k, _)| *k == key).map(|e| e.1)
            );
            assert!(
                t.slots.len() <= 2 * t.by_key.len() + 65,
                "holes are compacted"
            );
        }
        let rest: Vec<(String, u64)> = t
            .drain()
            .into_iter()
            .map(|(k, o)| (k.to_string(), o.line))
            .collect();
        assert_eq!(rest, model);
    }

    fn gaps(text: &str, cap: usize) -> Vec<(u64, Code, String)> {
        let mut pipeline = Pipeline::new(Options::default());
        let mut tracker = GapTracker::with_cap(None, cap);
        let name: Arc<str> = Arc::from("t");
        pipeline
            .run(&name, text.as_bytes(), &mut tracker)
            .expect("reads");
        tracker
            .take_found()
            .into_iter()
            .map(|d| (d.line, d.code, d.message))
            .collect()
    }

    #[test]
    fn sequence_gaps_duplicates_and_disorder() {
        let text = "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":5}\n{\"seq\":5}\n{\"seq\":3}\n{\"seq\":7}\n";
        let got = gaps(text, DEFAULT_CAP);
        let codes: Vec<(u64, Code)> = got.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            codes,
            [
                (3, Code::SeqGap),
                (4, Code::SeqDuplicate),
                (5, Code::SeqOutOfOrder),
                (6, Code::SeqGap)
            ]
        );
        assert!(got[0].2.contains("missing 3-4"), "{got:?}");
        assert!(got[3].2.contains("missing 6"), "{got:?}");
    }

    #[test]
    fn rpc_ids_are_values_and_the_cap_drops_the_oldest() {
        let text = "{\"id\":1,\"method\":\"a\"}\n{\"id\":\"1\",\"result\":{}}\n{\"id\":2,\"method\":\"b\"}\n{\"id\":3,\"method\":\"c\"}\n";
        let got = gaps(text, 2);
        let codes: Vec<(u64, Code)> = got.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            codes,
            [
                (2, Code::RpcUnmatchedResponse),
                (4, Code::RpcUnanswered),
                (3, Code::RpcUnanswered),
                (4, Code::RpcUnanswered),
            ]
        );
        assert!(got
            .iter()
            .any(|(_, _, m)| m.contains("more than 2 open requests")));
    }
}
