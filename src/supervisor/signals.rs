//! Signals to ndjq while it supervises: SIGINT, SIGTERM and SIGHUP are noted by handlers
//! that wake the wait, so they can be passed on to the child's process group.

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Signals to ndjq while it supervises: flags set by the handlers, and a socket they
/// write to so a wait wakes up.
#[derive(Debug)]
pub(super) struct Signals {
    pub(super) wake: UnixStream,
    pub(super) int: Arc<AtomicBool>,
    pub(super) term: Arc<AtomicBool>,
    pub(super) hup: Arc<AtomicBool>,
    /// The first signal received (its number), and how many SIGINTs came.
    pub(super) first: Option<i32>,
    pub(super) interrupts: u32,
}

impl Signals {
    pub(super) fn register() -> io::Result<Signals> {
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
    pub(super) fn take(&mut self) -> Vec<i32> {
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
