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

use crate::diagnostic::{printable, Code, Diagnostic};
use crate::dialect::Dialect;
use crate::error::Error;
use crate::pipeline::{Consumer, Flow, Pipeline, Record, Status};
use rustix::event::{PollFd, PollFlags};
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much of the child's stderr is kept for the report.
pub const STDERR_TAIL_BYTES: usize = 64 << 10;
/// The size of a write to a pipe that is never split (Linux).
const PIPE_BUF: usize = 4096;
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

/// If this process is the trampoline (the ndjq binary started by a supervisor with the
/// command as its arguments), becomes the command and never returns, or returns the exit
/// status when it cannot. `None` for an ordinary start of ndjq.
///
/// The parent-death signal must be set in the child itself; doing it here, before `exec`,
/// needs no `unsafe` `pre_exec` hook. It survives `exec`.
pub fn trampoline() -> Option<i32> {
    let parent = std::env::var_os(TRAMPOLINE_VAR)?;
    let mut argv = std::env::args_os();
    let program = argv.next()?;
    let args: Vec<OsString> = argv.collect();
    // Dies with the supervisor (Linux; elsewhere the group is still ended on every exit
    // path ndjq controls); and if the supervisor is already gone, does not start at all.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::process::set_parent_process_death_signal(Some(Signal::KILL));
    let parent_alive = rustix::process::getppid()
        .map(|p| p.as_raw_nonzero().get().to_string())
        .is_some_and(|p| OsStr::new(&p) == parent);
    if !parent_alive {
        return Some(1);
    }
    let err = Command::new(&program)
        .args(&args)
        .env_remove(TRAMPOLINE_VAR)
        .exec();
    let _ = writeln!(
        io::stderr(),
        "ndjq: cannot run `{}`: {err}",
        Path::new(&program).display()
    );
    Some(if err.kind() == io::ErrorKind::NotFound {
        127
    } else {
        126
    })
}

/// Finds the program as `exec` would: a name with a `/` as a path, else on `PATH`. `Err`
/// is the exit status (127 not found, 126 not executable) and a message.
pub fn resolve_program(program: &OsStr) -> Result<PathBuf, (i32, String)> {
    let shown = Path::new(program).display().to_string();
    let executable =
        |p: &Path| std::fs::metadata(p).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if program.as_encoded_bytes().contains(&b'/') {
        let p = PathBuf::from(program);
        return match executable(&p) {
            Ok(true) => Ok(p),
            Ok(false) => Err((126, format!("cannot run `{shown}`: not an executable file"))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err((127, format!("cannot run `{shown}`: no such file")))
            }
            Err(e) => Err((126, format!("cannot run `{shown}`: {e}"))),
        };
    }
    if program.is_empty() {
        return Err((127, "cannot run an empty command".to_string()));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut found_not_executable = None;
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join(program);
        match executable(&candidate) {
            Ok(true) => return Ok(candidate),
            Ok(false) if candidate.is_file() => found_not_executable = Some(candidate),
            _ => {}
        }
    }
    match found_not_executable {
        Some(p) => Err((
            126,
            format!("cannot run `{shown}`: {} is not executable", p.display()),
        )),
        None => Err((127, format!("cannot run `{shown}`: not found on PATH"))),
    }
}

/// The command line that resumes a session: `--restart-cmd` when given, else the agent's
/// own way: Claude's original arguments with `--resume ID` (an existing `--resume`, `-r`,
/// `--continue`, `-c` or `--session-id` dropped); Codex's `exec resume ID` before the
/// prompt; Gemini CLI, Qwen Code and Cursor also take `--resume ID` (an existing
/// `--resume`/`-r`, and Qwen's and Cursor's `--continue`, dropped; Gemini's `-c` is
/// `--checkpointing` and stays); OpenCode `run --session ID` (an existing `--session`,
/// `-s`, `--continue`, `-c` dropped). `None` when there is no way.
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
struct Watch {
    /// When the recent invalid records arrived (at most `restart_errors` kept).
    errors: VecDeque<Instant>,
    corrupt: bool,
    /// The agent the records say the child is (one ndjq can resume).
    agent: Option<Dialect>,
    /// The newest session id (Claude system/init, Codex thread.started).
    session_id: Option<String>,
    /// When the terminal event (Claude result, Codex turn.completed/failed) came, unless a
    /// new session began after it.
    terminal_at: Option<Instant>,
    /// The line number of the last record, for the location of process diagnostics.
    last_line: u64,
    /// Whether the command wrote anything on stdout: one that stalls before that has no
    /// session to resume and is safely started again as it was.
    printed: bool,
}

