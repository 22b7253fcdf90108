//! The restart policy: what the records say (invalid ones in a window, the session to
//! resume, the run's terminal event) and the command line that resumes the session. What
//! each agent's records and command line mean is the agent's dialect module's knowledge
//! ([`crate::dialect::Dialect::run_facts`], [`crate::dialect::Dialect::resume_command`]).

use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::pipeline::{Consumer, Flow, Record, Status};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The command line that resumes a session: `--restart-cmd` when given (words,
/// `{session_id}` replaced), else the agent's own way, which its dialect module knows
/// ([`Dialect::resume_command`]; the agent the records named, else the one the program's
/// name says). `None` when there is no way.
pub fn resume_command(
    agent: Option<Dialect>,
    program: &OsStr,
    args: &[OsString],
    id: &str,
    template: Option<&str>,
) -> Option<Vec<OsString>> {
    if let Some(t) = template {
        let words = split_words(t)?;
        let argv: Vec<OsString> = words
            .into_iter()
            .map(|w| OsString::from(w.replace("{session_id}", id)))
            .collect();
        return (!argv.is_empty()).then_some(argv);
    }
    agent
        .or_else(|| Dialect::of_program(program))?
        .resume_command(program, args, id)
}

/// Splits a command template into words like a shell does for plain words, single and
/// double quotes, and backslash escapes; nothing is expanded. `None` for an unclosed quote.
pub fn split_words(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// What the records said, as far as supervision cares.
#[derive(Debug, Default)]
pub(super) struct Watch {
    /// When the recent invalid records arrived (at most `restart_errors` kept).
    pub(super) errors: VecDeque<Instant>,
    pub(super) corrupt: bool,
    /// The agent the records say the child is (one ndjq can resume).
    pub(super) agent: Option<Dialect>,
    /// The newest session id (Claude system/init, Codex thread.started).
    pub(super) session_id: Option<String>,
    /// When the terminal event (Claude result, Codex turn.completed/failed) came, unless a
    /// new session began after it.
    pub(super) terminal_at: Option<Instant>,
    /// The line number of the last record, for the location of process diagnostics.
    pub(super) last_line: u64,
    /// Whether the command wrote anything on stdout: one that stalls before that has no
    /// session to resume and is safely started again as it was.
    pub(super) printed: bool,
}

/// Passes records on to the command's consumer, noting what supervision needs.
pub(super) struct Watching<'a> {
    pub(super) inner: &'a mut dyn Consumer,
    pub(super) watch: &'a RefCell<Watch>,
    pub(super) errors: u32,
    pub(super) window: Duration,
}

impl Consumer for Watching<'_> {
    fn begin_input(&mut self, file: &Arc<str>) -> io::Result<()> {
        self.inner.begin_input(file)
    }

    fn record(&mut self, record: &Record<'_>) -> io::Result<Flow> {
        {
            let mut w = self.watch.borrow_mut();
            w.last_line = record.line;
            match record.status {
                Status::Invalid => {
                    let now = Instant::now();
                    while w
                        .errors
                        .front()
                        .is_some_and(|t| now.duration_since(*t) > self.window)
                    {
                        w.errors.pop_front();
                    }
                    w.errors.push_back(now);
                    if self.errors > 0 && w.errors.len() >= self.errors as usize {
                        w.corrupt = true;
                    }
                    while w.errors.len() > self.errors.max(1) as usize {
                        w.errors.pop_front();
                    }
                }
                Status::Valid => note_valid(&mut w, record),
                Status::Empty => {}
            }
        }
        self.inner.record(record)
    }

    fn overlong_chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.overlong_chunk(bytes)
    }

    fn end_input(&mut self, file: &Arc<str>, dialect: Option<Dialect>) -> io::Result<()> {
        self.inner.end_input(file, dialect)
    }

    fn notice(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.inner.notice(d)
    }
}

pub(super) fn note_valid(w: &mut Watch, record: &Record<'_>) {
    let (Some(value), Some(ty), Some(dialect)) =
        (record.value, record.info.ty, record.info.dialect)
    else {
        return;
    };
    let Some(facts) = dialect.run_facts(value, ty, record.info.subtype) else {
        return;
    };
    w.agent = Some(dialect);
    if let Some(id) = facts.session {
        w.session_id = Some(id.to_string());
    }
    if facts.begins {
        w.terminal_at = None;
    }
    if facts.ends {
        w.terminal_at = Some(Instant::now());
    }
}
