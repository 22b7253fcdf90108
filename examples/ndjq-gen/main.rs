//! `ndjq-gen`: the project's own generator of agent NDJSON, for tests, benchmarks and fuzz
//! seeds. Deterministic: the same arguments give byte-identical output on every machine.
//!
//! - `ndjq-gen stream`: one stream of sessions in a dialect (Claude stream-json, Claude
//!   transcripts, Codex exec, Codex rollouts), clean or with damaged lines at a given rate,
//!   with a manifest of the damage (`stream`);
//! - `ndjq-gen tree`: folders of session files as `~/.claude` and `~/.codex` hold them
//!   (`tree`).
//!
//! The session writers (`claude`, `claude_log`, `codex`, `codex_log`) know the record
//! shapes; `text` makes the texts inside them; `stream` and `tree` decide where records go.
//! Nothing here is part of the ndjq library.

mod claude;
mod claude_log;
mod codex;
mod codex_log;
mod rng;
mod session;
mod stream;
mod text;
mod tree;
mod words;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;

use rng::Rng;
use session::{Gen, Out, Totals};
use stream::{Damage, StreamOut, Target};
use text::Texts;

/// Deterministic generator of AI-agent NDJSON streams and session trees (test and benchmark
/// data for ndjq). The same arguments give byte-identical output.
#[derive(Debug, Parser)]
#[command(name = "ndjq-gen", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// One stream of sessions in a dialect; a summary goes to stderr as JSON.
    Stream(StreamArgs),
    /// A folder of session files (Claude projects, Codex sessions); a summary goes to
    /// stderr as JSON.
    Tree(TreeArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Dialect {
    /// Claude Code `--output-format stream-json --verbose`.
    Claude,
    /// Claude Code session transcripts (`~/.claude/projects/*/*.jsonl`).
    ClaudeLog,
    /// `codex exec --json`.
    Codex,
    /// Codex rollout files (`~/.codex/sessions/**/rollout-*.jsonl`).
    CodexLog,
}

#[derive(Debug, clap::Args)]
struct StreamArgs {
    /// Which agent format to write.
    #[arg(long, value_enum, default_value = "claude")]
    dialect: Dialect,
    /// Target size in MiB: the session in progress when it is reached is closed (default 64).
    #[arg(long, value_name = "N", conflicts_with = "records")]
    size_mb: Option<f64>,
    /// Target number of lines: the session in progress when it is reached is closed.
    #[arg(long, value_name = "N")]
    records: Option<u64>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Fraction of records damaged (0 to 1): truncated, bad_utf8, noise, unknown_type,
    /// missing_field, blank, crlf, merged, nul.
    #[arg(long, value_name = "R", default_value_t = 0.0)]
    corrupt_rate: f64,
    /// Put a leading monotonic "seq" field on every record, with occasional gaps.
    #[arg(long)]
    seq: bool,
    /// Write one JSON line per damaged line and sequence gap here:
    /// {"line":N,"kind":K} or {"line":N,"kind":"seq_gap","missing":M}.
    #[arg(long, value_name = "PATH")]
    manifest: Option<PathBuf>,
    /// Output file (default: stdout; `-` too).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    output: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct TreeArgs {
    /// claude-projects (3,000 files, ~300 MiB), claude-large (400 files, ~450 MiB),
    /// claude-bimodal (3,000 files, half ~2 KB, half ~140 KB with a ~110 KB line),
    /// claude-long-lines (400 files of 2 KB to 3.2 MB, those over 1.2 MB with a ~900 KB
    /// line) or codex-sessions (1,000 files, ~200 MiB).
    #[arg(long, value_enum)]
    shape: tree::Shape,
    /// Number of session files (default: the shape's).
    #[arg(long, value_name = "N")]
    files: Option<usize>,
    /// Total size in MiB (default: the shape's).
    #[arg(long, value_name = "M")]
    total_mb: Option<f64>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Percent of the odd-numbered files that are forks of the file before them: a Claude
    /// fork copies its parent's messages (`requestSessionId` naming the parent), a Codex
    /// fork names it (`forked_from_id`) and its cumulative totals start from the parent's.
    /// The summary counts each message once. Default 0: no forks.
    #[arg(long, value_name = "PCT", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    forks: u32,
    /// The folder to fill (made if missing): OUT_DIR/projects/ or OUT_DIR/sessions/ must be
    /// empty or absent.
    out_dir: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Stream(a) => stream(a),
        Command::Tree(a) => tree(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ndjq-gen: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn mib(mb: f64, what: &str) -> Result<u64> {
    if !(mb.is_finite() && mb >= 0.0) {
        bail!("{what} must be a number of MiB >= 0, got {mb}");
    }
    Ok((mb * 1024.0 * 1024.0) as u64)
}

fn tokens_json(t: &Totals) -> serde_json::Value {
    json!({
        "input": t.input,
        "output": t.output,
        "cache_creation": t.cache_creation,
        "cache_read": t.cache_read,
    })
}

fn stream(a: StreamArgs) -> Result<()> {
    if !(0.0..=1.0).contains(&a.corrupt_rate) {
        bail!(
            "--corrupt-rate must be between 0 and 1, got {}",
            a.corrupt_rate
        );
    }
    let target = match (a.records, a.size_mb) {
        (Some(n), _) => Target::Records(n),
        (None, mb) => Target::Bytes(mib(mb.unwrap_or(64.0), "--size-mb")?),
    };
    let started = Instant::now();
    let out: Box<dyn Write> = match &a.output {
        Some(p) if p.as_os_str() != "-" => {
            Box::new(File::create(p).with_context(|| format!("cannot create {}", p.display()))?)
        }
        _ => Box::new(io::stdout().lock()),
    };
    let manifest = match &a.manifest {
        Some(p) => Some(BufWriter::new(
            File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => None,
    };
    let damage = Damage {
        rate: a.corrupt_rate,
        seq: a.seq,
        unknown_types: match a.dialect {
            Dialect::Claude => &[
                "telemetry",
                "assistant_delta",
                "Assistant",
                "progress",
                "heartbeat",
            ],
            _ => &[
                "telemetry",
                "assistant_delta",
                "Assistant",
                "ping",
                "heartbeat",
            ],
        },
    };
    let mut out = StreamOut::new(
        BufWriter::with_capacity(1 << 20, out),
        manifest,
        target,
        damage,
        a.seed,
    );
    let texts = Texts::new(a.seed);
    let mut g = Gen::new(Rng::new(a.seed, 1), &texts);
    while !out.full() {
        match a.dialect {
            Dialect::Claude => claude::session(&mut g, &mut out),
            Dialect::Codex => codex::session(&mut g, &mut out),
            Dialect::ClaudeLog => {
                let place = claude_log::Place {
                    cwd: format!("/home/dev/{}-{}", g.word(), g.word()),
                    session_id: g.uuid(),
                };
                claude_log::session(&mut g, &mut out, &place, false);
            }
            Dialect::CodexLog => {
                let place = codex_log::Place {
                    cwd: format!("/home/dev/{}-{}", g.word(), g.word()),
                    session_id: text::uuid7(&mut g.rng, g.clock),
                    forked_from: None,
                };
                codex_log::session(&mut g, &mut out, &place, false);
            }
        }
    }
    let (bytes, lines) = (out.bytes, out.lines);
    let types = std::mem::take(&mut out.types);
    let corrupt = std::mem::take(&mut out.corrupt);
    out.finish().context("write failed")?;
    let secs = started.elapsed().as_secs_f64();
    let mut summary = json!({
        "bytes": bytes,
        "lines": lines,
        "types": types,
        "corrupt": corrupt,
        "sessions": g.totals.sessions,
        "tokens": tokens_json(&g.totals),
        "seconds": (secs * 100.0).round() / 100.0,
    });
    if matches!(a.dialect, Dialect::Claude | Dialect::ClaudeLog) {
        summary["cost_usd"] = json!((g.totals.cost_usd * 1e6).round() / 1e6);
    }
    eprintln!("{summary}");
    Ok(())
}

fn tree(a: TreeArgs) -> Result<()> {
    let (files, total_mb, _) = a.shape.defaults();
    let files = a.files.unwrap_or(files);
    let total = mib(a.total_mb.unwrap_or(total_mb), "--total-mb")?;
    let started = Instant::now();
    std::fs::create_dir_all(&a.out_dir)
        .with_context(|| format!("cannot create {}", a.out_dir.display()))?;
    let made = tree::make(a.shape, files, total, a.seed, a.forks, &a.out_dir)
        .with_context(|| format!("cannot write the tree under {}", a.out_dir.display()))?;
    let secs = started.elapsed().as_secs_f64();
    let mut summary = json!({
        "files": made.files,
        "bytes": made.bytes,
        "sessions": made.totals.sessions,
        "tokens": tokens_json(&made.totals),
        "seconds": (secs * 100.0).round() / 100.0,
    });
    if a.shape != tree::Shape::CodexSessions {
        summary["cost_usd"] = json!((made.totals.cost_usd * 1e6).round() / 1e6);
    }
    eprintln!("{summary}");
    Ok(())
}
