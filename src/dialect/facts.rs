//! What an agent's record says, in neutral terms: the [`Fact`]s a dialect's reader gives
//! (a session id, the model, a usage snapshot under its dedupe key, a tool call, a failed
//! call, a session's result, a reported step cost), which `stats` applies without naming
//! the agent (docs/DESIGN.md "The stats rooms"). Each agent's reader lives in its own
//! module (`gemini::facts`, `qwen::log_facts`, ...), next to its failure rules; this module
//! holds the type, the dispatch to the reader the agent's descriptor names
//! ([`super::agent::Agent`]), and the reader the agents that write Claude's shape share.
//!
//! Tokens are in one meaning (docs/REFERENCE.md "Token and cost rules"): `input` is the
//! non-cached input, `cache_read` the cached, `output` includes reasoning, and
//! `reasoning_output` (Gemini `thoughts`, OpenCode `reasoning`) is also given apart. A tool
//! call is an error when the agent says so, or when a command's output or exit code says
//! it failed: Gemini CLI prints `status: "success"` for a failing shell command.
//!
//! Claude's own records and Codex's are read by their modules' `stats` readers
//! (`claude::stats`, `codex::stats`, `codex_log::stats`), which drive the store directly:
//! their usage needs request ids, `message_delta` links, turns and cumulative totals.
//! [`read_stats`] hands a record to the reader its agent's descriptor names.

use super::agent::StatsReader;
use super::{ClaudeTop, Dialect, RecordInfo};
use crate::json::Json;
use crate::stats::{Ingest, Key, Tokens};

/// One thing a record says, in no agent's terms.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fact<'a> {
    /// The session the record (and the records after it in its input) belongs to.
    Session(&'a str),
    /// The model the records after this one use (Copilot names it apart).
    Model(&'a str),
    /// The working directory of the record's session, its project (the first one named
    /// counts): OpenCode's store names it in each assistant message.
    Cwd(&'a str),
    /// A usage snapshot: the last one under a key counts.
    Usage {
        key: Key,
        model: Option<&'a str>,
        /// `reasoning_output` set where the agent reports it apart.
        tokens: Tokens,
    },
    ToolCall {
        key: Key,
        name: &'a str,
    },
    ToolError {
        key: Key,
    },
    /// The session's result: its billed totals where the agent gives them, its length.
    Result {
        tokens: Option<Tokens>,
        duration_ms: Option<u64>,
        turns: Option<u64>,
    },
    /// A cost the agent reported for one step, under a key (summed per session).
    StepCost {
        key: Key,
        cost_usd: f64,
    },
}

/// Whether a record of `dialect` means something only with what earlier records of its
/// input said: Codex items and Gemini events their session, Copilot events their model,
/// Qwen results their session's last model. Such an input is read in one piece, never in
/// blocks counted apart.
pub(crate) fn inherits_context(dialect: Dialect) -> bool {
    dialect.agent().inherits_context
}

/// The facts of one valid object record of `dialect`, handed to `f` in order; `session` is
/// the session the record's input is in so far (keys of agents whose ids are per session).
pub(crate) fn read<'a>(
    dialect: Dialect,
    v: Json<'a>,
    ty: Option<&'a str>,
    session: &str,
    f: &mut dyn FnMut(Fact<'a>),
) {
    if let StatsReader::Facts(read) = dialect.agent().stats {
        read(v, ty, session, f);
    }
}

/// What [`Top::of`] walks a record for: the type, subtype and time, then Claude's fields.
const TOP_WALK: [&str; 12] = ClaudeTop::after(["type", "subtype", "timestamp"]);

/// A record's top-level fields for `stats`: the type, subtype and time every record is
/// counted by, the fields of [`ClaudeTop`] that Claude's reader uses, and a Codex
/// rollout's `payload`.
#[derive(Clone, Copy)]
pub(crate) struct Top<'a> {
    ty: Option<&'a str>,
    subtype: Option<&'a str>,
    timestamp: Option<Json<'a>>,
    /// By the indices of [`ClaudeTop`].
    claude: [Option<Json<'a>>; 9],
    payload: Option<Json<'a>>,
}

impl<'a> Top<'a> {
    /// The fields of `v` in one walk over it.
    pub(crate) fn of(v: Json<'a>) -> Top<'a> {
        let [ty, subtype, timestamp, claude @ ..] = v.get_many(TOP_WALK);
        Top {
            ty: ty.and_then(|t| t.as_str()),
            subtype: subtype.and_then(|t| t.as_str()),
            timestamp,
            claude,
            payload: None,
        }
    }

    /// [`Top::of`] a record as the classifier saw it (`info`), without walking it again
    /// when the classifier found what its agent's reader needs: the type, subtype, time
    /// and payload (a Codex rollout's line was walked four times), and in a Claude input
    /// the fields of [`ClaudeTop`].
    pub(crate) fn of_record(v: Json<'a>, info: &RecordInfo<'a>) -> Top<'a> {
        let found = |claude: [Option<Json<'a>>; 9]| Top {
            ty: info.ty,
            subtype: info.subtype,
            timestamp: info.timestamp,
            claude,
            payload: info.payload,
        };
        match (info.dialect.map(|d| d.agent().stats), info.claude) {
            // Its type and subtype are the record's own: Claude is not the generic
            // dialect, whose `--type-field` path the classifier read instead.
            (Some(StatsReader::Top(_)), Some(c)) => {
                found(std::array::from_fn(|field| c.get(v, field)))
            }
            (None | Some(StatsReader::Top(_)), _) => Top::of(v),
            (Some(StatsReader::Facts(_) | StatsReader::Typed(_)), _) => found([None; 9]),
        }
    }

    pub(crate) fn ty(&self) -> Option<&'a str> {
        self.ty
    }

    pub(crate) fn subtype(&self) -> Option<&'a str> {
        self.subtype
    }

    pub(crate) fn timestamp(&self) -> Option<Json<'a>> {
        self.timestamp
    }

    /// `session_id`, else `sessionId`.
    pub(super) fn session(&self) -> Option<Json<'a>> {
        self.claude[ClaudeTop::SESSION_ID].or(self.claude[ClaudeTop::SESSION_ID_CAMEL])
    }

    pub(super) fn message(&self) -> Option<Json<'a>> {
        self.claude[ClaudeTop::MESSAGE]
    }

    pub(super) fn request_id(&self) -> Option<Json<'a>> {
        self.claude[ClaudeTop::REQUEST_ID]
    }

    pub(super) fn request_id_snake(&self) -> Option<Json<'a>> {
        self.claude[ClaudeTop::REQUEST_ID_SNAKE]
    }

    pub(super) fn cwd(&self) -> Option<Json<'a>> {
        self.claude[ClaudeTop::CWD]
    }

    pub(super) fn cost_usd(&self) -> Option<Json<'a>> {
        self.claude[ClaudeTop::COST_USD]
    }

    /// `requestSessionId`: the session that made a copied message's request.
    pub(super) fn request_session_id(&self) -> Option<Json<'a>> {
        self.claude[ClaudeTop::REQUEST_SESSION_ID]
    }

    /// A Codex rollout's `payload` (`None` for the agents read through [`Top::of`]).
    pub(crate) fn payload(&self) -> Option<Json<'a>> {
        self.payload
    }
}

