//! A running `ndjq ... --follow` for the tests of following: its output collected as it
//! comes, waits for what must come (generous, never asserting on time), and its end by a
//! signal.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long to wait for something that must happen (a loaded machine can be slow).
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A running `ndjq ... --follow`, its stdout and stderr collected as they come.
#[derive(Debug)]
pub struct Live {
    pub child: Child,
    out: Arc<Mutex<Vec<u8>>>,
    err: Arc<Mutex<Vec<u8>>>,
}

pub fn collect(mut from: impl Read + Send + 'static) -> Arc<Mutex<Vec<u8>>> {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&buf);
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = from.read(&mut chunk) {
            if n == 0 {
                break;
            }
            into.lock().expect("lock").extend_from_slice(&chunk[..n]);
        }
    });
    buf
}

impl Live {
    pub fn start(dir: &Path, args: &[&str]) -> Live {
        let mut cmd = super::ndjq_bare_std();
        cmd.args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start ndjq");
        let out = collect(child.stdout.take().expect("stdout"));
        let err = collect(child.stderr.take().expect("stderr"));
        Live { child, out, err }
    }

    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.out.lock().expect("lock")).into_owned()
    }

    pub fn err(&self) -> String {
        String::from_utf8_lossy(&self.err.lock().expect("lock")).into_owned()
    }

    /// Waits until `done(stdout, stderr)`; fails the test after [`PATIENCE`].
    pub fn wait_for(&self, what: &str, done: impl Fn(&str, &str) -> bool) {
        let start = Instant::now();
        while !done(&self.out(), &self.err()) {
            assert!(
                start.elapsed() < PATIENCE,
                "waited in vain for {what}\nstdout:\n{}\nstderr:\n{}",
                self.out(),
                self.err()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` and waits for the exit status; the streams are complete then.
    pub fn stop(self, signal: &str) -> (i32, String, String) {
        self.signal(signal);
        self.end()
    }

    /// Sends `signal` (the exit is waited for by [`Live::end`]).
    pub fn signal(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// Waits for the exit status, after [`Live::signal`]; the streams are complete then.
    pub fn end(mut self) -> (i32, String, String) {
        let start = Instant::now();
        let code = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s.code().unwrap_or(-1);
            }
            assert!(start.elapsed() < PATIENCE, "ndjq did not end on its signal");
            std::thread::sleep(Duration::from_millis(5));
        };
        // The collecting threads see the end of the pipes soon after the exit.
        let start = Instant::now();
        while Arc::strong_count(&self.out) > 1 || Arc::strong_count(&self.err) > 1 {
            if start.elapsed() > PATIENCE {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        (code, self.out(), self.err())
    }
}

pub fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open for append");
    f.write_all(bytes).expect("append");
}