/// Passes records on to the command's consumer, noting what supervision needs.
struct Watching<'a> {
    inner: &'a mut dyn Consumer,
    watch: &'a RefCell<Watch>,
    errors: u32,
    window: Duration,
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

fn note_valid(w: &mut Watch, record: &Record<'_>) {
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

/// Signals to ndjq while it supervises: flags set by the handlers, and a socket they
/// write to so a wait wakes up.
#[derive(Debug)]
struct Signals {
    wake: UnixStream,
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
    hup: Arc<AtomicBool>,
    /// The first signal received (its number), and how many SIGINTs came.
    first: Option<i32>,
    interrupts: u32,
}

impl Signals {
    fn register() -> io::Result<Signals> {
        let (wake, write) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        let int = Arc::new(AtomicBool::new(false));
        let term = Arc::new(AtomicBool::new(false));
        let hup = Arc::new(AtomicBool::new(false));
        for (sig, flag) in [
            (signal_hook::consts::SIGINT, &int),
            (signal_hook::consts::SIGTERM, &term),
            (signal_hook::consts::SIGHUP, &hup),
        ] {
            signal_hook::flag::register(sig, Arc::clone(flag))?;
            signal_hook::low_level::pipe::register(sig, write.try_clone()?)?;
        }
        Ok(Signals {
            wake,
            int,
            term,
            hup,
            first: None,
            interrupts: 0,
        })
    }

    /// The signals that arrived since the last call, in a fixed order.
    fn take(&mut self) -> Vec<i32> {
        let mut buf = [0u8; 64];
        while matches!((&self.wake).read(&mut buf), Ok(n) if n > 0) {}
        let mut got = Vec::new();
        for (sig, flag) in [
            (signal_hook::consts::SIGINT, &self.int),
            (signal_hook::consts::SIGTERM, &self.term),
            (signal_hook::consts::SIGHUP, &self.hup),
        ] {
            if flag.swap(false, Ordering::SeqCst) {
                got.push(sig);
            }
        }
        for &sig in &got {
            self.first.get_or_insert(sig);
            if sig == signal_hook::consts::SIGINT {
                self.interrupts += 1;
            }
        }
        got
    }
}

/// Why ndjq ends a child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    Corrupt,
    Stalled,
    AfterResult,
    Interrupted,
    /// The consumer needs no more records (`filter -m`), or writing failed.
    Done,
}

