//! The tracker: its state per input (the sets of what is open, the session, the sequence),
//! the inputs set aside while another is read (`--follow`), what a record tells it
//! ([`GapTracker::track`]: the record's operations, then `apply.rs`) and what an input's
//! end leaves open ([`GapTracker::ending`]).

use super::op::{InputEnd, Op};
use super::tracked::{Labels, Opened, Tracked};
use super::{DEFAULT_CAP, SEQ_FIELDS};
use crate::capped::{Hasher, Key, KeyText};
use crate::diagnostic::{excerpt, printable, Code, Diagnostic, Severity};
use crate::dialect::{Dialect, RecordInfo};
use crate::json::Json;
use crate::pipeline::{Consumer, Flow, Record, Status};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::Arc;

/// What an input left open when it ended ([`GapTracker::ending`]): the session's findings,
/// then the open tool calls and unanswered requests, each in the order they were opened,
/// which is line order (an entry is opened at the record being applied, and records are
/// applied in order; one opened again moves to the back with its new line).
#[derive(Debug, Default)]
pub struct Ending {
    first: VecDeque<Diagnostic>,
    tools: VecDeque<(KeyText, Opened)>,
    requests: VecDeque<(KeyText, Opened)>,
}

/// The numeric sequence of one input.
#[derive(Debug, Default)]
pub(super) struct Sequence {
    pub(super) field: Option<String>,
    /// The auto-detected field's index in [`SEQ_FIELDS`].
    pub(super) detected: Option<usize>,
    pub(super) max: Option<u64>,
    pub(super) looked_at: u64,
}

/// Tracks gaps over the records of one input at a time. See the module documentation.
#[derive(Debug)]
pub struct GapTracker {
    pub(super) seq_field: Option<String>,
    pub(super) cap: usize,
    pub(super) file: Arc<str>,
    pub(super) seq: Sequence,
    pub(super) tools: Tracked,
    /// Tool calls answered already: a second answer to one is no second TOOL_ERROR (a
    /// call's error counts once, as in `stats`). Only the line of the answer is kept: on a
    /// long stream this set is full, and each call answered is written into it (a slot of
    /// 56 bytes rather than 80: docs/PERFORMANCE.md, "validate --gaps on the calling
    /// thread").
    pub(super) answered: Tracked<u64>,
    pub(super) items: Tracked,
    pub(super) requests: Tracked,
    pub(super) uuids: Tracked,
    /// The uuid last added to `uuids` in this input.
    pub(super) last_uuid: Option<String>,
    pub(super) sidechain: bool,
    /// A session start ([`Op::Init`], [`Op::ProcessStart`]) was seen in this input.
    pub(super) saw_init: bool,
    /// SESS_NO_INIT was reported in this input.
    pub(super) reported_no_init: bool,
    /// The open session (or a process's turn): where it began.
    pub(super) open_session: Option<Opened>,
    /// Diagnostics found and not yet taken (the [`Consumer`] use).
    pub(super) found: Vec<Diagnostic>,
    pub(super) labels: Labels,
    /// Hashes the sets' keys, once per operation ([`GapTracker::key`]).
    pub(super) hasher: Hasher,
    /// Between [`GapTracker::begin`] and [`GapTracker::end`]: records are tracked as they
    /// come. Otherwise (a worker reading a block) [`GapTracker::see`] collects their facts.
    pub(super) following: bool,
    /// Reused list of a record's operations, and their strings.
    scratch: (Vec<Op>, String),
    /// Inputs paused while another is read (`--follow`), by name: what each one tracks,
    /// set aside until it resumes ([`GapTracker::pause`]).
    paused: HashMap<Arc<str>, InputState>,
}