/// `stats`: one valid object record of `dialect` into the store, by its agent's reader
/// (Claude's shape when no dialect is known). The one place `stats` meets the agents.
pub(crate) fn read_stats(dialect: Option<Dialect>, v: Json<'_>, top: &Top<'_>, s: &mut Ingest<'_>) {
    let Some(d) = dialect else {
        return super::claude::stats::read(v, top, s);
    };
    match d.agent().stats {
        StatsReader::Facts(_) => s.facts(d, v, top.ty()),
        StatsReader::Typed(read) => read(v, top, s),
        StatsReader::Top(read) => read(v, top, s),
    }
}

pub(super) fn at(v: Json<'_>, path: &[&str]) -> u64 {
    v.path(path).and_then(|v| v.as_count()).unwrap_or(0)
}

/// Tokens from a whole prompt that includes its cached part.
pub(super) fn from_prompt(prompt: u64, cached: u64, output: u64) -> Tokens {
    Tokens {
        input: prompt.saturating_sub(cached),
        output,
        cache_read: cached,
        ..Tokens::default()
    }
}

/// The facts of a record in Claude's shape (Qwen Code, Cursor): its `session_id`, each
/// assistant message's usage (`input_tokens` including the cached part) and `tool_use`
/// blocks, failed `tool_result` blocks (`is_error`, or an exit code in the content), and
/// the `result` (its usage read by `result_tokens`: the session's billed totals).
pub(super) fn claude_shaped<'a>(
    v: Json<'a>,
    ty: Option<&'a str>,
    result_tokens: fn(Json<'_>) -> Option<Tokens>,
    f: &mut dyn FnMut(Fact<'a>),
) {
    if let Some(s) = v.str("session_id") {
        f(Fact::Session(s));
    }
    match ty {
        Some("assistant") => {
            let Some(message) = v.get("message") else {
                return;
            };
            if let (Some(id), Some(u)) = (
                message.str("id"),
                message.get("usage").filter(Json::is_object),
            ) {
                let cached = at(u, &["cache_read_input_tokens"]);
                let mut tokens =
                    from_prompt(at(u, &["input_tokens"]), cached, at(u, &["output_tokens"]));
                tokens.cache_creation = at(u, &["cache_creation_input_tokens"]);
                f(Fact::Usage {
                    key: Key::of(&[id, ""]),
                    model: message.str("model"),
                    tokens,
                });
            }
            if let Some(content) = message.get("content") {
                content.for_each_element(|b| {
                    if b.str("type") == Some("tool_use") {
                        if let Some(id) = b.str("id") {
                            f(Fact::ToolCall {
                                key: Key::of(&[id]),
                                name: b.str("name").unwrap_or("(unknown)"),
                            });
                        }
                    }
                });
            }
        }
        Some("user") => {
            let Some(content) = v.path(&["message", "content"]) else {
                return;
            };
            content.for_each_element(|b| {
                if b.str("type") != Some("tool_result") {
                    return;
                }
                // Qwen Code and Cursor: the text tells too.
                let failed = super::claude::tool_result_failed(b, true);
                if let (true, Some(id)) = (failed, b.str("tool_use_id")) {
                    f(Fact::ToolError {
                        key: Key::of(&[id]),
                    });
                }
            });
        }
        Some("result") => {
            let tokens = v
                .get("usage")
                .filter(Json::is_object)
                .and_then(result_tokens);
            f(Fact::Result {
                tokens,
                duration_ms: v.count("duration_ms"),
                turns: v.count("num_turns"),
            });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{Classifier, Findings};
    use crate::json::TapeValue;
    use crate::tape::Doc;

    /// In a Claude input the classifier's walk gives the checks and `Top` the same fields
    /// their own walks find: the last of a repeated key, a key written with escapes, none
    /// for a missing key or one of the same length, never a nested one.
    #[test]
    fn the_classifiers_claude_fields_are_the_ones_a_walk_finds() {
        let records = [
            r#"{"parentUuid":null,"sessionId":"s1","type":"user","uuid":"u1","cwd":"/p","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi","sessionId":"inner"}}"#,
            r#"{"type":"assistant","sessionId":"a","message":{"id":"m","usage":{"input_tokens":1}},"sessionId":"b","requestId":"r","costUSD":0.5,"uuid":"u","requestSessionId":"p"}"#,
            r#"{"type":"assistant","session\u0049d":"esc","request\u005fid":"x","m\u0065ssage":{},"cwd":"c","subtype":"s"}"#,
            r#"{"type":"assistant","session_id":"s","message":{"content":[],"usage":{}},"uuid":7,"request_id":"q"}"#,
            r#"{"type":"summary","summary":"t"}"#,
            r#"{"type":"user","sessionIx":"no","messagE":1,"cwD":2}"#,
        ];
        for dialect in [Dialect::Claude, Dialect::ClaudeLog] {
            let mut classifier = Classifier::new(Some(dialect), vec!["type".to_string()]);
            let mut findings = Findings::default();
            for text in records {
                let mut doc = Doc::new();
                assert!(doc.parse(text, 128), "{text}");
                let v = Json::Tape(TapeValue::root(&doc, text));
                let info = classifier.classify(v, &mut findings);
                let c = info.claude.expect("a Claude input's fields");
                for (i, key) in ClaudeTop::KEYS.iter().enumerate() {
                    let [walked] = v.get_many([*key]);
                    assert_eq!(
                        c.get(v, i).map(|j| j.to_compact_string()),
                        walked.map(|j| j.to_compact_string()),
                        "{key} in {text}"
                    );
                }
                let (ours, walked) = (Top::of_record(v, &info), Top::of(v));
                let show = |t: &Top<'_>| {
                    let s = |j: Option<Json<'_>>| j.map(|j| j.to_compact_string());
                    (
                        t.ty().map(str::to_string),
                        t.subtype().map(str::to_string),
                        [t.timestamp(), t.session(), t.message(), t.request_id()].map(s),
                        [
                            t.request_id_snake(),
                            t.cwd(),
                            t.cost_usd(),
                            t.request_session_id(),
                        ]
                        .map(s),
                    )
                };
                assert_eq!(show(&ours), show(&walked), "{text}");
            }
        }
        // Other agents' inputs are walked for the four keys only.
        let mut classifier = Classifier::new(Some(Dialect::CodexLog), vec!["type".to_string()]);
        let text = r#"{"type":"event_msg","timestamp":"t","payload":{},"sessionId":"s"}"#;
        let mut doc = Doc::new();
        assert!(doc.parse(text, 128));
        let v = Json::Tape(TapeValue::root(&doc, text));
        assert!(classifier
            .classify(v, &mut Findings::default())
            .claude
            .is_none());
    }
}
