//! Dialects: which agent wrote a stream, the record types it knows, and the fields each
//! type requires.
//!
//! Detection looks at whole parsed objects, never at byte prefixes, so key order does not
//! matter (real Claude `result` lines put `type` near the end). Each input is detected on
//! its own, from its first records that carry a decisive signature; `--dialect` skips
//! detection. A dialect only classifies: it names a record's type, says whether the type
//! is known, and lists schema problems. Unknown types are warnings, never errors, and a new
//! subtype of a known type is not even a warning.

mod agent;
mod argv;
mod claude;
mod claude_log;
mod codex;
mod codex_log;

/// Whether a tool's output text reports a failed command: a non-zero `Exit Code: N`
/// (Gemini CLI and Qwen Code shell tools), `Command exited with code: N`, or a signal.
/// Gemini's stream says `status: "success"` for a command that failed: the output tells.
pub fn output_reports_failure(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        if l.starts_with("Command terminated by signal") {
            return true;
        }
        [
            "Exit Code: ",
            "Command exited with code: ",
            "Command exited with code ",
        ]
        .iter()
        .find_map(|prefix| l.strip_prefix(prefix))
        .is_some_and(|code| {
            let code = code.trim();
            !code.is_empty() && code != "0" && code != "(none)"
        })
    })
}

/// A JSON number that is not zero (an exit code that says a command failed).
fn nonzero(v: Option<Json<'_>>) -> bool {
    v.and_then(|c| c.as_f64()).is_some_and(|c| c != 0.0)
}

mod copilot;
mod cursor;
pub(crate) mod facts;
mod gemini;
mod gemini_log;
mod generic;
mod jsonrpc;
mod opencode;
mod qwen;
pub(crate) mod stats_reader;
pub mod store;
mod texts;
#[cfg(test)]
mod toy;

use crate::json::{Json, Kind, Place};
use agent::Agent;
pub(crate) use claude::ClaudeTop;
use std::ffi::{OsStr, OsString};

/// What a valid record tells the supervisor of a wrapped agent (`ndjq run`): the session
/// to resume, and whether the run began again or ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunFacts<'a> {
    /// The session the record names, the one a restart resumes.
    pub session: Option<&'a str>,
    /// A session or turn begins: a terminal event seen before no longer ends the run.
    pub begins: bool,
    /// The run's terminal event (Claude's `result`, Codex's `turn.completed`, ...).
    pub ends: bool,
}

/// The dialects ndjq understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    Claude,
    ClaudeLog,
    Codex,
    CodexLog,
    JsonRpc,
    Gemini,
    GeminiLog,
    Qwen,
    QwenLog,
    Cursor,
    OpenCode,
    Copilot,
    /// The agent of docs/DESIGN.md's "Adding an agent", in the unit tests only.
    #[cfg(test)]
    Toy,
    Generic,
}

