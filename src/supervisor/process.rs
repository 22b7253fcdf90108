//! The child process: started through the trampoline in its own process group, its
//! stdout read as an input, its stderr drained on a thread, its exit watched and reaped.

use super::policy::Watch;
use super::signals::Signals;
use super::{ChildOptions, STDERR_TAIL_BYTES, TICK, TRAMPOLINE_VAR};
use rustix::event::{PollFd, PollFlags};
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The size of a write to a pipe that is never split (Linux).
const PIPE_BUF: usize = 4096;

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

/// Why ndjq ends a child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StopReason {
    Corrupt,
    Stalled,
    AfterResult,
    Interrupted,
    /// The consumer needs no more records (`filter -m`), or writing failed.
    Done,
}

/// The child's stderr, drained on its own thread.
#[derive(Debug)]
pub(super) struct StderrDrain {
    pub(super) tail: Arc<Mutex<VecDeque<u8>>>,
    pub(super) done: std::sync::mpsc::Receiver<()>,
}

impl StderrDrain {
    pub(super) fn start(
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
    pub(super) fn finish(self, limit: Duration) -> Vec<u8> {
        let _ = self.done.recv_timeout(limit);
        self.tail
            .lock()
            .map(|t| t.iter().copied().collect())
            .unwrap_or_default()
    }
}

/// One run of the child, read as an input.
pub(super) struct Running<'a> {
    pub(super) child: Child,
    pub(super) pgid: Pid,
    pub(super) stdout: ChildStdout,
    pub(super) stdout_eof: bool,
    /// Set once reaped (in `finish`).
    pub(super) status: Option<ExitStatus>,
    /// When its exit was seen (it is not reaped before `finish`).
    pub(super) exited_at: Option<Instant>,
    pub(super) last_output: Instant,
    pub(super) last_wait: Instant,
    pub(super) stop: Option<(StopReason, Instant)>,
    pub(super) killed: bool,
    pub(super) tee: Option<&'a mut File>,
    pub(super) watch: &'a RefCell<Watch>,
    pub(super) signals: Option<&'a mut Signals>,
    pub(super) options: &'a ChildOptions,
}

impl Running<'_> {
    pub(super) fn signal_group(&self, sig: Signal) {
        // The group outlives its leader while any member is alive, and its id is not
        // reused while it is in use; once empty, this is ESRCH and harmless.
        let _ = rustix::process::kill_process_group(self.pgid, sig);
    }

    /// Starts ending the child: TERM to the group now, KILL after the grace period.
    pub(super) fn begin_stop(&mut self, reason: StopReason) {
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
    pub(super) fn check_exit(&mut self, now: Instant) -> io::Result<()> {
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

    pub(super) fn handle_signals(&mut self) {
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
    pub(super) fn next_deadline(&self) -> Option<Instant> {
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
    pub(super) fn finish(&mut self) -> (Option<ExitStatus>, Option<StopReason>) {
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
