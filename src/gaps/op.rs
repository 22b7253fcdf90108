//! The vocabulary: what a record tells the trackers. Each agent's module reads its own
//! records into these operations (`Dialect::gap_ops`, `src/dialect/<agent>/gaps.rs`) and
//! says what an input's end leaves unfinished ([`InputEnd`]); the trackers
//! (`tracker.rs`, `apply.rs`) apply them without knowing the agent.

use crate::diagnostic::printable;
use crate::json::Json;

/// The candidates of a record for the sequence field: the one named with `--seq-field`
/// first, else one per [`SEQ_FIELDS`](super::SEQ_FIELDS).
pub(crate) type SeqValues = [Option<u64>; 3];

/// One thing a record tells the trackers, taken from the record alone. Its strings are
/// [`Span`]s of the text buffer handed over with it ([`put`]).
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// The record's sequence candidates (first, when it has any; the trackers' own).
    Seq(SeqValues),
    /// A transcript's parent chain: the record is a sidechain's, names a parent, has a
    /// uuid (a parent never seen is a broken chain).
    Chain {
        sidechain: bool,
        parent: Option<Span>,
        uuid: Option<Span>,
    },
    /// A session start (an init record, a whole-session document).
    Init,
    /// A session start naming its session: a session of another id still open is cut off
    /// (SESS_NO_RESULT).
    SessionStart {
        id: Span,
    },
    /// A record that needs a session start before it.
    NoInit(NoInit),
    /// The session is open from here: always (`replace`), or unless one is open.
    Open {
        replace: bool,
    },
    /// The session ends here, in an error when there is a message.
    End(Option<Span>),
    /// A new agent process starts in the same stream (a resumed run): what the last one
    /// left open (its turn, which lacks one of `turn_ends`, and its started items) stays
    /// open for good, and ids start again.
    ProcessStart {
        turn_ends: &'static str,
    },
    /// A tool call opens.
    OpenTool {
        id: Span,
        name: Span,
    },
    CloseTool {
        id: Span,
        failed: bool,
    },
    /// A tool call's whole state, in a record written again whole each time it changes
    /// (the same call in several records): opened unless it is open or was answered in
    /// this input, and closed when `ended` says how it ended (failed or not), once.
    ToolState {
        id: Span,
        name: Span,
        ended: Option<bool>,
    },
    /// An item of the process's work starts (`kind`: what it is).
    OpenItem {
        id: Span,
        kind: Span,
    },
    /// An item completes: `failed` names a tool item that failed.
    CloseItem {
        id: Span,
        failed: Option<Span>,
    },
    /// A JSON-RPC request or response, by the compact text of its id.
    Request {
        key: Span,
        method: Span,
    },
    Response {
        key: Span,
    },
}

/// A record of type `ty` came before any session start, the record named `start`
/// (as the agent's records name it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoInit {
    pub(crate) ty: Name,
    pub(crate) start: &'static str,
}

/// A name an operation carries: one the reader knows (a static string), or one read from
/// the record ([`put`] in the text buffer).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Name {
    Known(&'static str),
    Read(Span),
}

impl NoInit {
    pub(super) fn message(&self, text: &str) -> String {
        let ty = match self.ty {
            Name::Known(ty) => ty,
            Name::Read(ty) => ty.of(text),
        };
        format!(
            "`{}` before any {}: the session has no start",
            printable(ty),
            self.start
        )
    }
}

/// Pushes a record's sequence candidates (the values of [`SEQ_FIELDS`](super::SEQ_FIELDS), in order, as a
/// reader found them in its own walk over the record) as its first operation, when any is
/// a non-negative integer. A reader that does so says so (`Dialect::gap_ops`).
pub(crate) fn seq_op(values: [Option<Json<'_>>; 3], ops: &mut Vec<Op>) {
    let seq = values.map(|v| v.and_then(|v| v.as_u64()));
    if seq.iter().any(Option::is_some) {
        ops.push(Op::Seq(seq));
    }
}

/// What the end of an input leaves unfinished, by dialect (`Dialect::input_end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputEnd {
    /// A session still open has no result (SESS_NO_RESULT).
    SessionResult,
    /// The stream is an agent process's output: its open turn lacks one of `turn_ends`,
    /// and its started items never completed.
    Process { turn_ends: &'static str },
    /// Nothing is owed at the end (transcripts, JSON-RPC, generic).
    Nothing,
}

/// Keeps `s` in `text`, where the facts' strings are: one buffer, not an allocation each.
pub(crate) fn put(text: &mut String, s: &str) -> Span {
    let start = text.len();
    text.push_str(s);
    let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Span {
        start: small(start),
        len: small(s.len()),
    }
}

/// A string [`put`] in a text buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    start: u32,
    len: u32,
}

impl Span {
    pub(super) fn of(self, text: &str) -> &str {
        let start = self.start as usize;
        text.get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

/// The message of a session that ended in an error (the reason cut to 160 characters).
pub(crate) fn session_error(why: &str) -> String {
    let why: String = why.chars().take(160).collect();
    format!("the session ended in an error: {}", printable(&why))
}

/// A record of a session that has begun: opens it if it is not open, after reporting
/// once a missing start where the dialect has one (`start`: the start record's name).
pub(crate) fn session_record(
    ty: Option<&str>,
    start: Option<&'static str>,
    ops: &mut Vec<Op>,
    text: &mut String,
) {
    if let Some(start) = start {
        ops.push(Op::NoInit(NoInit {
            ty: Name::Read(put(text, ty.unwrap_or("(none)"))),
            start,
        }));
    }
    ops.push(Op::Open { replace: false });
}