impl Dialect {
    /// Every dialect, in the order detection tries them: the ones that share Claude's
    /// shape (Qwen, Cursor) and Claude's transcript keys (the Qwen and Gemini logs, the
    /// Copilot `result`) come before Claude's, so that their own signature decides.
    pub const ALL: &'static [Dialect] = &[
        Dialect::Qwen,
        Dialect::Cursor,
        Dialect::Claude,
        Dialect::QwenLog,
        Dialect::GeminiLog,
        Dialect::Copilot,
        Dialect::ClaudeLog,
        Dialect::Codex,
        Dialect::CodexLog,
        Dialect::JsonRpc,
        Dialect::Gemini,
        Dialect::OpenCode,
        #[cfg(test)]
        Dialect::Toy,
        Dialect::Generic,
    ];

    /// Every dialect in the order users see them (`--dialect` in help, man pages and
    /// completions).
    pub const LISTED: &'static [Dialect] = &[
        Dialect::Claude,
        Dialect::ClaudeLog,
        Dialect::Codex,
        Dialect::CodexLog,
        Dialect::JsonRpc,
        Dialect::Gemini,
        Dialect::GeminiLog,
        Dialect::Qwen,
        Dialect::QwenLog,
        Dialect::Cursor,
        Dialect::OpenCode,
        Dialect::Copilot,
        #[cfg(test)]
        Dialect::Toy,
        Dialect::Generic,
    ];

    /// The agent's descriptor: what its module says of it. The one place that matches on
    /// the agent; every method below reads a field of it (docs/DESIGN.md, "Adding an
    /// agent").
    pub(crate) fn agent(self) -> &'static Agent {
        match self {
            Dialect::Claude => &claude::AGENT,
            Dialect::ClaudeLog => &claude_log::AGENT,
            Dialect::Codex => &codex::AGENT,
            Dialect::CodexLog => &codex_log::AGENT,
            Dialect::JsonRpc => &jsonrpc::AGENT,
            Dialect::Gemini => &gemini::AGENT,
            Dialect::GeminiLog => &gemini_log::AGENT,
            Dialect::Qwen => &qwen::AGENT,
            Dialect::QwenLog => &qwen::LOG_AGENT,
            Dialect::Cursor => &cursor::AGENT,
            Dialect::OpenCode => &opencode::AGENT,
            Dialect::Copilot => &copilot::AGENT,
            #[cfg(test)]
            Dialect::Toy => &toy::AGENT,
            Dialect::Generic => &generic::AGENT,
        }
    }

    pub fn name(self) -> &'static str {
        self.agent().name
    }

    pub fn parse(s: &str) -> Option<Dialect> {
        Dialect::ALL.iter().copied().find(|d| d.name() == s)
    }

    /// The record types the dialect knows (empty for `generic`: it knows none and flags none).
    pub fn known_types(self) -> &'static [&'static str] {
        self.agent().known_types
    }

    /// Whether `ty` is a type the dialect knows (Copilot also knows new members of its
    /// dotted event families).
    pub fn knows(self, ty: &str) -> bool {
        let agent = self.agent();
        match agent.knows {
            Some(knows) => knows(ty),
            None => agent.known_types.contains(&ty),
        }
    }

    /// How the dialect shares Claude's shape, if it does: asked by Claude's shared readers
    /// only (engines ask a neutral question, as [`Dialect::warm_anchor`]).
    fn claude_shape(self) -> Option<&'static claude::ClaudeShape> {
        self.agent().claude
    }

    /// The bytes of a record further back than an `events` block's warm-up that the
    /// context of the records after it may still hold, for the warm-up to start from
    /// (`None`: the warm-up's lines suffice).
    pub fn warm_anchor(self) -> Option<&'static [u8]> {
        self.claude_shape()
            .is_some_and(|c| c.reads_messages)
            .then_some(claude::WARM_ANCHOR)
    }

    /// Whether a session named by one record carries to the records after it that name
    /// none. JSON-RPC and generic sessions are read from each record alone.
    pub fn carries_session(self) -> bool {
        self.agent().carries_session
    }

    /// The session a record names itself, if it names one: a top-level `session_id`
    /// (Claude-shaped streams and Gemini's), `sessionId` (the session logs), `sessionID`
    /// (OpenCode), Copilot's `result`, Codex's `thread.started` and the rollout's
    /// `session_meta`.
    pub fn named_session<'a>(self, value: Json<'a>) -> Option<&'a str> {
        (self.agent().named_session)(value)
    }

    /// Calls `f` with each tool call a record holds: its id and, where the record names
    /// it, its tool (`filter --tool`), read as the record's agent writes them. A record of
    /// an input whose agent is not decided (or is `generic`) is read as any agent's.
    pub fn tool_calls<'a>(
        dialect: Option<Dialect>,
        value: Json<'a>,
        f: &mut dyn FnMut(Option<&'a str>, Option<&'a str>),
    ) {
        (dialect.unwrap_or(Dialect::Generic).agent().tools)(value, f)
    }

    /// Pushes to `out` the folders where the agent keeps its NDJSON logs by default,
    /// whether they exist or not; `set` reads an environment variable that is set and not
    /// empty, `home` is the home folder.
    pub fn log_folders(
        self,
        set: &dyn Fn(&str) -> Option<OsString>,
        home: Option<&std::path::Path>,
        out: &mut Vec<crate::input::LogFolder>,
    ) {
        (self.agent().log_folders)(set, home, out)
    }

    // ---- CLI knowledge: the agent programs `ndjq run` supervises ----

    /// The program names the dialect's agent CLI runs as (empty: no CLI ndjq knows).
    pub fn programs(self) -> &'static [&'static str] {
        self.agent().cli.map_or(&[], |cli| cli.programs)
    }

    /// The agent a program's file name says it is.
    pub fn of_program(program: &OsStr) -> Option<Dialect> {
        let name = std::path::Path::new(program).file_name()?.to_str()?;
        Dialect::LISTED
            .iter()
            .copied()
            .find(|d| d.programs().contains(&name))
    }

    /// The command line that resumes session `id` of this agent, run before as `program`
    /// with `args`: each agent's own way (its module says which). `None` when the dialect
    /// has no agent CLI ndjq knows how to resume.
    pub fn resume_command(
        self,
        program: &OsStr,
        args: &[OsString],
        id: &str,
    ) -> Option<Vec<OsString>> {
        self.agent().cli.map(|cli| (cli.resume)(program, args, id))
    }

    /// What a valid record of type `ty` tells a supervisor (session, run begun, run
    /// ended). `None` for a dialect whose agent ndjq does not supervise (its records then
    /// say nothing of the run, and the agent is not taken to be this one).
    pub fn run_facts<'a>(
        self,
        obj: Json<'a>,
        ty: &str,
        subtype: Option<&str>,
    ) -> Option<RunFacts<'a>> {
        self.agent()
            .cli
            .map(|cli| (cli.run_facts)(obj, ty, subtype))
    }

    /// What makes the agent's reader of one input's records into normalized events (its
    /// module's `events`); `None` for `generic`, whose records are all `unknown`
    /// (docs/DESIGN.md, "What an agent module holds").
    pub(crate) fn events(self) -> Option<crate::event::NewReader> {
        self.agent().events
    }

    /// What a record tells the gap trackers (`gaps`, `validate --gaps`), pushed onto `ops`
    /// with their strings in `text`: each agent's `gaps` module reads its own records.
    /// True when the reader also looked up the sequence fields, in its own walk over the
    /// record's keys (the Claude-shaped ones: every record is walked for its chain or its
    /// message anyway).
    pub(crate) fn gap_ops(
        self,
        info: &RecordInfo<'_>,
        value: Json<'_>,
        ops: &mut Vec<crate::gaps::Op>,
        text: &mut String,
    ) -> bool {
        (self.agent().gap_ops)(info, value, ops, text)
    }

    /// What the end of an input leaves unfinished for the gap trackers: a session without
    /// its result (`InputEnd::SessionResult`), or what the agent's process
    /// left open (codex exec: a turn, started items).
    pub(crate) fn input_end(self) -> crate::gaps::InputEnd {
        self.agent().input_end
    }

    /// Calls `f` with each piece of a record's human text (`filter --grep`), read by its
    /// agent's `texts` module, until `f` returns true; whether it did. The agents whose
    /// text is most of their strings, and JSON-RPC and generic records (no known text
    /// fields), are searched in every string. A record read before its input's dialect is
    /// decided (`None`: a transcript opening with file-history-snapshot lines) is read as
    /// the dialect whose known types hold its type.
    pub(crate) fn for_each_text<'a>(
        dialect: Option<Dialect>,
        value: Json<'a>,
        f: &mut dyn FnMut(Json<'a>) -> bool,
    ) -> bool {
        match dialect {
            Some(d) => (d.agent().texts)(value, f),
            None => {
                let ty = texts::str_at(value, "type");
                let guess = Dialect::LISTED.iter().copied().find(|d| {
                    d.agent().guessed_by_type && ty.is_some_and(|t| d.known_types().contains(&t))
                });
                match guess {
                    Some(_) => Dialect::for_each_text(guess, value, f),
                    None => texts::strings(Some(value), f),
                }
            }
        }
    }

    /// Whether a record of this dialect's signature was seen: decisive evidence only.
    fn recognises(self, obj: Json<'_>, ty: Option<&str>) -> bool {
        (self.agent().recognises)(obj, ty)
    }

    fn check(self, obj: Json<'_>, head: &Head<'_>, problems: &mut Vec<SchemaProblem>) {
        (self.agent().check)(obj, head, problems)
    }
}

