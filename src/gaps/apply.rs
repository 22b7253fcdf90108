//! What the trackers make of a record's operations: [`GapTracker::apply`] takes them in
//! order, one step per kind of operation (the sequence, the parent chain, the session,
//! tool calls, items of a process's work, JSON-RPC requests), each pushing the findings it
//! makes onto `out`.

use super::op::{NoInit, Op, SeqValues};
use super::tracked::Opened;
use super::tracker::{At, GapTracker};
use super::{SEQ_DETECTION_WINDOW, SEQ_FIELDS};
use crate::capped::Key;
use crate::diagnostic::{printable, Code, Diagnostic, Severity};
use std::sync::Arc;

impl GapTracker {
    /// Applies a record's operations (every record the trackers look at, with or without
    /// any: the sequence field is looked for on a window of records).
    pub(super) fn apply(&mut self, ops: &[Op], text: &str, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        let seq = match ops.first() {
            Some(Op::Seq(values)) => *values,
            _ => [None; 3],
        };
        self.track_seq(seq, at, out);
        for op in ops {
            match op {
                Op::Seq(_) => {}
                Op::Chain {
                    sidechain,
                    parent,
                    uuid,
                } => self.chain(
                    *sidechain,
                    parent.map(|p| p.of(text)),
                    uuid.map(|u| u.of(text)),
                    at,
                    out,
                ),
                Op::Init => self.saw_init = true,
                Op::SessionStart { id } => self.session_start(id.of(text), at, out),
                Op::NoInit(kind) => self.no_init(kind, text, at, out),
                Op::Open { replace } => self.session_open(*replace, at),
                Op::End(error) => self.session_end(error.map(|m| m.of(text)), at, out),
                Op::ProcessStart { turn_ends } => self.process_start(turn_ends, out),
                Op::OpenTool { id, name } => {
                    self.open_tool(self.key(id.of(text)), name.of(text), at, out)
                }
                Op::CloseTool { id, failed } => {
                    self.close_tool(self.key(id.of(text)), *failed, at, out)
                }
                Op::ToolState { id, name, ended } => {
                    self.tool_state(self.key(id.of(text)), name.of(text), *ended, at, out)
                }
                Op::OpenItem { id, kind } => {
                    self.open_item(self.key(id.of(text)), kind.of(text), at, out)
                }
                Op::CloseItem { id, failed } => {
                    self.close_item(self.key(id.of(text)), failed.map(|n| n.of(text)), at, out)
                }
                Op::Request { key, method } => {
                    self.request(self.key(key.of(text)), method.of(text), at, out)
                }
                Op::Response { key } => self.response(self.key(key.of(text)), at, out),
            }
        }
    }

    // ---- the parent chain ----

    /// A record's place in a parent chain: a parent never seen in the input (unless the
    /// record is a sidechain's, or the uuids' set is full) is a broken chain; its uuid is
    /// kept for the records after it.
    fn chain(
        &mut self,
        sidechain: bool,
        parent: Option<&str>,
        uuid: Option<&str>,
        at: &At<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        if sidechain {
            self.sidechain = true;
        }
        if let Some(parent) = parent {
            // A parent is nearly always the record before: its uuid, the last one added,
            // is in the set without a lookup.
            if !self.sidechain
                && !self.uuids.is_capped()
                && self.last_uuid.as_deref() != Some(parent)
                && !self.uuids.contains(self.key(parent))
            {
                out.push(at.diag(
                    Code::SeqGap,
                    format!(
                        "parentUuid {} never appeared (broken chain)",
                        printable(parent)
                    ),
                ));
            }
        }
        // Once the set of uuids is full, parents are no longer checked (it reported so),
        // so nothing reads it again in this input: the uuids after that are not kept,
        // which on a long stream is most of them.
        if let Some(uuid) = uuid.filter(|_| !self.uuids.is_capped()) {
            let opened = at.opened(self.labels.get(""));
            let last = self.last_uuid.get_or_insert_with(String::new);
            last.clear();
            last.push_str(uuid);
            if self.uuids.insert(self.key(uuid), opened) {
                out.push(self.capped(Code::SeqGap, Severity::Info, at, "uuids"));
            }
        }
    }

