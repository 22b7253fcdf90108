//! `claude`: Claude Code `--output-format stream-json` (and `--input-format stream-json`).
//!
//! Types and fields from the real captures in testdata/corpus (its SCHEMA-NOTES.md, §1)
//! and the Agent SDK's documented message union. `session_id` is snake case here; the
//! session transcripts (`claude-log`) use camel case `sessionId`.

pub(super) mod events;

use super::agent::{self, Agent, Cli, StatsReader};
use super::Head;
use super::RecordInfo;
use super::RunFacts;
use super::{check_counts, check_value, expect, SchemaProblem, Want};
use crate::gaps::{InputEnd, Op};
use crate::json::{Json, Place};

/// `stats`: this agent's records into the stats store.
pub(super) mod stats;
use std::ffi::{OsStr, OsString};

pub(super) const KNOWN_TYPES: &[&str] = &[
    "system",
    "user",
    "assistant",
    "result",
    "stream_event",
    "rate_limit_event",
    "control_request",
    "control_response",
    "control_cancel_request",
    "keep_alive",
    "tool_progress",
    "tool_use_summary",
    "auth_status",
];

/// Decisive: a Claude message type together with a snake-case `session_id`.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    matches!(
        ty,
        Some("system" | "user" | "assistant" | "result" | "stream_event" | "rate_limit_event")
    ) && obj.has("session_id")
        && !obj.has("sessionId")
}

/// The token counts of a Claude `usage` object.
pub(super) const CLAUDE_COUNTS: [&str; 4] = [
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
];

pub(super) fn check(obj: Json<'_>, head: &Head<'_>, p: &mut Vec<SchemaProblem>) {
    let ty = head.ty;
    let session_required = matches!(
        ty,
        "system" | "user" | "assistant" | "result" | "stream_event"
    );
    match ty {
        "assistant" | "user" => {
            // The hot path: one walk over the record and one over its message.
            let [session, message] = match head.claude {
                Some(c) => [
                    c.get(obj, ClaudeTop::SESSION_ID),
                    c.get(obj, ClaudeTop::MESSAGE),
                ],
                None => obj.get_many(["session_id", "message"]),
            };
            check_value(session, "session_id", Want::Str, session_required, p);
            check_value(message, "message", Want::Obj, true, p);
            let Some(message) = message else { return };
            if ty == "user" {
                let content = message.get("content");
                check_value(content, "message.content", Want::StrOrArr, true, p);
                return;
            }
            let [content, id, usage] = message.get_many(["content", "id", "usage"]);
            check_value(content, "message.content", Want::Arr, true, p);
            check_value(id, "message.id", Want::Str, false, p);
            check_value(usage, "message.usage", Want::Obj, false, p);
            check_counts(usage, "message.usage", CLAUDE_COUNTS, p);
        }
        _ => {
            expect(obj, "session_id", Want::Str, session_required, p);
            match ty {
                "system" => expect(obj, "subtype", Want::Str, true, p),
                "result" => {
                    expect(obj, "subtype", Want::Str, true, p);
                    expect(obj, "is_error", Want::Bool, false, p);
                    expect(obj, "usage", Want::Obj, false, p);
                    check_counts(obj.get("usage"), "usage", CLAUDE_COUNTS, p);
                    expect(obj, "total_cost_usd", Want::Cost, false, p);
                    expect(obj, "duration_ms", Want::Count, false, p);
                    expect(obj, "num_turns", Want::Count, false, p);
                }
                "stream_event" => {
                    expect(obj, "event", Want::Obj, true, p);
                    expect(obj, "event.type", Want::Str, true, p);
                }
                _ => {}
            }
        }
    }
}

// ---- CLI knowledge: the `claude` program ----

/// The program names Claude Code runs as.
pub(super) const PROGRAMS: &[&str] = &["claude"];

/// Resumes with the original arguments and `--resume ID` (an existing `--resume`, `-r`,
/// `--continue`, `-c` or `--session-id` dropped).
pub(super) fn resume(program: &OsStr, args: &[OsString], id: &str) -> Vec<OsString> {
    let valued: &[&[u8]] = &[b"--resume", b"-r", b"--session-id"];
    super::argv::with_resume_flag(program, args, valued, &[b"--continue", b"-c"], id)
}

/// What a supervisor learns from a valid record of Claude's stream shape (also Qwen Code's
/// and Cursor's): `system`/`init` begins a session (naming it in `session_id`), `result`
/// ends the run.
pub(super) fn run_facts<'a>(obj: Json<'a>, ty: &str, subtype: Option<&str>) -> RunFacts<'a> {
    let mut facts = RunFacts::default();
    if ty == "system" && subtype == Some("init") {
        facts.session = obj.str("session_id");
        facts.begins = true;
    } else if ty == "result" {
        facts.ends = true;
    }
    facts
}

