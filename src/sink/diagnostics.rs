//! Writes diagnostics as they arrive, and the closing summary, in one of four formats:
//! `text` (compiler style), `json` (NDJSON, one diagnostic per line, then a summary
//! object), `csv` (header and one row per diagnostic) and `github` (Actions annotations).

use super::{sanitize, Format, Painter};
use crate::diagnostic::{Diagnostic, Severity};
use crate::summary::Summary;
use owo_colors::Style;
use serde::Serialize;
use std::io::{self, Write};

/// The JSON shape of a diagnostic (docs/REFERENCE.md, "Diagnostic output").
#[derive(Serialize)]
struct DiagnosticJson<'a> {
    file: &'a str,
    line: u64,
    column: Option<u64>,
    offset: u64,
    code: &'a str,
    severity: &'a str,
    message: &'a str,
    excerpt: &'a str,
    /// The row of OpenCode's store the record is (`message:<id>`, `part:<id>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<String>,
}

impl<'a> From<&'a Diagnostic> for DiagnosticJson<'a> {
    fn from(d: &'a Diagnostic) -> Self {
        DiagnosticJson {
            file: &d.file,
            line: d.line,
            column: d.column,
            offset: d.offset,
            code: d.code.as_str(),
            severity: d.severity.as_str(),
            message: &d.message,
            excerpt: &d.excerpt,
            record: d.record(),
        }
    }
}

/// The JSON shape of the closing summary.
#[derive(Serialize)]
struct SummaryJson<'a> {
    files: u64,
    records: u64,
    bytes: u64,
    valid: u64,
    invalid: u64,
    empty: u64,
    errors: u64,
    warnings: u64,
    infos: u64,
    by_code: std::collections::BTreeMap<&'a str, u64>,
    /// Whether `--max-errors` stopped the pass early.
    stopped_early: bool,
}

/// Streams diagnostics to `out` in a chosen format.
#[derive(Debug)]
pub struct DiagnosticWriter<W: Write> {
    out: Counted<W>,
    format: Format,
    painter: Painter,
}