/// What the tracker keeps of one input, set aside while another input is read.
#[derive(Debug)]
struct InputState {
    seq: Sequence,
    tools: Tracked,
    answered: Tracked<u64>,
    items: Tracked,
    requests: Tracked,
    uuids: Tracked,
    last_uuid: Option<String>,
    sidechain: bool,
    saw_init: bool,
    reported_no_init: bool,
    open_session: Option<Opened>,
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
            answered: Tracked::new(cap),
            items: Tracked::new(cap),
            requests: Tracked::new(cap),
            uuids: Tracked::new(cap),
            last_uuid: None,
            sidechain: false,
            saw_init: false,
            reported_no_init: false,
            open_session: None,
            found: Vec::new(),
            labels: Labels::default(),
            hasher: Hasher::default(),
            following: false,
            scratch: (Vec::new(), String::new()),
            paused: HashMap::new(),
        }
    }

    /// The current input pauses while another one is read (`--follow`): what it tracks is
    /// set aside, whole, for [`GapTracker::resume`]; nothing is reported. Two sessions
    /// written in turns are tracked as if each file were read alone.
    pub fn pause(&mut self) {
        if !self.following {
            return;
        }
        self.following = false;
        let cap = self.cap;
        let state = InputState {
            seq: std::mem::take(&mut self.seq),
            tools: std::mem::replace(&mut self.tools, Tracked::new(cap)),
            answered: std::mem::replace(&mut self.answered, Tracked::new(cap)),
            items: std::mem::replace(&mut self.items, Tracked::new(cap)),
            requests: std::mem::replace(&mut self.requests, Tracked::new(cap)),
            uuids: std::mem::replace(&mut self.uuids, Tracked::new(cap)),
            last_uuid: self.last_uuid.take(),
            sidechain: std::mem::take(&mut self.sidechain),
            saw_init: std::mem::take(&mut self.saw_init),
            reported_no_init: std::mem::take(&mut self.reported_no_init),
            open_session: self.open_session.take(),
        };
        self.paused.insert(self.file.clone(), state);
    }

    /// A paused input goes on where it was; an input never paused begins.
    pub fn resume(&mut self, file: &Arc<str>) {
        let Some(s) = self.paused.remove(file) else {
            return self.begin(file);
        };
        self.following = true;
        self.file = file.clone();
        self.seq = s.seq;
        self.tools = s.tools;
        self.answered = s.answered;
        self.items = s.items;
        self.requests = s.requests;
        self.uuids = s.uuids;
        self.last_uuid = s.last_uuid;
        self.sidechain = s.sidechain;
        self.saw_init = s.saw_init;
        self.reported_no_init = s.reported_no_init;
        self.open_session = s.open_session;
    }

    /// A paused input's file was renamed: it resumes under its new name.
    pub fn rename(&mut self, from: &Arc<str>, to: &Arc<str>) {
        if let Some(s) = self.paused.remove(from) {
            self.paused.insert(to.clone(), s);
        }
    }

    /// A new input begins: nothing carries over from the one before.
    pub fn begin(&mut self, file: &Arc<str>) {
        if !self.paused.is_empty() {
            self.paused.remove(file);
        }
        self.following = true;
        self.file = file.clone();
        self.seq = Sequence {
            field: self.seq_field.clone(),
            ..Sequence::default()
        };
        self.tools.clear();
        self.answered.clear();
        self.items.clear();
        self.requests.clear();
        self.uuids.clear();
        self.last_uuid = None;
        self.sidechain = false;
        self.saw_init = false;
        self.reported_no_init = false;
        self.open_session = None;
    }

    /// Looks at one record; the gaps it reveals are pushed onto `out`.
    pub fn track(&mut self, record: &Record<'_>, out: &mut Vec<Diagnostic>) {
        let Some(value) = tracked_value(record) else {
            return;
        };
        let (mut ops, mut text) = std::mem::take(&mut self.scratch);
        ops.clear();
        text.clear();
        self.extract(&record.info, value, &mut ops, &mut text);
        let at = At {
            file: record.file,
            line: record.line,
            offset: record.offset,
            raw: trim_newline(record.raw),
        };
        self.apply(&ops, &text, &at, out);
        self.scratch = (ops, text);
    }

    /// The input ended: what was opened and never closed, in the order of the lines that
    /// opened it, is pushed onto `out`.
    pub fn end(&mut self, dialect: Option<Dialect>, out: &mut Vec<Diagnostic>) {
        let mut ending = self.ending(dialect);
        while self.next_found(&mut ending, out, usize::MAX) {}
    }

    /// The input ended: takes what it left open, whose findings [`GapTracker::next_found`]
    /// then gives in line order, a chunk at a time, so a full set of open calls (100,000)
    /// is never held as that many diagnostics at once.
    pub fn ending(&mut self, dialect: Option<Dialect>) -> Ending {
        self.ending_as(dialect.map_or(InputEnd::Nothing, Dialect::input_end))
    }

    /// [`GapTracker::ending`] of an input whose end leaves `owed` unfinished.
    pub(super) fn ending_as(&mut self, owed: InputEnd) -> Ending {
        self.following = false;
        let mut first = Vec::new();
        match owed {
            InputEnd::SessionResult => {
                if let Some(s) = self.open_session.take() {
                    first.push(self.at_opened(
                        Code::SessNoResult,
                        &s,
                        format!(
                            "session that began at line {} has no result (stream ended)",
                            s.line
                        ),
                    ));
                }
            }
            InputEnd::Process { turn_ends } => {
                self.close_process(&mut first, turn_ends, "stream ended")
            }
            InputEnd::Nothing => {}
        }
        self.uuids.clear();
        self.last_uuid = None;
        first.sort_by_key(|d| d.line);
        Ending {
            first: first.into(),
            tools: self.tools.drain().into(),
            requests: self.requests.drain().into(),
        }
    }

    /// Pushes up to `max` more findings of `ending` onto `out`, in line order (at a tie:
    /// the session, then tool calls, then requests); whether any are left.
    pub fn next_found(&self, ending: &mut Ending, out: &mut Vec<Diagnostic>, max: usize) -> bool {
        for _ in 0..max {
            let first = ending.first.front().map(|d| d.line);
            let next = [ending.tools.front(), ending.requests.front()]
                .into_iter()
                .flatten()
                .map(|(_, o)| o.line)
                .min();
            let d = match (first, next) {
                (Some(f), Some(n)) if f <= n => ending.first.pop_front(),
                (Some(_), None) => ending.first.pop_front(),
                _ => self.next_merged(ending),
            };
            match d {
                Some(d) => out.push(d),
                None => return false,
            }
        }
        !(ending.first.is_empty() && ending.tools.is_empty() && ending.requests.is_empty())
    }

    /// The earlier of the next open tool call and the next unanswered request (the tool
    /// call at a tie), as its finding.
    fn next_merged(&self, ending: &mut Ending) -> Option<Diagnostic> {
        let tool_first = match (ending.tools.front(), ending.requests.front()) {
            (Some(t), Some(r)) => t.1.line <= r.1.line,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if tool_first {
            let (id, o) = ending.tools.pop_front()?;
            return Some(self.at_opened(
                Code::ToolOrphanUse,
                &o,
                format!(
                    "tool_use {} ({}) at line {} has no result",
                    printable(id.as_str()),
                    printable(&o.label),
                    o.line
                ),
            ));
        }
        let (id, o) = ending.requests.pop_front()?;
        Some(self.at_opened(
            Code::RpcUnanswered,
            &o,
            format!(
                "request id {} ({}) at line {} was never answered",
                printable(id.as_str()),
                printable(&o.label),
                o.line
            ),
        ))
    }

    /// Takes what was found since the last call (when used as a [`Consumer`]).
    pub fn take_found(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.found)
    }

    /// A key of the tracked sets, hashed once for every set it is looked up in.
    pub(super) fn key<'s>(&self, text: &'s str) -> Key<'s> {
        Key::new(text, &self.hasher)
    }

    pub(super) fn at_opened(&self, code: Code, o: &Opened, message: String) -> Diagnostic {
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

    pub(super) fn capped(
        &self,
        code: Code,
        severity: Severity,
        at: &At<'_>,
        what: &str,
    ) -> Diagnostic {
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

    // ---- what a record tells the trackers (no state) ----

    /// The record's facts, pushed onto `ops` in the order the trackers take them: its
    /// sequence candidates first (when it has any), then what its dialect says. A reader
    /// that walks every record's keys anyway finds the sequence candidates in that walk
    /// ([`seq_op`](super::seq_op)) and says so; for the others they are looked up here.
    pub(super) fn extract(
        &self,
        info: &RecordInfo<'_>,
        value: Json<'_>,
        ops: &mut Vec<Op>,
        text: &mut String,
    ) {
        let start = ops.len();
        let walked = info
            .dialect
            .is_some_and(|d| d.gap_ops(info, value, ops, text));
        let seq = match &self.seq_field {
            Some(f) => {
                if walked && matches!(ops.get(start), Some(Op::Seq(_))) {
                    ops.remove(start);
                }
                [value.get(f).and_then(|v| v.as_u64()), None, None]
            }
            None if walked => return,
            None => value
                .get_many(SEQ_FIELDS)
                .map(|v| v.and_then(|v| v.as_u64())),
        };
        if seq.iter().any(Option::is_some) {
            ops.insert(start, Op::Seq(seq));
        }
    }
}

/// Where a diagnostic about a record points.
pub(super) struct At<'r> {
    pub(super) file: &'r Arc<str>,
    pub(super) line: u64,
    pub(super) offset: u64,
    /// The record without its line end, or as much of its start as its excerpt shows.
    pub(super) raw: &'r [u8],
}

impl At<'_> {
    pub(super) fn diag(&self, code: Code, message: String) -> Diagnostic {
        Diagnostic {
            file: self.file.clone(),
            line: self.line,
            column: None,
            offset: self.offset,
            code,
            severity: code.severity(),
            message,
            excerpt: excerpt(self.raw, None),
        }
    }

    pub(super) fn opened(&self, label: Arc<str>) -> Opened {
        Opened {
            line: self.line,
            offset: self.offset,
            label,
        }
    }
}

pub(super) fn trim_newline(raw: &[u8]) -> &[u8] {
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

/// The value the trackers look at: a valid record's, when it is an object.
pub(super) fn tracked_value<'a>(record: &Record<'a>) -> Option<Json<'a>> {
    if record.status != Status::Valid {
        return None;
    }
    record.value.filter(|v| v.is_object())
}