/// The child's stderr, drained on its own thread.
#[derive(Debug)]
struct StderrDrain {
    tail: Arc<Mutex<VecDeque<u8>>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl StderrDrain {
    fn start(
        mut from: std::process::ChildStderr,
        mut to: Box<dyn Write + Send>,
    ) -> io::Result<StderrDrain> {
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(4096)));
        let (tx, done) = std::sync::mpsc::channel();
        let keep = Arc::clone(&tail);
        std::thread::Builder::new()
            .name("child-stderr".into())
            .spawn(move || {
                let mut buf = vec![0u8; 16 << 10];
                // Passed on in whole lines where it can be, so that ndjq's own diagnostics
                // on the same stderr do not land in the middle of one.
                let mut pending: Vec<u8> = Vec::new();
                loop {
                    let n = match from.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(_) => break,
                    };
                    pending.extend_from_slice(&buf[..n]);
                    let upto = if pending.len() > PIPE_BUF {
                        pending.len()
                    } else {
                        memchr::memrchr(b'\n', &pending).map_or(0, |i| i + 1)
                    };
                    if upto > 0 {
                        // Passing it on may fail (a closed stderr): the tail is kept anyway.
                        let _ = to.write_all(&pending[..upto]).and_then(|_| to.flush());
                        pending.drain(..upto);
                    }
                    if let Ok(mut t) = keep.lock() {
                        t.extend(&buf[..n]);
                        let excess = t.len().saturating_sub(STDERR_TAIL_BYTES);
                        t.drain(..excess);
                    }
                }
                let _ = to.write_all(&pending).and_then(|_| to.flush());
                let _ = tx.send(());
            })?;
        Ok(StderrDrain { tail, done })
    }

    /// Waits (at most `limit`: a grandchild may hold stderr open) for the drain to end,
    /// and returns the tail.
    fn finish(self, limit: Duration) -> Vec<u8> {
        let _ = self.done.recv_timeout(limit);
        self.tail
            .lock()
            .map(|t| t.iter().copied().collect())
            .unwrap_or_default()
    }
}

/// One run of the child, read as an input.
struct Running<'a> {
    child: Child,
    pgid: Pid,
    stdout: ChildStdout,
    stdout_eof: bool,
    /// Set once reaped (in `finish`).
    status: Option<ExitStatus>,
    /// When its exit was seen (it is not reaped before `finish`).
    exited_at: Option<Instant>,
    last_output: Instant,
    last_wait: Instant,
    stop: Option<(StopReason, Instant)>,
    killed: bool,
    tee: Option<&'a mut File>,
    watch: &'a RefCell<Watch>,
    signals: Option<&'a mut Signals>,
    options: &'a ChildOptions,
}