    // ---- the session ----

    /// A session start naming its session: a session of another id still open is cut
    /// off there.
    fn session_start(&mut self, id: &str, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        match self.open_session.take() {
            Some(o) if !o.label.is_empty() && &*o.label != id => {
                out.push(self.at_opened(
                    Code::SessNoResult,
                    &o,
                    format!(
                        "session that began at line {} has no result (session {} began at \
                         line {})",
                        o.line,
                        printable(id),
                        at.line
                    ),
                ));
                self.open_session = Some(at.opened(Arc::from(id)));
            }
            // The same session's start again, or one opened before its start: still open,
            // now knowing its id.
            Some(o) => {
                self.open_session = Some(Opened {
                    label: Arc::from(id),
                    ..o
                })
            }
            None => self.open_session = Some(at.opened(Arc::from(id))),
        }
    }

    /// A record that needs a session start before it: SESS_NO_INIT, once an input.
    fn no_init(&mut self, kind: &NoInit, text: &str, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        if !self.saw_init && !self.reported_no_init {
            self.reported_no_init = true;
            out.push(at.diag(Code::SessNoInit, kind.message(text)));
        }
    }

    /// The session is open from here: always (`replace`), or unless one is open.
    fn session_open(&mut self, replace: bool, at: &At<'_>) {
        if replace || self.open_session.is_none() {
            self.open_session = Some(at.opened(self.labels.get("")));
        }
    }

    /// The session ends here, in an error when there is a message.
    fn session_end(&mut self, error: Option<&str>, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        self.open_session = None;
        if let Some(message) = error {
            out.push(at.diag(Code::SessErrorResult, message.to_string()));
        }
    }

    /// A new agent process in the same stream (a resumed run): what the last one left
    /// open stays open for good, and item ids start again.
    fn process_start(&mut self, turn_ends: &str, out: &mut Vec<Diagnostic>) {
        if self.saw_init {
            self.close_process(out, turn_ends, "the process ended");
        }
        self.answered.clear();
        self.saw_init = true;
    }

    // ---- items of a process's work ----

    /// An item starts (`kind`: what it is).
    fn open_item(&mut self, id: Key<'_>, kind: &str, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        let opened = at.opened(self.labels.get(kind));
        if self.items.insert(id, opened) {
            out.push(self.capped(Code::ToolOrphanUse, Severity::Warning, at, "open items"));
        }
    }

    /// An item completes: `failed` names a tool item that failed.
    fn close_item(
        &mut self,
        id: Key<'_>,
        failed: Option<&str>,
        at: &At<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        let opened = self.items.remove(id);
        if let Some(name) = failed {
            self.tool_failed(id, name, opened.map(|o| o.line), at, out);
        }
    }

    // ---- JSON-RPC ----

    /// A request: its id reused while a request of that id is open is RPC_DUPLICATE_ID.
    fn request(&mut self, key: Key<'_>, method: &str, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        let method = self.labels.get(method);
        if let Some(first) = self.requests.get(key) {
            out.push(at.diag(
                Code::RpcDuplicateId,
                format!(
                    "request id {} reused while the request at line {} ({}) is still open",
                    printable(key.text),
                    first.line,
                    printable(&first.label)
                ),
            ));
        }
        if self.requests.insert(key, at.opened(method)) {
            out.push(self.capped(Code::RpcUnanswered, Severity::Warning, at, "open requests"));
        }
    }