/// A known type missing a required field, or holding one of the wrong kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    /// Dotted path of the field, e.g. `message.content`.
    pub path: String,
    /// What the field should be, e.g. `array` or `string or array`.
    pub expected: &'static str,
    /// What it is; `None` when it is missing.
    pub found: Option<Kind>,
}

/// The token counts of a usage object (`prefix` its path): each present must be a count
/// ([`Json::as_count`]: `1e3` and `100.0` are; `"100"`, -1, 1.5 and 2^64 are not), or it
/// is a schema problem naming the field, since stats would count it as 0.
pub(crate) fn check_counts<const N: usize>(
    usage: Option<Json<'_>>,
    prefix: &str,
    keys: [&str; N],
    problems: &mut Vec<SchemaProblem>,
) {
    let Some(usage) = usage.filter(|u| u.kind() == Kind::Object) else {
        return;
    };
    for (v, key) in usage.get_many(keys).into_iter().zip(keys) {
        let Some(v) = v else { continue };
        if v.kind() == Kind::Null || v.as_count().is_some() {
            continue;
        }
        problems.push(SchemaProblem {
            path: format!("{prefix}.{key}"),
            expected: Want::Count.name(),
            found: Some(v.kind()),
        });
    }
}

impl SchemaProblem {
    pub fn message(&self, ty: &str) -> String {
        match self.found {
            None => format!(
                "`{ty}` record lacks required field `{}` ({})",
                self.path, self.expected
            ),
            Some(k) => format!(
                "`{ty}` record field `{}` should be {}, found {}",
                self.path,
                self.expected,
                k.as_str()
            ),
        }
    }
}

