//! A wrapped command as an input (`ndjq run -- CMD`, and `-- CMD` on every reading
//! command): the child's stdout is read as it comes and fed through the pipeline, while
//! the child is watched.
//!
//! - It runs in its own process group (signals go to the whole tree it starts), and dies
//!   with ndjq even on `kill -9` (a parent-death signal, set by [`trampoline`]).
//! - Its stderr is drained on a thread, passed on (to ndjq's stderr or a file), and its
//!   last 64 KiB kept for the report; its stdout can be saved byte for byte (`--tee`).
//! - Too many invalid records in a window, or no output for too long, end it (TERM to the
//!   group, KILL after the grace period) and start it again resuming its session.
//! - A child still alive a grace period after its result is ended, and that is a success;
//!   EOF on its stdout is not its end (its exit is), and what a grandchild still holds
//!   open is drained for a bounded time only.
//! - SIGINT/SIGTERM/SIGHUP to ndjq are passed on to the group; a second SIGINT kills it.
//! - It is always reaped, and never signalled once reaped.
//!
//! What it does not own: what the records mean (the pipeline and the consumer), and the
//! exit status (the caller turns [`Ended`] into one).
//!
//! Its rooms: `process` (the trampoline, the process group, the child read as an input,
//! its stderr drain), `signals` (ndjq's own SIGINT/SIGTERM/SIGHUP), `policy` (what the
//! records say, and the resume command line); this file runs them ([`Supervisor`]). What
//! each agent's records and command line mean is not here: it is the agent's dialect
//! module's ([`crate::dialect::Dialect::run_facts`], [`crate::dialect::Dialect::resume_command`]).

mod policy;
mod process;
mod signals;

pub use policy::{resume_command, split_words};
pub use process::{resolve_program, trampoline};
pub use signals::signal_name;

use policy::{Watch, Watching};
use process::{Running, StderrDrain, StopReason};
use signals::Signals;

use crate::diagnostic::{printable, Code, Diagnostic};
use crate::error::Error;
use crate::pipeline::{Consumer, Flow, Pipeline};
use rustix::process::{Pid, Signal};
use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How much of the child's stderr is kept for the report.
pub const STDERR_TAIL_BYTES: usize = 64 << 10;
/// How often a running child is checked for its exit while it keeps writing.
const TICK: Duration = Duration::from_millis(50);
/// The environment variable that tells the ndjq binary it is the trampoline.
const TRAMPOLINE_VAR: &str = "NDJQ_SUPERVISOR_PID";

/// The command and how to watch it.
#[derive(Debug, Clone)]
pub struct ChildOptions {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// This many invalid records within the window end the child (`--restart-after`).
    pub restart_errors: u32,
    pub restart_window: Duration,
    pub max_restarts: u32,
    /// From TERM to KILL; and how long a child may live on after its result.
    pub grace: Duration,
    /// No output for this long is a stall.
    pub idle_timeout: Option<Duration>,
    /// `--restart-cmd`: words, `{session_id}` replaced by the session's id.
    pub restart_cmd: Option<String>,
    /// `--tee`: every byte of the child's stdout.
    pub tee: Option<PathBuf>,
    /// `--stderr`: the child's stderr goes there instead of ndjq's stderr.
    pub stderr: Option<PathBuf>,
    /// Report SESS_NO_RESULT when a child exits 0 without its terminal event (commands
    /// that track sessions report it themselves).
    pub report_no_result: bool,
    /// The ndjq binary, started as a [`trampoline`] that sets the parent-death signal and
    /// then becomes the command. Without it the command is started directly.
    pub launcher: Option<PathBuf>,
}

/// How supervision ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The last child succeeded (it exited 0, or ndjq ended it after its result, or the
    /// consumer needed no more): the command's own verdict stands.
    Success,
    /// ndjq must exit with this status: the child's own, 128+N after signal N, 124 after
    /// a stall, 126/127 when it cannot be started, 130/143/129 when ndjq was interrupted,
    /// 1 when a corrupt child was given up on.
    Failed(i32),
}

/// Starts, watches and restarts the wrapped command, feeding its output through the
/// pipeline into the consumer.
#[derive(Debug)]
pub struct Supervisor {
    options: ChildOptions,
    /// The name inputs and diagnostics carry: the program's file name.
    name: String,
}