/// Whether a `tool_result` block of Claude's shape reports a failed call: `is_error:
/// true`, or (`text_tells`: [`ClaudeShape::result_text_tells_failure`]) a text content
/// that says the command failed. The one rule `stats`, `events` and `gaps` use.
pub(crate) fn tool_result_failed(block: Json<'_>, text_tells: bool) -> bool {
    tool_result_failed_given(block.get("is_error"), block, text_tells)
}

/// [`tool_result_failed`] with the block's `is_error` already looked up (the gap reader
/// finds it in the walk that finds the block's type and ids).
pub(crate) fn tool_result_failed_given(
    is_error: Option<Json<'_>>,
    block: Json<'_>,
    text_tells: bool,
) -> bool {
    is_error.and_then(|e| e.as_bool()) == Some(true)
        || (text_tells
            && block
                .str("content")
                .is_some_and(super::output_reports_failure))
}

/// What its records tell the gap trackers (`gaps`, `validate --gaps`).
pub(super) mod gaps;

/// The human text of its records (`filter --grep`).
pub(super) mod texts;

/// What a record of a Claude-shaped stream (Claude, Qwen Code, Cursor) tells the gap
/// trackers, its sequence candidates with them. Cursor's `tool_call` records count in any of them: a stream read as Claude's
/// (forced, or before Cursor's own records tell it) keeps its calls.
pub(super) fn stream_gap_ops(
    info: &RecordInfo<'_>,
    value: Json<'_>,
    ops: &mut Vec<Op>,
    text: &mut String,
) -> bool {
    gaps::stream(info, value, ops, text);
    super::cursor::gaps::tool_call(info, value, ops, text);
    true
}

/// The top-level fields of a Claude record (stream or transcript) that its schema checks
/// and `stats` read besides the type, subtype and time: found in the classifier's walk in
/// an input of Claude's stream or transcripts (`ClaudeShape::top`), so neither walks the
/// record's top level again
/// (docs/DESIGN.md, "One walk over a record's top level"), and the names `stats_reader::TopFields`
/// walks a record for when the classifier did not. Places on the record's tape, read with
/// [`ClaudeTop::get`] on the record.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClaudeTop(pub(super) [Place; 9]);

impl ClaudeTop {
    pub(crate) const KEYS: [&'static str; 9] = [
        "session_id",
        "sessionId",
        "uuid",
        "message",
        "costUSD",
        "requestId",
        "request_id",
        "cwd",
        "requestSessionId",
    ];
    pub(crate) const SESSION_ID: usize = 0;
    pub(crate) const SESSION_ID_CAMEL: usize = 1;
    pub(crate) const UUID: usize = 2;
    pub(crate) const MESSAGE: usize = 3;
    pub(crate) const COST_USD: usize = 4;
    pub(crate) const REQUEST_ID: usize = 5;
    pub(crate) const REQUEST_ID_SNAKE: usize = 6;
    pub(crate) const CWD: usize = 7;
    /// A fork's copy of its parent's message names the parent (docs/REFERENCE.md
    /// "Lineage").
    pub(crate) const REQUEST_SESSION_ID: usize = 8;

    /// `head`, then [`ClaudeTop::KEYS`]: the names of a walk that finds these fields
    /// besides others (`T` is `M + 9`, checked when the constant is built).
    pub(crate) const fn after<const M: usize, const T: usize>(
        head: [&'static str; M],
    ) -> [&'static str; T] {
        assert!(T == M + Self::KEYS.len());
        let mut out = [""; T];
        let mut i = 0;
        while i < T {
            out[i] = if i < M { head[i] } else { Self::KEYS[i - M] };
            i += 1;
        }
        out
    }

    /// Field `field` (one of the constants) of `record`, the record this was found in.
    pub(crate) fn get<'a>(&self, record: Json<'a>, field: usize) -> Option<Json<'a>> {
        record.at_place(*self.0.get(field)?)
    }
}

/// The tool calls of a Claude message (`message.content[]`): a `tool_use` block by its id
/// and name, a `tool_result` block by the id of the call it answers (`filter --tool`).
/// Qwen Code's and Cursor's messages, and Claude's transcripts, share the shape.
pub(super) fn tool_blocks<'a>(
    value: Json<'a>,
    f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>),
) {
    let Some(content) = value.get("message").and_then(|m| m.get("content")) else {
        return;
    };
    content.for_each_element(|b| match b.str("type") {
        // A call without a name is not looked up by its id.
        Some("tool_use") => {
            let name = b.str("name");
            f(name.and(b.str("id")), name);
        }
        Some("tool_result") => f(b.str("tool_use_id"), None),
        _ => {}
    });
}