/// What a dialect's checks expect of a field.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Want {
    Str,
    Bool,
    Num,
    Obj,
    Arr,
    StrOrArr,
    StrOrNum,
    /// A token count: a non-negative integer below 2^64 ([`Json::as_count`]).
    Count,
    /// A cost: a number, not negative ([`Json::as_cost`]).
    Cost,
}

impl Want {
    fn accepts(self, k: Kind) -> bool {
        matches!(
            (self, k),
            (Want::Str, Kind::String)
                | (Want::Bool, Kind::Bool)
                | (Want::Num, Kind::Number)
                | (Want::Obj, Kind::Object)
                | (Want::Arr, Kind::Array)
                | (Want::StrOrArr, Kind::String | Kind::Array)
                | (Want::StrOrNum, Kind::String | Kind::Number)
                | (Want::Count | Want::Cost, Kind::Number)
        )
    }

    fn name(self) -> &'static str {
        match self {
            Want::Str => "string",
            Want::Bool => "boolean",
            Want::Num => "number",
            Want::Obj => "object",
            Want::Arr => "array",
            Want::StrOrArr => "string or array",
            Want::StrOrNum => "string or number",
            Want::Count => "a count (an integer from 0 to 2^64-1)",
            Want::Cost => "a cost (a number, not negative)",
        }
    }
}