impl Supervisor {
    pub fn new(options: ChildOptions) -> Self {
        let name = Path::new(&options.program).file_name().map_or_else(
            || options.program.to_string_lossy().into_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        Supervisor { options, name }
    }

    /// Runs the child (and its restarts) to the end. `Err` only for writing output or a
    /// file of ndjq's own (`--tee`, `--stderr`); everything the child does is reported to
    /// the consumer as diagnostics and summed up in [`Ended`].
    pub fn run(
        &mut self,
        pipeline: &mut Pipeline,
        consumer: &mut dyn Consumer,
    ) -> Result<Ended, Error> {
        let open = |path: &Path, append: bool| {
            std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .append(append)
                .truncate(!append)
                .open(path)
                .map_err(|source| Error::Open {
                    path: path.to_path_buf(),
                    source,
                })
        };
        let mut tee = self
            .options
            .tee
            .as_deref()
            .map(|p| open(p, false))
            .transpose()?;
        let mut signals = Signals::register().ok();
        let mut argv: Vec<OsString> = std::iter::once(self.options.program.clone())
            .chain(self.options.args.iter().cloned())
            .collect();
        let mut restarts = 0;
        loop {
            let file: Arc<str> = if restarts == 0 {
                Arc::from(self.name.as_str())
            } else {
                Arc::from(format!("{} (restart {restarts})", self.name))
            };
            let stderr_to: Box<dyn Write + Send> = match &self.options.stderr {
                Some(p) => Box::new(open(p, restarts > 0)?),
                None => Box::new(io::stderr()),
            };
            let spawned = self.spawn(&argv, stderr_to);
            let (mut child, drain) = match spawned {
                Ok(s) => s,
                Err((status, message)) => {
                    consumer.begin_input(&file).map_err(Error::Write)?;
                    let d = self.diagnostic(&file, 0, Code::ProcSpawnFailed, message, "");
                    consumer.notice(&d).map_err(Error::Write)?;
                    consumer.end_input(&file, None).map_err(Error::Write)?;
                    return Ok(Ended::Failed(status));
                }
            };
            let watch = RefCell::new(Watch::default());
            let pgid = Pid::from_child(&child);
            let Some(stdout) = child.stdout.take() else {
                return Err(Error::Write(io::Error::other("the child has no stdout")));
            };
            let now = Instant::now();
            let mut running = Running {
                child,
                pgid,
                stdout,
                stdout_eof: false,
                status: None,
                exited_at: None,
                last_output: now,
                last_wait: now,
                stop: None,
                killed: false,
                tee: tee.as_mut(),
                watch: &watch,
                signals: signals.as_mut(),
                options: &self.options,
            };
            let mut watching = Watching {
                inner: consumer,
                watch: &watch,
                errors: self.options.restart_errors,
                window: self.options.restart_window,
            };
            let flow = pipeline.run(&file, &mut running, &mut watching);
            let (status, reason) = running.finish();
            drop(running);
            let tail = drain.finish(self.options.grace.max(Duration::from_millis(200)));
            let flow = match flow {
                Ok(flow) => flow,
                Err(Error::Read { source, .. }) => {
                    let d = self.diagnostic(
                        &file,
                        watch.borrow().last_line,
                        Code::ProcKilled,
                        format!("reading the child's output failed: {source}"),
                        "",
                    );
                    consumer.notice(&d).map_err(Error::Write)?;
                    Flow::Continue
                }
                Err(e) => return Err(e),
            };
            let line = watch.borrow().last_line;
            let interrupted = signals.as_ref().and_then(|s| s.first);
            if let Some(sig) = interrupted {
                let d = self.diagnostic(
                    &file,
                    line,
                    Code::ProcKilled,
                    format!(
                        "ndjq received {}; passed it on to the child{}",
                        signal_name(sig),
                        describe_status(status).map_or(String::new(), |s| format!(", which {s}"))
                    ),
                    "",
                );
                consumer.notice(&d).map_err(Error::Write)?;
                return Ok(Ended::Failed(128 + sig));
            }
            let why_restart = match reason {
                Some(StopReason::Corrupt) => Some(format!(
                    "{} invalid records within {}",
                    self.options.restart_errors,
                    seconds(self.options.restart_window)
                )),
                Some(StopReason::Stalled) => {
                    let idle = self.options.idle_timeout.unwrap_or_default();
                    let d = self.diagnostic(
                        &file,
                        line,
                        Code::ProcStalled,
                        format!("no output for {}: the child was ended", seconds(idle)),
                        "",
                    );
                    consumer.notice(&d).map_err(Error::Write)?;
                    Some(format!("no output for {}", seconds(idle)))
                }
                _ => None,
            };
            if let Some(why) = why_restart {
                let (agent, session, printed) = {
                    let w = watch.borrow();
                    (w.agent, w.session_id.clone(), w.printed)
                };
                let next = if restarts >= self.options.max_restarts {
                    Err(format!(
                        "{why}; no restart left (--max-restarts {})",
                        self.options.max_restarts
                    ))
                } else {
                    match &session {
                        // Nothing printed, so nothing to resume and nothing to repeat:
                        // the same command line again (docs/GUIDE.md, ndjq run).
                        None if !printed => Ok(argv.clone()),
                        None if self.options.restart_cmd.is_none() => {
                            Err(format!("{why}; no session id seen to resume"))
                        }
                        _ => resume_command(
                            agent,
                            &self.options.program,
                            &self.options.args,
                            session.as_deref().unwrap_or(""),
                            self.options.restart_cmd.as_deref(),
                        )
                        .ok_or_else(|| {
                            format!(
                                "{why}; cannot tell how to resume `{}` (give --restart-cmd)",
                                self.name
                            )
                        }),
                    }
                };
                match next {
                    Ok(next) => {
                        restarts += 1;
                        let shown: Vec<String> = next.iter().map(|a| shell_quoted(a)).collect();
                        let d = self.diagnostic(
                            &file,
                            line,
                            Code::ProcRestarted,
                            format!("{why}: restarted as `{}`", shown.join(" ")),
                            "",
                        );
                        consumer.notice(&d).map_err(Error::Write)?;
                        argv = next;
                        continue;
                    }
                    Err(message) => {
                        let d = self.diagnostic(&file, line, Code::ProcGaveUp, message, "");
                        consumer.notice(&d).map_err(Error::Write)?;
                        let code = if reason == Some(StopReason::Stalled) {
                            124
                        } else {
                            1
                        };
                        return Ok(Ended::Failed(code));
                    }
                }
            }
            if reason == Some(StopReason::AfterResult) || flow == Flow::Stop {
                return Ok(Ended::Success);
            }
            return self.judge_exit(consumer, &file, line, status, &tail, &watch, restarts);
        }
    }

    /// Turns the exit of a child that ended by itself into diagnostics and an [`Ended`].
    #[allow(clippy::too_many_arguments)]
    fn judge_exit(
        &self,
        consumer: &mut dyn Consumer,
        file: &Arc<str>,
        line: u64,
        status: Option<ExitStatus>,
        tail: &[u8],
        watch: &RefCell<Watch>,
        restarts: u32,
    ) -> Result<Ended, Error> {
        let excerpt = stderr_excerpt(tail);
        let ended = match status.map(|s| (s.code(), s.signal())) {
            Some((Some(0), _)) => {
                let w = watch.borrow();
                if self.options.report_no_result && w.terminal_at.is_none() && w.agent.is_some() {
                    let d = self.diagnostic(
                        file,
                        line,
                        Code::SessNoResult,
                        "the child exited 0 without a terminal result event".to_string(),
                        "",
                    );
                    consumer.notice(&d).map_err(Error::Write)?;
                }
                Ended::Success
            }
            Some((Some(code), _)) => {
                let d = self.diagnostic(
                    file,
                    line,
                    Code::ProcExitNonzero,
                    format!("the child exited with status {code}"),
                    &excerpt,
                );
                consumer.notice(&d).map_err(Error::Write)?;
                Ended::Failed(code)
            }
            Some((None, Some(sig))) => {
                let d = self.diagnostic(
                    file,
                    line,
                    Code::ProcKilled,
                    format!("the child was killed by {}", signal_name(sig)),
                    &excerpt,
                );
                consumer.notice(&d).map_err(Error::Write)?;
                Ended::Failed(128 + sig)
            }
            _ => {
                let d = self.diagnostic(
                    file,
                    line,
                    Code::ProcKilled,
                    "the child's exit status could not be read".to_string(),
                    &excerpt,
                );
                consumer.notice(&d).map_err(Error::Write)?;
                Ended::Failed(1)
            }
        };
        if restarts > 0 && ended != Ended::Success {
            let d = self.diagnostic(
                file,
                line,
                Code::ProcGaveUp,
                format!(
                    "the restarted child failed too: the session is marked crashed after {}",
                    if restarts == 1 {
                        "1 restart".to_string()
                    } else {
                        format!("{restarts} restarts")
                    }
                ),
                "",
            );
            consumer.notice(&d).map_err(Error::Write)?;
        }
        Ok(ended)
    }

    /// Starts one child (through the trampoline when there is a launcher).
    fn spawn(
        &self,
        argv: &[OsString],
        stderr_to: Box<dyn Write + Send>,
    ) -> Result<(Child, StderrDrain), (i32, String)> {
        let program = argv.first().cloned().unwrap_or_default();
        let resolved = resolve_program(&program)?;
        let mut command = match &self.options.launcher {
            Some(launcher) => {
                let mut c = Command::new(launcher);
                c.arg0(&resolved)
                    .env(TRAMPOLINE_VAR, std::process::id().to_string());
                c
            }
            None => Command::new(&resolved),
        };
        command
            .args(&argv[1..])
            .stdin(Stdio::inherit())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = command.spawn().map_err(|e| {
            let status = if e.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            (
                status,
                format!("cannot run `{}`: {e}", Path::new(&program).display()),
            )
        })?;
        let drain = match child.stderr.take() {
            Some(stderr) => StderrDrain::start(stderr, stderr_to),
            None => Err(io::Error::other("no stderr pipe")),
        };
        match drain {
            Ok(drain) => Ok((child, drain)),
            Err(e) => {
                let _ = rustix::process::kill_process_group(Pid::from_child(&child), Signal::KILL);
                let _ = child.wait();
                Err((126, format!("cannot drain the child's stderr: {e}")))
            }
        }
    }

    fn diagnostic(
        &self,
        file: &Arc<str>,
        line: u64,
        code: Code,
        message: String,
        excerpt: &str,
    ) -> Diagnostic {
        Diagnostic {
            file: Arc::clone(file),
            line,
            column: None,
            offset: 0,
            code,
            severity: code.severity(),
            message,
            excerpt: excerpt.to_string(),
        }
    }
}

/// The last lines of the child's stderr (up to 5, at most 400 characters), one line with
/// `⏎` between them, for the crash report.
fn stderr_excerpt(tail: &[u8]) -> String {
    let text = String::from_utf8_lossy(tail);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines.len().saturating_sub(5);
    let joined = lines[start..].join(" ⏎ ");
    let chars: Vec<char> = printable(&joined).chars().collect();
    let keep = chars.len().saturating_sub(400);
    let mut out: String = chars[keep..].iter().collect();
    if keep > 0 {
        out.insert(0, '…');
    }
    out
}

fn describe_status(status: Option<ExitStatus>) -> Option<String> {
    let s = status?;
    match (s.code(), s.signal()) {
        (Some(c), _) => Some(format!("exited with status {c}")),
        (None, Some(sig)) => Some(format!("was killed by {}", signal_name(sig))),
        _ => None,
    }
}

/// An argument as a shell would need it written: bare when it is plain, else in single
/// quotes (so a restart's command line can be copied and run).
fn shell_quoted(arg: &OsStr) -> String {
    let text = arg.to_string_lossy();
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        text.into_owned()
    } else {
        format!("'{}'", printable(&text).replace('\'', r"'\''"))
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_template_wins_and_an_unknown_agent_has_no_way() {
        // Whatever the agent, known or not.
        for agent in Dialect::ALL.iter().map(|d| Some(*d)).chain([None]) {
            let argv = resume_command(
                agent,
                OsStr::new("agent"),
                &[],
                "a b",
                Some("my-agent --session '{session_id}' \"x y\""),
            );
            assert_eq!(argv, Some(os(&["my-agent", "--session", "a b", "x y"])));
        }
        assert_eq!(
            resume_command(None, OsStr::new("agent"), &[], "id", None),
            None
        );
        assert_eq!(split_words("a 'b"), None);
        assert_eq!(
            split_words(r"a\ b  c"),
            Some(vec!["a b".into(), "c".into()])
        );
    }

    #[test]
    fn programs_are_resolved_like_exec_does() {
        assert_eq!(
            resolve_program(OsStr::new("/no/such/ndjq-x")).map_err(|e| e.0),
            Err(127)
        );
        assert_eq!(
            resolve_program(OsStr::new("ndjq-surely-not-on-path")).map_err(|e| e.0),
            Err(127)
        );
        // A folder is not an executable file.
        assert_eq!(resolve_program(OsStr::new("/")).map_err(|e| e.0), Err(126));
        assert!(resolve_program(OsStr::new("/bin/sh")).is_ok());
    }

    #[test]
    fn restart_command_lines_are_shown_quoted() {
        assert_eq!(shell_quoted(OsStr::new("--resume")), "--resume");
        assert_eq!(shell_quoted(OsStr::new("fix it")), "'fix it'");
        assert_eq!(shell_quoted(OsStr::new("it's")), r"'it'\''s'");
        assert_eq!(shell_quoted(OsStr::new("")), "''");
    }

    #[test]
    fn the_stderr_excerpt_keeps_the_last_lines() {
        let tail = b"one\ntwo\n\nthree\nfour\nfive\nsix\n";
        assert_eq!(stderr_excerpt(tail), "two ⏎ three ⏎ four ⏎ five ⏎ six");
        let long = "x".repeat(1000);
        let e = stderr_excerpt(long.as_bytes());
        assert!(e.starts_with('…') && e.chars().count() == 401, "{e}");
    }
}
