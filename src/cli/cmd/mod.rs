//! One file per subcommand: each chooses its consumers and its sink.

pub mod completions;
pub mod events;
pub mod filter;
pub mod gaps;
pub mod man;
pub mod report;
pub mod run;
pub mod stats;
pub mod statusline;
pub mod validate;

use anyhow::{Context, Result};
use ndjq::pipeline::{Record, Status};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// How many of the findings an input left open are written at a time (`gaps`,
/// `validate --gaps`): an input can leave 100,000 tool calls open.
pub(crate) const ENDING_CHUNK: usize = 1024;

/// The most bytes read of a file taken whole (`--pricing`, each `stats --merge` input):
/// LiteLLM's whole table is under 2 MiB and a stats report of 100,000 groups some tens of
/// MiB, while `/dev/zero` or a log named by mistake would fill memory (docs/REFERENCE.md).
pub(crate) const WHOLE_READ_CAP: u64 = 256 << 20;

/// Reads `reader` whole, up to [`WHOLE_READ_CAP`] bytes; more is an error naming `what`.
pub(crate) fn read_capped(reader: impl std::io::Read, what: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut text = Vec::new();
    reader
        .take(WHOLE_READ_CAP + 1)
        .read_to_end(&mut text)
        .with_context(|| format!("cannot read {what}"))?;
    if text.len() as u64 > WHOLE_READ_CAP {
        anyhow::bail!(
            "{what} is larger than {} MiB, the most ndjq reads of it; not read",
            WHOLE_READ_CAP >> 20
        );
    }
    Ok(text)
}

/// Writes a whole document (the `report` page) to `target`: into a new temporary file
/// beside it, renamed over it once complete and on disk, so a run that fails or is ended
/// midway leaves `target` as it was, never half a page (docs/REFERENCE.md, "A whole
/// document is written whole"). A symlink to a regular file is written through: its
/// target is replaced. An existing file keeps its permissions. What is not a regular file
/// (`/dev/stdout`, `/dev/null`, a FIFO) is written as it is: it cannot be replaced.
pub(crate) fn write_whole(target: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::ErrorKind;
    let shown = || ndjq::sink::sanitize(&ndjq::input::path_name(target)).into_owned();
    let existing = std::fs::metadata(target).ok();
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        anyhow::bail!("cannot write {}: it is a folder", shown());
    }
    let direct = || -> Result<()> {
        let mut file =
            File::create(target).with_context(|| format!("cannot create {}", shown()))?;
        file.write_all(bytes)
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write {}", shown()))
    };
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        return direct();
    }
    let is_link = std::fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link {
        // `/dev/stdout` redirected to a file resolves through /proc: not a place to
        // create a file beside.
        match std::fs::canonicalize(target) {
            Ok(real) if !real.starts_with("/proc") && !real.starts_with("/dev") => real,
            _ => return direct(),
        }
    } else {
        target.to_path_buf()
    };
    let Some(name) = target.file_name() else {
        anyhow::bail!("cannot write {}: not a file name", shown());
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut attempt = 0u32;
    let (temp, mut file) = loop {
        // A dot name with no log ending: never taken by a walk of the folder.
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".ndjq-{}-{attempt}.tmp", std::process::id()));
        let temp = dir.join(temp_name);
        match File::options().write(true).create_new(true).open(&temp) {
            Ok(f) => break (temp, f),
            Err(e) if e.kind() == ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => {
                return Err(e).with_context(|| format!("cannot create a file beside {}", shown()))
            }
        }
    };
    let written = (|| {
        if let Some(m) = &existing {
            file.set_permissions(m.permissions())?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, &target)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(e).with_context(|| format!("cannot write {}", shown()));
    }
    Ok(())
}

/// The `--rejects` file: every invalid record's raw bytes, byte for byte. Shards of a
/// parallel pass collect them in memory (`Rejects<Vec<u8>>`).
#[derive(Debug)]
pub struct Rejects<W: Write> {
    out: W,
    /// The last record written had no `\n` (an input's unterminated last line): one is
    /// added before the next record so records never run together.
    open_line: bool,
    /// The record last offered was invalid and overlong: its further chunks belong here.
    taking_chunks: bool,
    pub written: u64,
}

impl Rejects<BufWriter<File>> {
    /// Creates the `--rejects` file (checked against the inputs when the command line was
    /// resolved) and marks it as an output, so a folder walk that reaches it skips it.
    pub fn create(path: &Path, common: &crate::cli::config::Common) -> Result<Self> {
        let file = File::create(path).with_context(|| {
            format!(
                "cannot create --rejects file {}",
                ndjq::input::path_name(path)
            )
        })?;
        common.sources.add_output(&file);
        Ok(Rejects::new(BufWriter::with_capacity(64 << 10, file)))
    }

    /// The `--rejects` file of a run, if one is asked for.
    pub fn for_run(common: &crate::cli::config::Common) -> Result<Option<Self>> {
        common
            .rejects
            .as_deref()
            .map(|p| Rejects::create(p, common))
            .transpose()
    }
}