/// A writer that counts the bytes written through it.
#[derive(Debug)]
struct Counted<W> {
    inner: W,
    written: usize,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n;
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf)?;
        self.written += buf.len();
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> DiagnosticWriter<W> {
    pub fn new(out: W, format: Format, painter: Painter) -> io::Result<Self> {
        let mut writer = DiagnosticWriter {
            out: Counted {
                inner: out,
                written: 0,
            },
            format,
            painter,
        };
        if format == Format::Csv {
            let header = [
                "file", "line", "column", "offset", "code", "severity", "message", "excerpt",
            ];
            writer.out.write_all(&csv_row(&header)?)?;
        }
        Ok(writer)
    }

    /// A writer continuing another's output: no CSV header.
    pub fn continuation(out: W, format: Format, painter: Painter) -> Self {
        DiagnosticWriter {
            out: Counted {
                inner: out,
                written: 0,
            },
            format,
            painter,
        }
    }

    /// The bytes written so far (since the output was last taken).
    pub fn written(&self) -> usize {
        self.out.written
    }

    pub fn write(&mut self, d: &Diagnostic) -> io::Result<()> {
        match self.format {
            Format::Json => {
                serde_json::to_writer(&mut self.out, &DiagnosticJson::from(d))?;
                self.out.write_all(b"\n")
            }
            Format::Csv => {
                let column = d.column.map(|c| c.to_string()).unwrap_or_default();
                let row = csv_row(&[
                    &d.file,
                    &d.line.to_string(),
                    &column,
                    &d.offset.to_string(),
                    d.code.as_str(),
                    d.severity.as_str(),
                    &d.message,
                    &d.excerpt,
                ])?;
                self.out.write_all(&row)
            }
            Format::Text => self.write_text(d),
            Format::Github => {
                let level = match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "notice",
                };
                let mut props = format!("file={},line={}", escape_property(&d.file), d.line);
                if let Some(c) = d.column {
                    props.push_str(&format!(",col={c}"));
                }
                props.push_str(&format!(",title={}", d.code));
                writeln!(
                    self.out,
                    "::{level} {props}::{}",
                    escape_data(&format!("{}: {}", d.code, d.message))
                )
            }
        }
    }

    fn write_text(&mut self, d: &Diagnostic) -> io::Result<()> {
        let p = self.painter;
        let sev_style = match d.severity {
            Severity::Error => Style::new().red().bold(),
            Severity::Warning => Style::new().yellow().bold(),
            Severity::Info => Style::new().cyan().bold(),
        };
        // A path, a message naming a type or tool, an excerpt of a line: all from the
        // input, escaped so they cannot drive the terminal.
        writeln!(
            self.out,
            "{}: {}: {}",
            p.paint(&sanitize(&d.location()), Style::new().bold()),
            p.paint(&format!("{}[{}]", d.severity, d.code), sev_style),
            sanitize(&d.message)
        )?;
        if !d.excerpt.is_empty() {
            writeln!(
                self.out,
                "    {} {}",
                p.paint("|", Style::new().blue()),
                p.paint(&sanitize(&d.excerpt), Style::new().dimmed())
            )?;
        }
        Ok(())
    }

    /// Writes the closing summary (CSV has none: it is a table of diagnostics only).
    pub fn finish(&mut self, s: &Summary, stopped_early: bool) -> io::Result<()> {
        match self.format {
            Format::Json => {
                let summary = SummaryJson {
                    files: s.files,
                    records: s.records,
                    bytes: s.bytes,
                    valid: s.valid,
                    invalid: s.invalid,
                    empty: s.empty,
                    errors: s.errors,
                    warnings: s.warnings,
                    infos: s.infos,
                    by_code: s.by_code.iter().map(|(c, n)| (c.as_str(), *n)).collect(),
                    stopped_early,
                };
                serde_json::to_writer(&mut self.out, &serde_json::json!({ "summary": summary }))?;
                self.out.write_all(b"\n")?;
            }
            Format::Csv => {}
            Format::Text | Format::Github => {
                let line = summary_line(s, stopped_early);
                let style = if s.errors > 0 {
                    Style::new().red().bold()
                } else if s.warnings > 0 {
                    Style::new().yellow().bold()
                } else {
                    Style::new().green().bold()
                };
                writeln!(self.out, "{}", self.painter.paint(&line, style))?;
            }
        }
        self.out.flush()
    }

    /// Writes bytes as they are (closing notes of a reporter) and flushes.
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.out.flush()
    }

    /// Writes a shard's output with diagnostics found while merging it put in their places:
    /// each after `text` up to its mark (see [`DiagnosticWriter::written`]); `each` is told
    /// of every one.
    pub fn write_interleaved(
        &mut self,
        text: &[u8],
        found: &[(usize, Diagnostic)],
        mut each: impl FnMut(&Diagnostic),
    ) -> io::Result<()> {
        let mut pos = 0;
        for (mark, d) in found {
            let mark = (*mark).clamp(pos, text.len());
            self.out.write_all(&text[pos..mark])?;
            pos = mark;
            each(d);
            self.write(d)?;
        }
        self.out.write_all(&text[pos..])
    }

    /// Writes bytes as they are, without flushing (merging a shard's output).
    pub fn write_raw_unflushed(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// One line that says what a pass found, for people and CI logs.
pub fn summary_line(s: &Summary, stopped_early: bool) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut line = format!(
        "{} in {}: {} valid, {} invalid, {} empty; {}, {}, {}",
        plural(s.records, "record", "records"),
        plural(s.files, "file", "files"),
        s.valid,
        s.invalid,
        s.empty,
        plural(s.errors, "error", "errors"),
        plural(s.warnings, "warning", "warnings"),
        plural(s.infos, "info", "infos"),
    );
    if !s.by_code.is_empty() {
        let codes: Vec<String> = s.by_code.iter().map(|(c, n)| format!("{c} {n}")).collect();
        line.push_str(&format!(" ({})", codes.join(", ")));
    }
    if stopped_early {
        line.push_str("; stopped early at --max-errors");
    }
    line
}

/// One CSV row, quoted as needed.
pub fn csv_row(fields: &[&str]) -> io::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(fields)?;
    w.into_inner().map_err(|e| io::Error::other(e.to_string()))
}

/// GitHub workflow-command escaping of the message part.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub workflow-command escaping of a property value.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

impl DiagnosticWriter<Vec<u8>> {
    /// Takes what was written so far.
    pub fn take_output(&mut self) -> Vec<u8> {
        self.out.written = 0;
        std::mem::take(&mut self.out.inner)
    }
}
