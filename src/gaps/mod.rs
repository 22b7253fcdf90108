//! Gap trackers: what is missing or unmatched in a stream as a whole, rather than wrong
//! with one record (docs/REFERENCE.md, "Gaps findings": the SEQ_, SESS_, TOOL_ and
//! RPC_ codes).
//!
//! A [`GapTracker`] is fed the records of one input at a time, in stream order, and turns
//! what it sees into [`Diagnostic`](crate::diagnostic::Diagnostic)s: each at the record
//! where the problem becomes known (a sequence gap, a result answering nothing, an error
//! result), or at the end of the input for what was opened and never closed (located at
//! the opening record: "tool_use … at line 12 has no result"). It reads records; it does
//! not print, decode or classify them, and it never sees PROTO_ diagnostics.
//!
//! The engine knows no agent. What a record tells the trackers is its dialect's to say:
//! each agent's module reads its own records into operations ([`Op`],
//! `src/dialect/<agent>/gaps.rs`, through `Dialect::gap_ops`), and says what an input's
//! end leaves unfinished ([`InputEnd`], `Dialect::input_end`). Which records open and end
//! a session, what makes a tool call's result an error, which ids a call is matched by:
//! those rules live there. The trackers apply the operations:
//! - the sequence ([`Op::Seq`]): a numeric field (`seq_field`, or auto-detected among
//!   [`SEQ_FIELDS`] on the first records that hold one as a non-negative integer, looked
//!   up here for a dialect whose reader does not): SEQ_GAP with the missing range,
//!   SEQ_DUPLICATE (the highest value so far again), SEQ_OUT_OF_ORDER (a lower one);
//! - a parent chain ([`Op::Chain`]): a parent naming a uuid not seen before in the input
//!   is a broken chain, a SEQ_GAP ("parentUuid … never appeared (broken chain)"); not
//!   checked in a sidechain's input, which starts from another one's uuid;
//! - the session ([`Op::Init`], [`Op::SessionStart`], [`Op::NoInit`], [`Op::Open`],
//!   [`Op::End`], [`Op::ProcessStart`]): SESS_NO_INIT, SESS_NO_RESULT (at the end of the
//!   input, or when a session of another id starts), SESS_ERROR_RESULT;
//! - tool calls ([`Op::OpenTool`], [`Op::CloseTool`], [`Op::ToolState`] for a call whose
//!   record is written again whole each time it changes: opened once, answered once) and
//!   items of a process's work ([`Op::OpenItem`], [`Op::CloseItem`]): TOOL_ORPHAN_USE,
//!   TOOL_ORPHAN_RESULT, TOOL_ERROR (once a call);
//! - JSON-RPC ([`Op::Request`], [`Op::Response`], by the compact text of the id):
//!   RPC_UNANSWERED, RPC_UNMATCHED_RESPONSE, RPC_DUPLICATE_ID.
//!
//! Tracking is two steps: the operations are taken from the record alone (`op.rs`), then
//! applied to the trackers' state (`tracker.rs`, `apply.rs`). [`GapTracker::track`] does
//! both at once. Batch mode (`batch.rs`) does the first on the workers for a block of
//! records ([`GapTracker::collect`] into [`Facts`]) and the second in order on one thread
//! when the block is merged ([`GapTracker::replay`]), so the findings are those of one
//! pass while the parsing runs on every core.
//!
//! Memory is bounded: every tracked set (`tracked.rs`, on the capped set of
//! `src/capped.rs`) holds at most `cap` entries ([`DEFAULT_CAP`]). When a set is full, one
//! diagnostic says so, the oldest entry is dropped, and tracking goes on; from then on an
//! answer to nothing (or a parent never seen) may be one that was dropped, so those are no
//! longer reported for that set.

mod apply;
mod batch;
mod op;
mod tracked;
mod tracker;

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

pub use batch::Facts;
pub(crate) use op::{put, seq_op, session_error, session_record, InputEnd, Name, NoInit, Op};
pub use tracker::{Ending, GapTracker};

/// The most entries one tracked set holds (open tool calls, open requests, uuids seen).
pub const DEFAULT_CAP: usize = 100_000;

/// The fields looked at for a sequence number when none is given, in order of preference.
pub const SEQ_FIELDS: [&str; 3] = ["seq", "sequence", "event_id"];

/// How many valid records auto-detection of the sequence field looks at.
const SEQ_DETECTION_WINDOW: u64 = 64;
