//! Helpers shared by the integration tests: a hermetic way to run the binary and scratch
//! directories. Only generic helpers live here; each test file keeps its own assertions.
#![allow(dead_code)]

pub mod live;

use std::path::{Path, PathBuf};

/// Path of the `ndjq` binary Cargo built for these tests.
pub fn ndjq_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ndjq"))
}

/// The data generator, an example of the package (examples/ndjq-gen/), beside the `ndjq`
/// the tests run: `cargo test` builds it with the tests; when only some tests were built
/// (`cargo test --test it gen::`), it is built here, once.
pub fn ndjq_gen_path() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let target = ndjq_path();
            let profile_dir = target.parent().expect("ndjq's folder");
            let exe = profile_dir.join("examples/ndjq-gen");
            if !exe.exists() {
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                let mut build = std::process::Command::new(cargo);
                build
                    .args(["build", "--locked", "--example", "ndjq-gen"])
                    .current_dir(env!("CARGO_MANIFEST_DIR"));
                if profile_dir.ends_with("release") {
                    build.arg("--release");
                }
                let ok = build.status().is_ok_and(|s| s.success());
                assert!(ok, "cargo build --example ndjq-gen failed");
            }
            exe
        })
        .clone()
}

/// `ndjq` with a clean environment (only `PATH` kept, so NO_COLOR, CLICOLOR_FORCE and the
/// like cannot leak in) and a fixed working directory.
pub fn ndjq() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(ndjq_path());
    hermetic(&mut cmd);
    cmd
}

/// `ndjq SUBCOMMAND --color never`, hermetic as [`ndjq`].
pub fn ndjq_sub(subcommand: &str) -> assert_cmd::Command {
    let mut cmd = ndjq();
    cmd.arg(subcommand).args(["--color", "never"]);
    cmd
}

/// A hermetic `std::process::Command` for `ndjq` with no arguments yet.
pub fn ndjq_bare_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(ndjq_path());
    hermetic(&mut cmd);
    cmd
}

/// A `std::process::Command` for `ndjq SUBCOMMAND --color never`, for tests that need to
/// drive the pipes themselves (closing stdout early, slow readers, ...).
pub fn ndjq_std(subcommand: &str) -> std::process::Command {
    let mut cmd = ndjq_bare_std();
    cmd.arg(subcommand).args(["--color", "never"]);
    cmd
}

/// Applies the clean environment to either command type.
trait Hermetic {
    fn env_clear_(&mut self) -> &mut Self;
    fn env_(&mut self, key: &str, value: std::ffi::OsString) -> &mut Self;
    fn current_dir_(&mut self, dir: &Path) -> &mut Self;
}

impl Hermetic for assert_cmd::Command {
    fn env_clear_(&mut self) -> &mut Self {
        self.env_clear()
    }
    fn env_(&mut self, key: &str, value: std::ffi::OsString) -> &mut Self {
        self.env(key, value)
    }
    fn current_dir_(&mut self, dir: &Path) -> &mut Self {
        self.current_dir(dir)
    }
}

impl Hermetic for std::process::Command {
    fn env_clear_(&mut self) -> &mut Self {
        self.env_clear()
    }
    fn env_(&mut self, key: &str, value: std::ffi::OsString) -> &mut Self {
        self.env(key, value)
    }
    fn current_dir_(&mut self, dir: &Path) -> &mut Self {
        self.current_dir(dir)
    }
}

fn hermetic<C: Hermetic>(cmd: &mut C) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    cmd.env_clear_()
        .env_("PATH", path)
        .current_dir_(Path::new(env!("CARGO_MANIFEST_DIR")));
}

/// A fresh scratch directory, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("create a temporary directory")
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write a test input file");
    path
}

/// Reads a file the test expects to exist.
pub fn read_file(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The package's `testdata/` folder: everything the tests read lives under it.
pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// The corpus of real captures (`testdata/corpus`, sources in `testdata/SOURCES.md`).
/// Fails when it is missing: the tests over it must never pass vacuously.
pub fn corpus_dir() -> PathBuf {
    let dir = testdata().join("corpus");
    assert!(dir.is_dir(), "the corpus is missing: {}", dir.display());
    dir
}

/// Is this a zstd-compressed test data file (the big captures are stored so)?
pub fn is_zst(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// The bytes ndjq reads from a test data file: a `.zst` file decompressed, any other as
/// it is.
pub fn read_data(path: &Path) -> Vec<u8> {
    let raw = read_file(path);
    if is_zst(path) {
        zstd::decode_all(&raw[..]).unwrap_or_else(|e| panic!("decompress {}: {e}", path.display()))
    } else {
        raw
    }
}

/// A plain copy of a test data file in `dir` (its `.zst` suffix dropped and its bytes
/// decompressed), for tests that need the raw file on disk: a tool that cannot read zstd,
/// or the plain-file code path of ndjq itself. Any other file is returned as it is.
pub fn plain_file(path: &Path, dir: &Path) -> PathBuf {
    if !is_zst(path) {
        return path.to_path_buf();
    }
    let name = path.file_stem().expect("a file name");
    let out = dir.join(name);
    std::fs::write(&out, read_data(path)).expect("write a decompressed copy");
    out
}

/// The deepest bracket nesting outside strings (exact for valid JSON).
pub fn nesting(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &b in bytes {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_str = true,
                b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    deepest
}

/// `ndjq stats -q -f json ARGS PATHS`, which must succeed, read into `T` (a typed report or a
/// `serde_json::Value`).
pub fn stats_json<T: serde::de::DeserializeOwned>(
    args: &[&str],
    paths: &[impl AsRef<std::ffi::OsStr>],
) -> T {
    let out = ndjq_sub("stats")
        .args(["-q", "-f", "json"])
        .args(args)
        .args(paths)
        .output()
        .expect("run ndjq stats");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a stats report")
}