/// A Claude-shaped stream that did not open with its init: Qwen's and Cursor's own records
/// still tell them apart when they come.
fn turns_into(obj: Json<'_>, ty: Option<&str>) -> Option<super::Dialect> {
    if ty == Some("system") && super::qwen::recognises(obj, ty) {
        Some(super::Dialect::Qwen)
    } else if super::cursor::own_type(ty) && super::cursor::recognises(obj, ty) {
        Some(super::Dialect::Cursor)
    } else {
        None
    }
}

/// How an agent shares Claude's shape: what Claude's shared readers (its events, its gap
/// trackers' tool results, the classifier's walk) ask of the agent whose records they
/// read. An agent of Claude's shape names one in its descriptor (`claude`).
pub(super) struct ClaudeShape {
    /// Its records are Claude's message objects, read as Claude's own: `user`/`assistant`
    /// records whose `message.content` holds the text and tool blocks, and whose
    /// `message.usage` is held until the next message or `result`.
    pub(super) reads_messages: bool,
    /// Its check and `stats` read the top-level fields of [`ClaudeTop`]: the classifier's
    /// walk finds them too (docs/DESIGN.md, "One walk over a record's top level"), at the
    /// cost of one more comparison a key for every record of the input.
    pub(super) top: bool,
    /// Its usage counts the cached input inside `input_tokens`, rather than beside it.
    pub(super) input_includes_cache: bool,
    /// A tool result's text tells a failed command even when `is_error` is false (the
    /// shell's `Exit Code: N`); see [`tool_result_failed`].
    pub(super) result_text_tells_failure: bool,
}

/// Claude's own: its stream and its transcripts.
pub(super) static SHAPE: ClaudeShape = ClaudeShape {
    reads_messages: true,
    top: true,
    input_includes_cache: false,
    result_text_tells_failure: false,
};

/// Where an `events` block's warm-up starts in Claude's shape: the last assistant message,
/// whose usage is held until the next message or `result` (tool results in between can be
/// longer than the warm-up).
pub(super) const WARM_ANCHOR: &[u8] = b"\"assistant\"";

/// The `claude` agent, as the registry reads it ([`super::Dialect::agent`]).
pub(super) static AGENT: Agent = Agent {
    name: "claude",
    known_types: KNOWN_TYPES,
    knows: None,
    recognises,
    check,
    untyped: None,
    turns_into: Some(turns_into),
    guessed_by_type: true,
    named_session: agent::session_id,
    claude: Some(&SHAPE),
    carries_session: true,
    inherits_context: false,
    events: Some(|| Box::new(events::Claude)),
    stats: StatsReader {
        read: stats::read,
        claude_fields: true,
    },
    gap_ops: stream_gap_ops,
    input_end: InputEnd::SessionResult,
    texts: texts::messages,
    tools: tool_blocks,
    log_folders: agent::no_log_folders,
    cli: Some(Cli {
        programs: PROGRAMS,
        resume,
        run_facts,
    }),
};

#[cfg(test)]
mod tests {
    use crate::dialect::argv::os;
    use crate::dialect::Dialect;
    use crate::supervisor::resume_command;
    use std::ffi::OsStr;

    #[test]
    fn claude_resumes_with_its_arguments_and_the_new_id() {
        let args = os(&[
            "-p",
            "fix it",
            "--output-format",
            "stream-json",
            "--verbose",
        ]);
        let argv = resume_command(None, OsStr::new("claude"), &args, "s-1", None);
        assert_eq!(
            argv,
            Some(os(&[
                "claude",
                "-p",
                "fix it",
                "--output-format",
                "stream-json",
                "--verbose",
                "--resume",
                "s-1"
            ]))
        );
        // An existing resume (any spelling) is replaced.
        for old in [
            &["--resume", "old"][..],
            &["-r", "old"],
            &["--resume=old"],
            &["-c"],
        ] {
            let mut args = os(&["-p", "go"]);
            args.extend(os(old));
            let argv = resume_command(
                Dialect::parse("claude"),
                OsStr::new("/x/agent"),
                &args,
                "new",
                None,
            );
            assert_eq!(
                argv,
                Some(os(&["/x/agent", "-p", "go", "--resume", "new"])),
                "{old:?}"
            );
        }
    }
}
