//! The `state` of a JSON report, written fast: byte for byte what serde_json writes for
//! [`State`], but its two large lists (one entry per API message and per tool call,
//! megabytes on a large tree) are written by hand, and, on more than one thread, each on
//! a core of its own. On a tree of 3,000 sessions the state is 4.6 MB and, through serde,
//! the last 14 ms of a run, on one core.

use super::store::{Key, Keyed, View};
use super::{GroupBy, MessageEntry, Pricing, Report, State, Stats, ToolEntry};
use serde::Serialize;
use std::thread::ScopedJoinHandle;

impl Stats {
    /// The JSON report of `--mergeable`: its totals (with an empty `state`) and its merge state as JSON,
    /// for [`crate::sink::stats::write_json_with_state`]. With `parallel`, the state is
    /// written on other cores while the totals and breakdowns are computed.
    pub fn json_report(
        &self,
        by: Option<GroupBy>,
        pricing: &Pricing<'_>,
        parallel: bool,
    ) -> serde_json::Result<(Report, StateJson)> {
        let placeheld = |mut report: Report| {
            report.state = Some(State::default());
            report
        };
        if !parallel {
            return Ok((
                placeheld(self.report_totals(by, pricing)),
                self.to_state().to_json(false)?,
            ));
        }
        std::thread::scope(|scope| {
            let state = scope.spawn(|| self.to_state().to_json(true));
            let report = placeheld(self.report_totals(by, pricing));
            Ok((report, joined(state)?))
        })
    }
}

impl State {
    /// The state as `serde_json::to_vec` writes it, one piece per field (see
    /// [`StateJson`]). With `parallel`, the message and the tool call lists are written on
    /// two more threads while this one writes the other fields.
    pub fn to_json(&self, parallel: bool) -> serde_json::Result<StateJson> {
        std::thread::scope(|scope| {
            let (messages, tool_calls) = if parallel {
                (
                    Piece::Later(scope.spawn(|| message_list(&self.messages))),
                    Piece::Later(scope.spawn(|| tool_list(&self.tool_calls))),
                )
            } else {
                (
                    Piece::Ready(message_list(&self.messages)),
                    Piece::Ready(tool_list(&self.tool_calls)),
                )
            };
            // In declaration order, as the derived `Serialize` writes them (a test checks).
            let fields = vec![
                ("strings", serde(&self.strings)?),
                ("attrs", serde(&self.attrs)?),
                ("sessions", serde(&self.sessions)?),
                ("messages", messages),
                ("big_tokens", serde(&self.big_tokens)?),
                ("deltas", serde(&self.deltas)?),
                ("links", serde(&self.links)?),
                ("last_model", serde(&self.last_model)?),
                ("session_cwd", serde(&self.session_cwd)?),
                ("message_costs", serde(&self.message_costs)?),
                ("extra_usage", serde(&self.extra_usage)?),
                ("codex_totals", serde(&self.codex_totals)?),
                ("results", serde(&self.results)?),
                ("codex_turns", serde(&self.codex_turns)?),
                ("tool_calls", tool_calls),
                ("tool_errors", serde(&self.tool_errors)?),
                ("records_by", serde(&self.records_by)?),
            ];
            let mut fields = fields;
            if !self.rollout_sessions.is_empty() {
                fields.push(("rollout_sessions", serde(&self.rollout_sessions)?));
            }
            if !self.exec_chains.is_empty() {
                fields.push(("exec_chains", serde(&self.exec_chains)?));
            }
            if !self.inherited_responses.is_empty() {
                fields.push(("inherited_responses", serde(&self.inherited_responses)?));
            }
            if let Some(tail) = &self.tail {
                fields.push(("tail", serde(tail)?));
            }
            Ok(StateJson {
                fields: fields
                    .into_iter()
                    .map(|(name, piece)| (name, piece.bytes()))
                    .collect(),
            })
        })
    }
}

/// A [`State`] as JSON, one piece per field: written out one after another, never copied
/// into one buffer (on the 1 GiB stream the state is 12.8 MB).
#[derive(Debug)]
pub struct StateJson {
    fields: Vec<(&'static str, Vec<u8>)>,
}

impl StateJson {
    /// Writes the state's JSON object: byte for byte what serde writes for the state.
    pub fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        out.write_all(b"{")?;
        for (i, (name, json)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            out.write_all(b"\"")?;
            out.write_all(name.as_bytes())?;
            out.write_all(b"\":")?;
            out.write_all(json)?;
        }
        out.write_all(b"}")
    }

    /// The JSON in one buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut out);
        out
    }
}

/// A field's JSON: written, or being written on another thread.
enum Piece<'scope> {
    Ready(Vec<u8>),
    Later(ScopedJoinHandle<'scope, Vec<u8>>),
}

impl Piece<'_> {
    fn bytes(self) -> Vec<u8> {
        match self {
            Piece::Ready(bytes) => bytes,
            Piece::Later(handle) => joined(handle),
        }
    }
}

fn serde<T: Serialize>(value: &T) -> serde_json::Result<Piece<'static>> {
    serde_json::to_vec(value).map(Piece::Ready)
}

