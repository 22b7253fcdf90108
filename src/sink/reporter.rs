//! Reports the diagnostics of `filter` (and later `events`, `stats`) on stderr, never on
//! stdout: the first few in full, then only a count, so a stream gone bad cannot flood the
//! terminal; a final line says how many were held back.

use super::{DiagnosticWriter, Format, Painter};
use crate::diagnostic::{Diagnostic, Severity};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// How many diagnostics are printed in full before the rest are only counted.
pub const REPORT_LIMIT: u64 = 20;

#[derive(Debug)]
pub struct Reporter<W: Write> {
    writer: Option<DiagnosticWriter<W>>,
    shown: u64,
    held_back: BTreeMap<crate::diagnostic::Code, u64>,
    limit: u64,
}

impl<W: Write> Reporter<W> {
    /// A reporter writing to `err`, or a silent one (`-q`) when `err` is `None`.
    pub fn new(err: Option<W>, painter: Painter) -> io::Result<Self> {
        Ok(Reporter {
            writer: err
                .map(|w| DiagnosticWriter::new(w, Format::Text, painter))
                .transpose()?,
            shown: 0,
            held_back: BTreeMap::new(),
            limit: REPORT_LIMIT,
        })
    }

    /// Reports a diagnostic of warning or error severity (infos are only counted elsewhere).
    pub fn report(&mut self, d: &Diagnostic) -> io::Result<()> {
        if d.severity < Severity::Warning {
            return Ok(());
        }
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        if self.shown < self.limit {
            self.shown += 1;
            w.write(d)?;
            w.flush()
        } else {
            *self.held_back.entry(d.code).or_insert(0) += 1;
            Ok(())
        }
    }

    /// Reports a diagnostic about an input as a whole (a wrapped child restarted, exited
    /// non-zero): always shown, whatever its severity and however many came before.
    pub fn notice(&mut self, d: &Diagnostic) -> io::Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        w.write(d)?;
        w.flush()
    }

    /// Writes the closing line about diagnostics not shown, then `summary` if given.
    pub fn finish(&mut self, summary: Option<&str>) -> io::Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        let hidden: u64 = self.held_back.values().sum();
        let mut out = Vec::new();
        if hidden > 0 {
            let codes: Vec<String> = self
                .held_back
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect();
            writeln!(
                out,
                "ndjq: {hidden} more diagnostics not shown ({})",
                codes.join(", ")
            )?;
        }
        if let Some(s) = summary {
            writeln!(out, "ndjq: {s}")?;
        }
        w.write_raw(&out)
    }
}