/// Checks that `path` exists in `obj` (when `required`) and has the wanted kind. A field
/// that is `null` counts as absent for optional fields.
pub(crate) fn expect(
    obj: Json<'_>,
    path: &str,
    want: Want,
    required: bool,
    problems: &mut Vec<SchemaProblem>,
) {
    // A missing parent is reported by its own check; its children are not reported again.
    // The paths are short: a plain loop finds the dot sooner than a string search.
    let (parent, field) = match path.bytes().rposition(|c| c == b'.') {
        Some(at) => match (obj.dotted(path.get(..at).unwrap_or("")), path.get(at + 1..)) {
            (Some(p), Some(field)) => (p, field),
            _ => return,
        },
        None => (obj, path),
    };
    check_value(parent.step(field), path, want, required, problems);
}

/// The check of [`expect`] on a field already looked up (`found`, at `path`), for a
/// dialect that fetches several fields in one walk ([`Json::get_many`]).
pub(crate) fn check_value(
    found: Option<Json<'_>>,
    path: &str,
    want: Want,
    required: bool,
    problems: &mut Vec<SchemaProblem>,
) {
    match found {
        None if required => problems.push(SchemaProblem {
            path: path.to_string(),
            expected: want.name(),
            found: None,
        }),
        None => {}
        Some(v) if !required && v.kind() == Kind::Null => {}
        Some(v)
            if !want.accepts(v.kind())
                || (matches!(want, Want::Count) && v.as_count().is_none())
                || (matches!(want, Want::Cost) && v.as_cost().is_none()) =>
        {
            problems.push(SchemaProblem {
                path: path.to_string(),
                expected: want.name(),
                found: Some(v.kind()),
            })
        }
        Some(_) => {}
    }
}

/// How many records with no decisive signature are looked at before an input is taken to
/// be `generic`.
const DETECTION_WINDOW: u32 = 64;

/// What a record is, as far as its dialect can tell.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordInfo<'a> {
    /// The dialect in force for the record (`None` while detection is still undecided).
    pub dialect: Option<Dialect>,
    /// The record's type (`type`, or the `--type-field` path for `generic`).
    pub ty: Option<&'a str>,
    /// Its `subtype`, when that is a string.
    pub subtype: Option<&'a str>,
    /// Its top-level `timestamp`, found in the classifier's walk over the record.
    pub(crate) timestamp: Option<Json<'a>>,
    /// Its top-level `payload` (a Codex rollout's body), found in the same walk.
    pub(crate) payload: Option<Json<'a>>,
    /// In a Claude input, the other top-level fields its checks and `stats` read, found in
    /// the same walk.
    pub(crate) claude: Option<ClaudeTop>,
}

/// The classifier's walk in an input whose agent reads [`ClaudeTop`]: its own four names
/// first, then Claude's.
const CLASSIFIER_WALK: [&str; 13] = ClaudeTop::after(["type", "subtype", "timestamp", "payload"]);

/// What an agent's schema check is given besides the record: its type (the one it is
/// checked as) and the top-level fields the classifier's walk found.
#[derive(Clone, Copy)]
pub(crate) struct Head<'a> {
    pub(crate) ty: &'a str,
    pub(crate) timestamp: Option<Json<'a>>,
    pub(crate) payload: Option<Json<'a>>,
    pub(crate) claude: Option<ClaudeTop>,
}

/// Per-record findings of the dialect.
#[derive(Debug, Default)]
pub struct Findings {
    /// The type is not one the dialect knows.
    pub unknown_type: bool,
    pub schema: Vec<SchemaProblem>,
}

/// Detects the dialect of one input and classifies its records.
#[derive(Debug)]
pub struct Classifier {
    forced: Option<Dialect>,
    current: Option<Dialect>,
    undecided: u32,
    type_field: Vec<String>,
}

impl Classifier {
    /// `forced` skips detection; `type_field` is the dotted path of the type in `generic`.
    pub fn new(forced: Option<Dialect>, type_field: Vec<String>) -> Self {
        Classifier {
            forced,
            current: forced,
            undecided: 0,
            type_field,
        }
    }

    /// Starts a new input: detection begins again.
    pub fn reset(&mut self) {
        self.current = self.forced;
        self.undecided = 0;
    }