impl Running<'_> {
    fn signal_group(&self, sig: Signal) {
        // The group outlives its leader while any member is alive, and its id is not
        // reused while it is in use; once empty, this is ESRCH and harmless.
        let _ = rustix::process::kill_process_group(self.pgid, sig);
    }

    /// Starts ending the child: TERM to the group now, KILL after the grace period.
    fn begin_stop(&mut self, reason: StopReason) {
        if self.stop.is_some() {
            return;
        }
        self.stop = Some((reason, Instant::now() + self.options.grace));
        if self.exited_at.is_none() {
            self.signal_group(Signal::TERM);
        }
    }

    /// Notes the child's exit without reaping it: until it is reaped, its pid (the group's
    /// id) cannot be reused, so signalling the group stays safe.
    fn check_exit(&mut self, now: Instant) -> io::Result<()> {
        if self.exited_at.is_none() {
            self.last_wait = now;
            let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
            match rustix::process::waitid(WaitId::Pid(self.pgid), options) {
                Ok(Some(_)) => self.exited_at = Some(now),
                Ok(None) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    fn handle_signals(&mut self) {
        let Some(signals) = self.signals.as_deref_mut() else {
            return;
        };
        let got = signals.take();
        let second_interrupt = signals.interrupts >= 2;
        for sig in got {
            if self.exited_at.is_none() {
                if second_interrupt {
                    self.signal_group(Signal::KILL);
                    self.killed = true;
                } else if let Some(s) = Signal::from_named_raw(sig) {
                    self.signal_group(s);
                }
            }
            if self.stop.is_none() {
                // Ended by the signal passed on; KILL after the grace period.
                self.stop = Some((StopReason::Interrupted, Instant::now() + self.options.grace));
            }
        }
    }

    /// The earliest moment something must be done without new output.
    fn next_deadline(&self) -> Option<Instant> {
        let mut at: Option<Instant> = None;
        let mut consider = |t: Instant| at = Some(at.map_or(t, |a| a.min(t)));
        if self.exited_at.is_none() {
            match self.stop {
                Some((_, kill_at)) if !self.killed => consider(kill_at),
                Some(_) => {}
                None => {
                    if let Some(idle) = self.options.idle_timeout {
                        consider(self.last_output + idle);
                    }
                    if let Some(t) = self.watch.borrow().terminal_at {
                        consider(t.max(self.last_output) + self.options.grace);
                    }
                }
            }
        } else if let Some(exited) = self.exited_at {
            consider(exited.max(self.last_output) + self.options.grace);
        }
        at
    }

    /// Ends the run: stops the child if it still runs, ends what is left of its group,
    /// reaps it, and says how it ended.
    fn finish(&mut self) -> (Option<ExitStatus>, Option<StopReason>) {
        if self.exited_at.is_none() {
            if self.stop.is_none() {
                self.stop = Some((StopReason::Done, Instant::now() + self.options.grace));
                self.signal_group(Signal::TERM);
            }
            let kill_at = self.stop.map_or_else(Instant::now, |(_, at)| at);
            loop {
                let now = Instant::now();
                if self.check_exit(now).is_err() || self.exited_at.is_some() {
                    break;
                }
                if now >= kill_at {
                    self.signal_group(Signal::KILL);
                    break;
                }
                std::thread::sleep(TICK / 5);
            }
        }
        // Whatever of the tree is left (a grandchild holding a pipe) goes too, while the
        // unreaped leader still holds the group's id.
        self.signal_group(Signal::KILL);
        self.status = self.child.wait().ok();
        (self.status, self.stop.map(|(reason, _)| reason))
    }
}

impl Read for Running<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            self.handle_signals();
            let now = Instant::now();
            if self.stop.is_none() && self.exited_at.is_none() {
                let (corrupt, terminal_at) = {
                    let w = self.watch.borrow();
                    (w.corrupt, w.terminal_at)
                };
                if corrupt {
                    self.begin_stop(StopReason::Corrupt);
                } else if self
                    .options
                    .idle_timeout
                    .is_some_and(|idle| now.duration_since(self.last_output) >= idle)
                {
                    self.begin_stop(StopReason::Stalled);
                } else if terminal_at.is_some_and(|t| {
                    // Quiet since its result (and since its last output): it is done.
                    now.duration_since(t.max(self.last_output)) >= self.options.grace
                }) {
                    self.begin_stop(StopReason::AfterResult);
                }
            }
            if let Some((_, kill_at)) = self.stop {
                if !self.killed && self.exited_at.is_none() && now >= kill_at {
                    self.signal_group(Signal::KILL);
                    self.killed = true;
                }
            }
            if self.exited_at.is_none()
                && (self.stdout_eof || now.duration_since(self.last_wait) >= TICK)
            {
                self.check_exit(now)?;
            }
            if self.exited_at.is_some() && self.stdout_eof {
                return Ok(0);
            }
            let timeout = self
                .next_deadline()
                .map_or(TICK, |d| d.saturating_duration_since(now).min(TICK));
            let ts = rustix::event::Timespec {
                tv_sec: timeout.as_secs() as i64,
                tv_nsec: i64::from(timeout.subsec_nanos()),
            };
            let stdout_fd = self.stdout.as_fd();
            let mut fds = Vec::with_capacity(2);
            if !self.stdout_eof {
                fds.push(PollFd::new(&stdout_fd, PollFlags::IN));
            }
            if let Some(signals) = self.signals.as_deref() {
                fds.push(PollFd::new(&signals.wake, PollFlags::IN));
            }
            let ready = match rustix::event::poll(&mut fds, Some(&ts)) {
                Ok(_) => !self.stdout_eof && !fds[0].revents().is_empty(),
                Err(rustix::io::Errno::INTR) => false,
                Err(e) => return Err(e.into()),
            };
            drop(fds);
            if !ready {
                // The child is gone but something it started holds its stdout open: what
                // comes is read, and once nothing has come for the grace period, the rest
                // of the group is ended. Bytes already waiting are never left behind.
                if let Some(exited) = self.exited_at {
                    let quiet_since = exited.max(self.last_output);
                    if Instant::now().duration_since(quiet_since) >= self.options.grace {
                        self.signal_group(Signal::KILL);
                        self.stdout_eof = true;
                        return Ok(0);
                    }
                }
                continue;
            }
            match self.stdout.read(buf) {
                Ok(0) => self.stdout_eof = true,
                Ok(n) => {
                    self.last_output = Instant::now();
                    self.watch.borrow_mut().printed = true;
                    if let Some(tee) = self.tee.as_deref_mut() {
                        tee.write_all(&buf[..n])?;
                    }
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        // Never leave a child behind, whatever ended the run (a write error, a panic).
        if self.status.is_none() {
            self.signal_group(Signal::KILL);
            let _ = self.child.wait();
        }
    }
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

/// `SIGSEGV (11)`.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return format!("signal {sig}"),
    };
    format!("{name} ({sig})")
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

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

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
                Some(Dialect::Claude),
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

    #[test]
    fn codex_resumes_with_exec_resume_before_the_prompt() {
        let args = os(&["exec", "--json", "-m", "o3", "fix it"]);
        let argv = resume_command(None, OsStr::new("codex"), &args, "t-9", None);
        assert_eq!(
            argv,
            Some(os(&[
                "codex", "exec", "--json", "-m", "o3", "resume", "t-9", "fix it"
            ]))
        );
        // No prompt: the id goes last; an old resume is replaced.
        let args = os(&["exec", "--json", "resume", "t-1"]);
        let argv = resume_command(
            Some(Dialect::Codex),
            OsStr::new("codex"),
            &args,
            "t-2",
            None,
        );
        assert_eq!(
            argv,
            Some(os(&["codex", "exec", "--json", "resume", "t-2"]))
        );
        // A model name is an option's value, not a prompt.
        let args = os(&["exec", "-m", "o3"]);
        let argv = resume_command(Some(Dialect::Codex), OsStr::new("codex"), &args, "t", None);
        assert_eq!(
            argv,
            Some(os(&["codex", "exec", "-m", "o3", "resume", "t"]))
        );
    }

    #[test]
    fn gemini_qwen_cursor_and_opencode_resume_their_own_way() {
        let run = |program: &str, args: &[&str]| {
            resume_command(None, OsStr::new(program), &os(args), "S", None)
        };
        // Gemini: `-c` is --checkpointing and stays; an old --resume goes.
        assert_eq!(
            run(
                "gemini",
                &["-p", "go", "-c", "--resume", "latest", "-o", "stream-json"]
            ),
            Some(os(&[
                "gemini",
                "-p",
                "go",
                "-c",
                "-o",
                "stream-json",
                "--resume",
                "S"
            ]))
        );
        assert_eq!(
            run("/usr/bin/qwen", &["-p", "go", "--continue", "--resume=old"]),
            Some(os(&["/usr/bin/qwen", "-p", "go", "--resume", "S"]))
        );
        assert_eq!(
            run("cursor-agent", &["-p", "go", "--resume", "c1"]),
            Some(os(&["cursor-agent", "-p", "go", "--resume", "S"]))
        );
        // OpenCode: `run --session ID`, an old --session / -s / --continue dropped.
        assert_eq!(
            run("opencode", &["run", "-s", "old", "--format", "json", "go"]),
            Some(os(&[
                "opencode",
                "run",
                "--session",
                "S",
                "--format",
                "json",
                "go"
            ]))
        );
        assert_eq!(
            run("opencode", &["--print-logs", "run", "-c", "go"]),
            Some(os(&[
                "opencode",
                "--print-logs",
                "run",
                "--session",
                "S",
                "go"
            ]))
        );
    }

    #[test]
    fn a_template_wins_and_an_unknown_agent_has_no_way() {
        let argv = resume_command(
            Some(Dialect::Claude),
            OsStr::new("claude"),
            &[],
            "a b",
            Some("my-agent --session '{session_id}' \"x y\""),
        );
        assert_eq!(argv, Some(os(&["my-agent", "--session", "a b", "x y"])));
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
