//! The `state` of a JSON report, written fast: byte for byte what serde_json writes for
//! [`State`], but its two large lists (one entry per API message and per tool call,
//! megabytes on a large tree) are written by hand, and, on more than one thread, each on
//! a core of its own. On a tree of 3,000 sessions the state is 4.6 MB and, through serde,
//! the last 14 ms of a run, on one core.

use super::store::View;
use super::{MessageEntry, State, ToolEntry};
use serde::Serialize;

impl State {
    /// The state as `serde_json::to_vec` writes it, in pieces (see [`StateJson`]). With
    /// `parallel`, the message and the tool call lists are written on two more threads
    /// while this one writes the rest.
    pub fn to_json(&self, parallel: bool) -> serde_json::Result<StateJson> {
        let (messages, tool_calls, rest) = if parallel {
            std::thread::scope(|scope| {
                let messages = scope.spawn(|| message_list(&self.messages));
                let tool_calls = scope.spawn(|| tool_list(&self.tool_calls));
                let rest = self.rest_fields();
                (join(messages), join(tool_calls), rest)
            })
        } else {
            (
                message_list(&self.messages),
                tool_list(&self.tool_calls),
                self.rest_fields(),
            )
        };
        Ok(StateJson {
            messages,
            tool_calls,
            rest: rest?,
        })
    }

    /// Every field but the two large lists, through serde, in [`FIELDS`] order.
    fn rest_fields(&self) -> serde_json::Result<Rest> {
        let mut rest = Rest::default();
        rest.add(&self.strings)?;
        rest.add(&self.attrs)?;
        rest.add(&self.sessions)?;
        rest.add(&self.big_tokens)?;
        rest.add(&self.deltas)?;
        rest.add(&self.links)?;
        rest.add(&self.last_model)?;
        rest.add(&self.session_cwd)?;
        rest.add(&self.message_costs)?;
        rest.add(&self.extra_usage)?;
        rest.add(&self.codex_totals)?;
        rest.add(&self.results)?;
        rest.add(&self.codex_turns)?;
        rest.add(&self.tool_errors)?;
        rest.add(&self.records_by)?;
        Ok(rest)
    }
}

/// The fields of [`State`] in declaration order (a test checks it against serde's output).
const FIELDS: [&str; 17] = [
    "strings",
    "attrs",
    "sessions",
    "messages",
    "big_tokens",
    "deltas",
    "links",
    "last_model",
    "session_cwd",
    "message_costs",
    "extra_usage",
    "codex_totals",
    "results",
    "codex_turns",
    "tool_calls",
    "tool_errors",
    "records_by",
];

/// A [`State`] as JSON, in the pieces it was written in: written out one after another,
/// never copied into one buffer (on the 1 GiB stream the state is 12.8 MB).
#[derive(Debug)]
pub struct StateJson {
    messages: Vec<u8>,
    tool_calls: Vec<u8>,
    rest: Rest,
}

impl StateJson {
    /// Writes the state's JSON object: byte for byte what serde writes for the state.
    pub fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        out.write_all(b"{")?;
        let mut pieces = self.rest.pieces.iter();
        // Fields in declaration order, as the derived `Serialize` writes them.
        for name in FIELDS {
            if name != FIELDS[0] {
                out.write_all(b",")?;
            }
            out.write_all(b"\"")?;
            out.write_all(name.as_bytes())?;
            out.write_all(b"\":")?;
            match name {
                "messages" => out.write_all(&self.messages)?,
                "tool_calls" => out.write_all(&self.tool_calls)?,
                _ => {
                    let (start, end) = pieces.next().copied().unwrap_or((0, 0));
                    out.write_all(self.rest.bytes.get(start..end).unwrap_or_default())?;
                }
            }
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

/// Serialized fields, one after another, and where each one lies.
#[derive(Debug, Default)]
struct Rest {
    bytes: Vec<u8>,
    pieces: Vec<(usize, usize)>,
}

impl Rest {
    fn add<T: Serialize>(&mut self, value: &T) -> serde_json::Result<()> {
        let start = self.bytes.len();
        serde_json::to_writer(&mut self.bytes, value)?;
        self.pieces.push((start, self.bytes.len()));
        Ok(())
    }
}

fn join(handle: std::thread::ScopedJoinHandle<'_, Vec<u8>>) -> Vec<u8> {
    match handle.join() {
        Ok(bytes) => bytes,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// `[["key",[input,output,cache_creation,cache_read,reasoning_output,cache_creation_1h],attr],...]`
fn message_list(view: &View<MessageEntry>) -> Vec<u8> {
    let mut out = Vec::with_capacity(view.len_hint() * 64 + 2);
    let mut num = itoa::Buffer::new();
    out.push(b'[');
    for (i, e) in view.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"[\"");
        out.extend_from_slice(&e.0.hex());
        out.extend_from_slice(b"\",[");
        for (j, n) in e.1.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            out.extend_from_slice(num.format(*n).as_bytes());
        }
        out.extend_from_slice(b"],");
        out.extend_from_slice(num.format(e.2).as_bytes());
        out.push(b']');
    }
    out.push(b']');
    out
}

/// `[["key",tool name,attr],...]`
fn tool_list(view: &View<ToolEntry>) -> Vec<u8> {
    let mut out = Vec::with_capacity(view.len_hint() * 44 + 2);
    let mut num = itoa::Buffer::new();
    out.push(b'[');
    for (i, e) in view.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"[\"");
        out.extend_from_slice(&e.0.hex());
        out.extend_from_slice(b"\",");
        out.extend_from_slice(num.format(e.1).as_bytes());
        out.push(b',');
        out.extend_from_slice(num.format(e.2).as_bytes());
        out.push(b']');
    }
    out.push(b']');
    out
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