/// What a scoped thread returned; its panic goes on in this thread.
fn joined<T>(handle: ScopedJoinHandle<'_, T>) -> T {
    match handle.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// `[["key",...],...]`: each entry an array of its key and what `rest` writes after it,
/// as serde writes a tuple struct. `size` is about an entry's length.
fn entry_list<T: Keyed>(
    view: &View<T>,
    size: usize,
    rest: impl Fn(&T, &mut itoa::Buffer, &mut Vec<u8>),
) -> Vec<u8> {
    let mut out = Vec::with_capacity(view.len_hint() * size + 2);
    let mut num = itoa::Buffer::new();
    out.push(b'[');
    for (i, e) in view.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"[\"");
        out.extend_from_slice(&Key::hex(e.key()));
        out.extend_from_slice(b"\",");
        rest(e, &mut num, &mut out);
        out.push(b']');
    }
    out.push(b']');
    out
}

/// `[["key",[input,output,cache_creation,cache_read,reasoning_output,cache_creation_1h],attr],...]`
fn message_list(view: &View<MessageEntry>) -> Vec<u8> {
    entry_list(view, 64, |e, num, out| {
        out.push(b'[');
        for (i, n) in e.1.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(num.format(*n).as_bytes());
        }
        out.extend_from_slice(b"],");
        out.extend_from_slice(num.format(e.2).as_bytes());
    })
}

/// `[["key",tool name,attr],...]`
fn tool_list(view: &View<ToolEntry>) -> Vec<u8> {
    entry_list(view, 44, |e, num, out| {
        out.extend_from_slice(num.format(e.1).as_bytes());
        out.push(b',');
        out.extend_from_slice(num.format(e.2).as_bytes());
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state with every field filled, extreme numbers included, and entries both in a
    /// view's sorted part and in its newer part.
    fn sample() -> State {
        let text = r#"{
            "strings": ["s1", "claude-opus-4-1", "/a/b \"q\".jsonl", "2026-11-24", "Bash", "é\u0001"],
            "attrs": [{"session":0,"model":1,"file":2,"day":3},{"session":4294967295,"model":0,"file":2,"day":3}],
            "sessions": [0, 5],
            "messages": [
                ["00000000000000000000000a",[1,2,3,4,5,6],0],
                ["ffffffffffffffffffffffff",[4294967295,4294967295,4294967295,4294967295,4294967295,4294967295],1]
            ],
            "big_tokens": [["ffffffffffffffffffffffff",{"input":18446744073709551615,"output":1,"cache_creation":2,"cache_read":3,"reasoning_output":0,"cache_creation_1h":7}]],
            "deltas": [["00000000000000000000000b",{"input":1,"output":2,"cache_creation":3,"cache_read":4,"reasoning_output":0},15]],
            "links": [["00000000000000000000000c","00000000000000000000000a"]],
            "last_model": [[0,1]],
            "session_cwd": [[0,2]],
            "message_costs": [["00000000000000000000000d",0,0.1],["00000000000000000000000e",1,1e-17]],
            "extra_usage": [[1,{"input":9,"output":8,"cache_creation":7,"cache_read":6,"reasoning_output":5}]],
            "codex_totals": [[0,{"input":1,"output":1,"cache_creation":0,"cache_read":0,"reasoning_output":0},1]],
            "results": [[0,{"tokens":null,"cost_usd":0.25,"turns":3,"duration_ms":null,"file":2,"day":3}],[5,{"tokens":{"input":1,"output":2,"cache_creation":3,"cache_read":4,"reasoning_output":0},"model_usage":[[1,{"input":1,"output":2,"cache_creation":3,"cache_read":4,"reasoning_output":0}]],"cost_usd":null,"turns":null,"duration_ms":12,"file":2,"day":3}]],
            "codex_turns": [["00000000000000000000000f",0]],
            "tool_calls": [["000000000000000000000010",4,0],["000000000000000000000011",4294967295,1]],
            "tool_errors": ["000000000000000000000010"],
            "records_by": [["Session",0,3],["File",2,18446744073709551615],["Day",3,1]]
        }"#;
        let mut state: State = serde_json::from_str(text).expect("sample state");
        // A view's newer part, which wins over its sorted part.
        let mut newer =
            super::super::store::LastWins::from_entries(state.messages.iter().copied().collect());
        newer.push(MessageEntry(
            state.messages.iter().next().expect("entry").0,
            [9; 6],
            1,
        ));
        state.messages = newer.settled();
        state
    }

    #[test]
    fn writes_what_serde_writes() {
        let state = sample();
        let want = serde_json::to_vec(&state).expect("serde");
        assert!(
            String::from_utf8_lossy(&want).contains("[9,9,9,9,9,9]"),
            "the newer entry must be in the view"
        );
        assert_eq!(state.to_json(false).expect("one thread").to_vec(), want);
        assert_eq!(state.to_json(true).expect("threads").to_vec(), want);
        let empty = State::default();
        assert_eq!(
            empty.to_json(true).expect("empty").to_vec(),
            serde_json::to_vec(&empty).expect("serde")
        );
    }
}