    /// A response: one to no open request is RPC_UNMATCHED_RESPONSE (unless the set of
    /// requests is full, when it may answer one dropped).
    fn response(&mut self, key: Key<'_>, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        if self.requests.remove(key).is_none() && !self.requests.is_capped() {
            out.push(at.diag(
                Code::RpcUnmatchedResponse,
                format!(
                    "response id {}: no open request with that id",
                    printable(key.text)
                ),
            ));
        }
    }

    // ---- sequence numbers ----

    fn track_seq(&mut self, values: SeqValues, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        let n = if self.seq_field.is_some() {
            values[0]
        } else if let Some(i) = self.seq.detected {
            values[i]
        } else {
            if self.seq.looked_at >= SEQ_DETECTION_WINDOW {
                return;
            }
            self.seq.looked_at += 1;
            let found = values.iter().position(Option::is_some);
            if let Some(i) = found {
                self.seq.detected = Some(i);
                self.seq.field = Some(SEQ_FIELDS[i].to_string());
            }
            found.and_then(|i| values[i])
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

    /// What an agent process left open: its turn (which lacks one of `turn_ends`) and its
    /// started items.
    pub(super) fn close_process(&mut self, out: &mut Vec<Diagnostic>, turn_ends: &str, why: &str) {
        if let Some(s) = self.open_session.take() {
            out.push(self.at_opened(
                Code::SessNoResult,
                &s,
                format!("turn started at line {} has no {turn_ends} ({why})", s.line),
            ));
        }
        for (id, o) in self.items.drain() {
            out.push(self.at_opened(
                Code::ToolOrphanUse,
                &o,
                format!(
                    "item {} ({}) started at line {} never completed ({why})",
                    printable(id.as_str()),
                    printable(&o.label),
                    o.line
                ),
            ));
        }
    }

    // ---- tool calls ----

    /// Opens a tool call (`id`, named `name`).
    fn open_tool(&mut self, id: Key<'_>, name: &str, at: &At<'_>, out: &mut Vec<Diagnostic>) {
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

    /// A failed tool call: TOOL_ERROR, once per call (`name` and the line it was opened at
    /// when known).
    fn tool_failed(
        &mut self,
        id: Key<'_>,
        name: &str,
        line: Option<u64>,
        at: &At<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        if self.answered.contains(id) {
            return;
        }
        let message = match line {
            Some(line) => format!(
                "tool_result for {} ({}, line {line}) is an error",
                printable(id.text),
                printable(name)
            ),
            None if name.is_empty() => {
                format!("tool_result for {} is an error", printable(id.text))
            }
            None => format!("{} call {} failed", printable(name), printable(id.text)),
        };
        out.push(at.diag(Code::ToolError, message));
        self.answered.insert(id, at.line);
    }

    /// Closes a tool call; an error result is TOOL_ERROR, an answer to nothing an orphan.
    fn close_tool(&mut self, id: Key<'_>, is_error: bool, at: &At<'_>, out: &mut Vec<Diagnostic>) {
        match self.tools.remove(id) {
            Some(o) => {
                if is_error {
                    self.tool_failed(id, &o.label, Some(o.line), at, out);
                } else {
                    self.answered.insert(id, at.line);
                }
            }
            None if self.answered.get(id) == Some(&at.line) => {
                // The same answer twice in one record (a message may repeat a tool_result
                // block): reported with the first.
            }
            None => {
                // An error answered before is reported once (the ids of a copied session
                // come again); the answer to a call not open is still an orphan.
                if is_error {
                    self.tool_failed(id, "", None, at, out);
                }
                if !self.tools.is_capped() {
                    out.push(at.diag(
                        Code::ToolOrphanResult,
                        format!(
                            "tool_result for {}: no tool_use with that id before",
                            printable(id.text)
                        ),
                    ));
                }
            }
        }
    }

    /// A tool call's whole state, in a record written again whole each time it changes:
    /// opened unless it is open or was answered in this input, and closed when `ended`
    /// says how it ended, once.
    fn tool_state(
        &mut self,
        id: Key<'_>,
        name: &str,
        ended: Option<bool>,
        at: &At<'_>,
        out: &mut Vec<Diagnostic>,
    ) {
        if !self.answered.contains(id) {
            if !self.tools.contains(id) {
                self.open_tool(id, name, at, out);
            }
            if let Some(failed) = ended {
                self.close_tool(id, failed, at, out);
            }
        }
    }
}