    /// The dialect in force now.
    pub fn dialect(&self) -> Option<Dialect> {
        self.current
    }

    /// Classifies one parsed value, filling `findings`.
    pub fn classify<'a>(&mut self, value: Json<'a>, findings: &mut Findings) -> RecordInfo<'a> {
        findings.unknown_type = false;
        findings.schema.clear();
        if !value.is_object() {
            return RecordInfo {
                dialect: self.current,
                ..RecordInfo::default()
            };
        }
        // The one walk over the record's top level: the agents' checks and `stats` read
        // the time and a rollout's payload from here rather than walking it again (a
        // Codex line was walked four times), and the fields of `ClaudeTop` too in the
        // input of an agent that reads them (`ClaudeShape::top`). Only there: each key
        // asked for is one more comparison for every key of every record.
        let wide = if self
            .current
            .and_then(Dialect::claude_shape)
            .is_some_and(|c| c.top)
        {
            value.places_many(CLASSIFIER_WALK)
        } else {
            None
        };
        let (top_type, subtype, timestamp, payload, claude) = match wide {
            Some([ty, subtype, timestamp, payload, claude @ ..]) => {
                let at = |p: Place| value.at_place(p);
                (
                    at(ty),
                    at(subtype),
                    at(timestamp),
                    at(payload),
                    Some(ClaudeTop(claude)),
                )
            }
            None => {
                let [top_type, subtype, timestamp, payload] =
                    value.get_many(["type", "subtype", "timestamp", "payload"]);
                (top_type, subtype, timestamp, payload, None)
            }
        };
        let top_type = top_type.and_then(|t| t.as_str());
        let subtype = subtype.and_then(|s| s.as_str());
        if self.current.is_none() {
            self.current = Dialect::ALL
                .iter()
                .copied()
                .find(|d| d.recognises(value, top_type));
            if self.current.is_none() {
                self.undecided += 1;
                if self.undecided >= DETECTION_WINDOW {
                    self.current = Some(Dialect::Generic);
                }
            }
        } else if self.forced.is_none() {
            // A stream whose agent a later record may tell apart (`Agent::turns_into`).
            let turns_into = self.current.and_then(|d| d.agent().turns_into);
            if let Some(later) = turns_into.and_then(|f| f(value, top_type)) {
                self.current = Some(later);
            }
        }
        let ty = match self.current {
            Some(Dialect::Generic) | None => value.path(&self.type_field).and_then(|t| t.as_str()),
            Some(_) => top_type,
        };
        let info = RecordInfo {
            dialect: self.current,
            ty,
            subtype,
            timestamp,
            payload,
            claude,
        };
        let Some(dialect) = self.current else {
            return info;
        };
        let head = |ty| Head {
            ty,
            timestamp,
            payload,
            claude,
        };
        let untyped = dialect.agent().untyped.and_then(|f| f(value, ty));
        if let Some(as_type) = untyped {
            // A record its type does not tell (`Agent::untyped`): checked as the agent says.
            dialect.check(value, &head(as_type), &mut findings.schema);
        } else if let Some(t) = ty {
            // A dialect that knows no types (`generic`) flags none.
            if !dialect.known_types().is_empty() && !dialect.knows(t) {
                findings.unknown_type = true;
            } else {
                dialect.check(value, &head(t), &mut findings.schema);
            }
        }
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_all(lines: &[&str]) -> Vec<(Option<Dialect>, bool, usize)> {
        let mut c = Classifier::new(None, vec!["type".to_string()]);
        let mut f = Findings::default();
        lines
            .iter()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("valid");
                let info = c.classify(Json::Serde(&v), &mut f);
                (info.dialect, f.unknown_type, f.schema.len())
            })
            .collect()
    }

    #[test]
    fn listed_and_detection_order_hold_the_same_dialects() {
        let mut listed = Dialect::LISTED.to_vec();
        let mut all = Dialect::ALL.to_vec();
        listed.sort();
        all.sort();
        assert_eq!(listed, all);
        for d in Dialect::ALL {
            assert_eq!(Dialect::parse(d.name()), Some(*d));
        }
    }

    #[test]
    fn detection_ignores_key_order() {
        let got = classify_all(&[
            r#"{"is_error":false,"session_id":"s","subtype":"success","type":"result"}"#,
        ]);
        assert_eq!(got[0].0, Some(Dialect::Claude));
        let got = classify_all(&[
            r#"{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#,
        ]);
        assert_eq!(got[0].0, Some(Dialect::ClaudeLog));
        let got = classify_all(&[r#"{"thread_id":"t","type":"thread.started"}"#]);
        assert_eq!(got[0].0, Some(Dialect::Codex));
        let got = classify_all(&[r#"{"payload":{},"timestamp":"x","type":"session_meta"}"#]);
        assert_eq!(got[0].0, Some(Dialect::CodexLog));
        let got = classify_all(&[r#"{"id":1,"method":"initialize","params":{}}"#]);
        assert_eq!(got[0].0, Some(Dialect::JsonRpc));
    }

    #[test]
    fn claude_shaped_agents_are_told_apart_by_their_init_or_their_own_types() {
        let init = |extra: &str| {
            format!(r#"{{"type":"system","subtype":"init","session_id":"s"{extra}}}"#)
        };
        let dialect_of = |lines: &[&str]| classify_all(lines).last().and_then(|r| r.0);
        assert_eq!(
            dialect_of(&[&init(r#","tools":[]"#)]),
            Some(Dialect::Claude)
        );
        // Qwen Code names its version; Cursor's init has no tools list (a hand-made init
        // with neither tools nor Cursor's apiKeySource stays Claude).
        let qwen = init(r#","tools":[],"qwen_code_version":"0.24.4""#);
        assert_eq!(dialect_of(&[&qwen]), Some(Dialect::Qwen));
        assert_eq!(
            dialect_of(&[&init(r#","model":"Auto","apiKeySource":"login""#)]),
            Some(Dialect::Cursor)
        );
        assert_eq!(
            dialect_of(&[&init(r#","model":"claude-sonnet-4-5""#)]),
            Some(Dialect::Claude)
        );
        // A stream that does not open with its init turns Cursor at its first own type.
        let got = classify_all(&[
            r#"{"type":"user","session_id":"s","message":{"content":"hi"}}"#,
            r#"{"type":"tool_call","subtype":"started","session_id":"s","call_id":"c","tool_call":{}}"#,
        ]);
        assert_eq!(got[0].0, Some(Dialect::Claude));
        assert_eq!(got[1], (Some(Dialect::Cursor), false, 0));
        // Session-log keys: Gemini's metadata and Qwen's parts are not Claude transcripts.
        let gemini_meta = r#"{"sessionId":"s","projectHash":"h","startTime":"t"}"#;
        assert_eq!(dialect_of(&[gemini_meta]), Some(Dialect::GeminiLog));
        let qwen_log = r#"{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[]}}"#;
        assert_eq!(dialect_of(&[qwen_log]), Some(Dialect::QwenLog));
        // OpenCode's and Copilot's lines; Codex's dotted types stay Codex.
        let oc = r#"{"type":"text","timestamp":1,"sessionID":"ses_x","part":{"text":"hi"}}"#;
        assert_eq!(dialect_of(&[oc]), Some(Dialect::OpenCode));
        let cp = r#"{"type":"user.message","data":{"content":"hi"},"id":"e","timestamp":"t"}"#;
        assert_eq!(dialect_of(&[cp]), Some(Dialect::Copilot));
        let codex = r#"{"type":"item.completed","item":{"id":"i","type":"agent_message"}}"#;
        assert_eq!(dialect_of(&[codex]), Some(Dialect::Codex));
        // Gemini's stream, and its `-o json` document (no type).
        let gm =
            r#"{"type":"init","timestamp":"2025-01-01T00:00:00Z","session_id":"s","model":"auto"}"#;
        assert_eq!(dialect_of(&[gm]), Some(Dialect::Gemini));
        let doc = r#"{"session_id":"s","response":"hi","stats":{"models":{}}}"#;
        assert_eq!(classify_all(&[doc])[0], (Some(Dialect::Gemini), false, 0));
        // Copilot's new event of a known family is known; a foreign one is not.
        let new_event = r#"{"type":"assistant.brand_new","data":{},"id":"e2","timestamp":"t"}"#;
        let odd = r#"{"type":"telemetry","data":{},"id":"e3","timestamp":"t"}"#;
        let got = classify_all(&[cp, new_event, odd]);
        assert_eq!(got[1], (Some(Dialect::Copilot), false, 0));
        assert_eq!(got[2], (Some(Dialect::Copilot), true, 0));
    }

    #[test]
    fn unknown_types_and_schema_problems_are_flagged_new_subtypes_are_not() {
        let got = classify_all(&[
            r#"{"type":"system","subtype":"init","session_id":"s","tools":[]}"#,
            r#"{"type":"system","subtype":"brand_new_subtype","session_id":"s"}"#,
            r#"{"type":"telemetry","session_id":"s"}"#,
            r#"{"type":"assistant","session_id":"s","message":{"content":"not a list"}}"#,
        ]);
        assert_eq!(got[0], (Some(Dialect::Claude), false, 0));
        assert_eq!(got[1], (Some(Dialect::Claude), false, 0));
        assert_eq!(got[2], (Some(Dialect::Claude), true, 0));
        assert_eq!(got[3], (Some(Dialect::Claude), false, 1));
    }

    /// The problems of one Claude record, as `path:found`.
    fn claude_problems(line: &str) -> Vec<String> {
        let mut c = Classifier::new(Some(Dialect::Claude), vec!["type".to_string()]);
        let mut f = Findings::default();
        let v: serde_json::Value = serde_json::from_str(line).expect("valid");
        c.classify(Json::Serde(&v), &mut f);
        f.schema
            .iter()
            .map(|p| format!("{}:{}", p.path, p.found.map_or("missing", Kind::as_str)))
            .collect()
    }

    #[test]
    fn nested_fields_are_checked_once_their_parent_exists() {
        // A missing parent is reported alone; a parent of the wrong kind also lacks its
        // children; optional fields may be null.
        let cases: &[(&str, &[&str])] = &[
            (
                r#"{"type":"assistant","session_id":"s"}"#,
                &["message:missing"],
            ),
            (
                r#"{"type":"assistant","session_id":"s","message":"x"}"#,
                &["message:string", "message.content:missing"],
            ),
            (
                r#"{"type":"assistant","message":{"content":[],"id":1,"usage":null}}"#,
                &["session_id:missing", "message.id:number"],
            ),
            (
                r#"{"type":"assistant","session_id":"s","message":{"content":{},"usage":[]}}"#,
                &["message.content:object", "message.usage:array"],
            ),
            (
                r#"{"type":"user","session_id":"s","message":{"content":"hi"}}"#,
                &[],
            ),
            (
                r#"{"type":"user","session_id":7,"message":{"content":1}}"#,
                &["session_id:number", "message.content:number"],
            ),
            (
                r#"{"type":"stream_event","session_id":"s","event":{}}"#,
                &["event.type:missing"],
            ),
            (
                r#"{"type":"assistant","session_id":"s","message":{"content":[]},"message":[]}"#,
                &["message:array", "message.content:missing"],
            ),
        ];
        for (line, want) in cases {
            assert_eq!(claude_problems(line), *want, "{line}");
        }
    }

    #[test]
    fn undecided_inputs_become_generic_and_flag_nothing() {
        let lines: Vec<String> = (0..70).map(|i| format!(r#"{{"type":"t{i}"}}"#)).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let got = classify_all(&refs);
        assert_eq!(got[0].0, None);
        assert_eq!(got[69], (Some(Dialect::Generic), false, 0));
    }
}