impl Rejects<Vec<u8>> {
    /// Takes what was collected: the bytes and the number of records.
    /// The shard starts afresh: the `\n` a collected record lacked is the merge's to add
    /// (in input order), not the next block's, which a different shard may collect.
    pub fn take(&mut self) -> (Vec<u8>, u64) {
        self.open_line = false;
        self.taking_chunks = false;
        (
            std::mem::take(&mut self.out),
            std::mem::take(&mut self.written),
        )
    }
}

impl<W: Write> Rejects<W> {
    pub fn new(out: W) -> Self {
        Rejects {
            out,
            open_line: false,
            taking_chunks: false,
            written: 0,
        }
    }

    /// Adds records collected by a shard.
    pub fn merge(&mut self, bytes: &[u8], records: u64) -> std::io::Result<()> {
        self.written += records;
        if bytes.is_empty() {
            return Ok(());
        }
        write_record(&mut self.out, bytes, &mut self.open_line)
    }

    /// Saves the record if it is invalid (and the rest of it, when it is overlong).
    pub fn offer(&mut self, record: &Record<'_>) -> std::io::Result<()> {
        self.taking_chunks = false;
        if record.status != Status::Invalid {
            return Ok(());
        }
        self.written += 1;
        self.taking_chunks = record.overlong;
        write_record(&mut self.out, record.raw, &mut self.open_line)
    }

    /// The bytes of a line `--recover` did not pass on (the text around an object taken
    /// out of it), saved as a record of their own.
    pub fn leftover(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.taking_chunks = false;
        self.written += 1;
        write_record(&mut self.out, bytes, &mut self.open_line)
    }

    /// More bytes of the overlong record last offered.
    pub fn chunk(&mut self, raw: &[u8]) -> std::io::Result<()> {
        if !self.taking_chunks {
            return Ok(());
        }
        self.out.write_all(raw)?;
        self.open_line = raw.last() != Some(&b'\n');
        Ok(())
    }

    pub fn finish(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Writes a record's raw bytes; when the previous one lacked its `\n`, writes one first.
pub fn write_record(out: &mut impl Write, raw: &[u8], open_line: &mut bool) -> std::io::Result<()> {
    if *open_line {
        out.write_all(b"\n")?;
    }
    out.write_all(raw)?;
    *open_line = raw.last() != Some(&b'\n');
    Ok(())
}

/// Where a reading command's diagnostics go: the stderr reporter, or (in a shard of a
/// batch pass) a list handed to the reporter when the shard is merged, in order.
pub enum StderrDiagnostics {
    Report(ndjq::sink::Reporter<std::io::Stderr>),
    Collect(Vec<ndjq::diagnostic::Diagnostic>),
}

impl StderrDiagnostics {
    pub fn report(&mut self, d: &ndjq::diagnostic::Diagnostic) -> std::io::Result<()> {
        match self {
            StderrDiagnostics::Report(r) => r.report(d),
            StderrDiagnostics::Collect(list) => {
                if d.severity >= ndjq::diagnostic::Severity::Warning {
                    list.push(d.clone());
                }
                Ok(())
            }
        }
    }

    /// A diagnostic about a whole input (a wrapped child's fate): always shown.
    pub fn notice(&mut self, d: &ndjq::diagnostic::Diagnostic) -> std::io::Result<()> {
        match self {
            StderrDiagnostics::Report(r) => r.notice(d),
            StderrDiagnostics::Collect(list) => {
                list.push(d.clone());
                Ok(())
            }
        }
    }

    /// What a shard collected.
    pub fn take(&mut self) -> Vec<ndjq::diagnostic::Diagnostic> {
        match self {
            StderrDiagnostics::Collect(list) => std::mem::take(list),
            StderrDiagnostics::Report(_) => Vec::new(),
        }
    }

    /// The closing line(s) on stderr.
    pub fn finish(&mut self, summary: Option<&str>) -> std::io::Result<()> {
        match self {
            StderrDiagnostics::Report(r) => r.finish(summary),
            StderrDiagnostics::Collect(_) => Ok(()),
        }
    }
}

/// The format of a diagnostic report (`validate`, `gaps`): as asked, else text on a
/// terminal and JSON otherwise; and its painter (GitHub annotations are never coloured:
/// GitHub reads them, not a terminal).
pub fn diagnostic_output(
    format: Option<crate::cli::args::ValidateFormat>,
    common: &crate::cli::config::Common,
) -> (ndjq::sink::Format, ndjq::sink::Painter) {
    use crate::cli::args::ValidateFormat;
    use ndjq::sink::Format;
    let format = match format {
        Some(ValidateFormat::Text) => Format::Text,
        Some(ValidateFormat::Json) => Format::Json,
        Some(ValidateFormat::Csv) => Format::Csv,
        Some(ValidateFormat::Github) => Format::Github,
        None if common.stdout_is_tty => Format::Text,
        None => Format::Json,
    };
    let painter = if format == Format::Github {
        ndjq::sink::Painter::new(false)
    } else {
        common.painter
    };
    (format, painter)
}

/// `--fail-on` as a severity.
pub fn severity(arg: crate::cli::args::SeverityArg) -> ndjq::diagnostic::Severity {
    use crate::cli::args::SeverityArg;
    use ndjq::diagnostic::Severity;
    match arg {
        SeverityArg::Error => Severity::Error,
        SeverityArg::Warning => Severity::Warning,
        SeverityArg::Info => Severity::Info,
    }
}
