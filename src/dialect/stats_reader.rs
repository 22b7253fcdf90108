//! `stats` meets the agents here, once a record: [`StatsReader::of`] the record's dialect
//! (its descriptor's `stats`), the record's [`TopFields`] found for it, and one call of
//! its `read` with the store ([`Ingest`]) (docs/DESIGN.md "The stats rooms").
//!
//! A reader drives the store itself (Claude's, Codex's: `src/dialect/*/stats.rs`), or
//! gives neutral [`Fact`](super::facts::Fact)s, which [`Ingest::facts`] applies (the other
//! agents': their `facts` functions, named in their descriptors as
//! `read: |v, top, s| s.facts(facts, v, top)`).

/// The first part of the key of a response known by its session's cumulative total (the
/// Codex rollouts' key, theirs to give): the store keys such responses, and rekeys them
/// when `--merge` joins a part to the session it continues.
pub(crate) use super::codex_log::stats::RESPONSE_KEY as CUMULATIVE_RESPONSE_KEY;
use super::{ClaudeTop, Dialect, RecordInfo};
use crate::json::Json;
use crate::stats::Ingest;

/// How `stats` reads one record: the record, its top-level fields and the store.
pub(crate) type StatsFn = for<'a> fn(Json<'a>, &TopFields<'a>, &mut Ingest<'_>);

/// How `stats` reads an agent's records (an agent descriptor's `stats`).
#[derive(Clone, Copy)]
pub(crate) struct StatsReader {
    /// The reader of one record.
    pub(crate) read: StatsFn,
    /// It reads the fields of [`ClaudeTop`] ([`TopFields::session`], ...): in an input
    /// whose agent's `ClaudeShape::top` is set the classifier's walk found them, else the
    /// record is walked for them (docs/DESIGN.md "One walk over a record's top level").
    pub(crate) claude_fields: bool,
}

/// The reader of a record whose dialect is not decided yet: Claude's shape.
const UNDECIDED: StatsReader = StatsReader {
    read: super::claude::stats::read,
    claude_fields: true,
};

impl StatsReader {
    /// The reader of a record of `dialect`.
    pub(crate) fn of(dialect: Option<Dialect>) -> StatsReader {
        match dialect {
            Some(d) => d.agent().stats,
            None => UNDECIDED,
        }
    }
}

/// What [`TopFields::of`] walks a record for: the type, subtype and time, then Claude's fields.
const TOP_WALK: [&str; 12] = ClaudeTop::after(["type", "subtype", "timestamp"]);

/// A record's top-level fields for `stats`: the type, subtype and time every record is
/// counted by, the fields of [`ClaudeTop`] that Claude's reader uses, and a Codex
/// rollout's `payload`.
#[derive(Clone, Copy)]
pub(crate) struct TopFields<'a> {
    ty: Option<&'a str>,
    subtype: Option<&'a str>,
    timestamp: Option<Json<'a>>,
    /// By the indices of [`ClaudeTop`].
    claude: [Option<Json<'a>>; 9],
    payload: Option<Json<'a>>,
}

impl<'a> TopFields<'a> {
    /// The fields of `v` in one walk over it.
    pub(crate) fn of(v: Json<'a>) -> TopFields<'a> {
        let [ty, subtype, timestamp, claude @ ..] = v.get_many(TOP_WALK);
        TopFields {
            ty: ty.and_then(|t| t.as_str()),
            subtype: subtype.and_then(|t| t.as_str()),
            timestamp,
            claude,
            payload: None,
        }
    }

    /// [`TopFields::of`] a record as the classifier saw it (`info`), for a reader that
    /// reads Claude's fields or not (`claude_fields`), without walking it again when the
    /// classifier found what the reader needs: the type, subtype, time and payload (a
    /// Codex rollout's line was walked four times), and in a Claude input the fields of
    /// [`ClaudeTop`].
    pub(crate) fn of_record(
        v: Json<'a>,
        info: &RecordInfo<'a>,
        claude_fields: bool,
    ) -> TopFields<'a> {
        let found = |claude: [Option<Json<'a>>; 9]| TopFields {
            ty: info.ty,
            subtype: info.subtype,
            timestamp: info.timestamp,
            claude,
            payload: info.payload,
        };
        match (claude_fields, info.dialect, info.claude) {
            // Its type and subtype are the record's own: Claude is not the generic
            // dialect, whose `--type-field` path the classifier read instead.
            (true, Some(_), Some(c)) => found(std::array::from_fn(|field| c.get(v, field))),
            (true, _, _) | (false, None, _) => TopFields::of(v),
            (false, Some(_), _) => found([None; 9]),
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

    /// A Codex rollout's `payload` (`None` for the agents read through [`TopFields::of`]).
    pub(crate) fn payload(&self) -> Option<Json<'a>> {
        self.payload
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{Classifier, Findings};
    use crate::json::TapeValue;
    use crate::tape::Doc;

    /// In a Claude input the classifier's walk gives the checks and `TopFields` the same fields
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
                let (ours, walked) = (TopFields::of_record(v, &info, true), TopFields::of(v));
                let show = |t: &TopFields<'_>| {
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
