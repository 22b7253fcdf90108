//! The record and diagnostic tally of a pass: how many records, how many valid, invalid
//! and empty, and how many diagnostics of each code and severity. Every reading command
//! keeps one; `validate` prints it.

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::pipeline::{Record, Status};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub files: u64,
    /// Records, empty ones included: `records = valid + invalid + empty`.
    pub records: u64,
    pub bytes: u64,
    pub valid: u64,
    pub invalid: u64,
    pub empty: u64,
    pub by_code: BTreeMap<Code, u64>,
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
}

impl Summary {
    /// Counts a record and its diagnostics.
    pub fn add_record(&mut self, record: &Record<'_>) {
        self.count_record(record);
        for d in record.diagnostics {
            self.add_diagnostic(d);
        }
    }

    /// Counts a record but not its diagnostics (`gaps` reports other ones).
    pub fn count_record(&mut self, record: &Record<'_>) {
        self.records += 1;
        self.bytes += record.input_len as u64;
        match record.status {
            Status::Valid => self.valid += 1,
            Status::Invalid => self.invalid += 1,
            Status::Empty => self.empty += 1,
        }
    }

    /// Counts bytes of an overlong record that arrived after its first part.
    pub fn add_bytes(&mut self, n: usize) {
        self.bytes += n as u64;
    }

    pub fn add_diagnostic(&mut self, d: &Diagnostic) {
        *self.by_code.entry(d.code).or_insert(0) += 1;
        self.count_severity(d.severity, 1);
    }

    /// Adds `n` diagnostics of `code` at its usual severity (a tally read back from JSON).
    pub fn add_diagnostics(&mut self, code: Code, n: u64) {
        let e = self.by_code.entry(code).or_insert(0);
        *e = e.saturating_add(n);
        self.count_severity(code.severity(), n);
    }

    fn count_severity(&mut self, severity: Severity, n: u64) {
        match severity {
            Severity::Error => self.errors = self.errors.saturating_add(n),
            Severity::Warning => self.warnings = self.warnings.saturating_add(n),
            Severity::Info => self.infos = self.infos.saturating_add(n),
        }
    }

    /// Adds another tally (of other records) to this one. The other may come from a
    /// partial stats file (`stats --merge`): counts saturate rather than wrap or panic.
    pub fn merge(&mut self, other: &Summary) {
        let add = |a: &mut u64, b: u64| *a = a.saturating_add(b);
        add(&mut self.files, other.files);
        add(&mut self.records, other.records);
        add(&mut self.bytes, other.bytes);
        add(&mut self.valid, other.valid);
        add(&mut self.invalid, other.invalid);
        add(&mut self.empty, other.empty);
        for (code, n) in &other.by_code {
            add(self.by_code.entry(*code).or_insert(0), *n);
        }
        add(&mut self.errors, other.errors);
        add(&mut self.warnings, other.warnings);
        add(&mut self.infos, other.infos);
    }

    /// Diagnostics at or above `level`.
    pub fn at_or_above(&self, level: Severity) -> u64 {
        match level {
            Severity::Error => self.errors,
            Severity::Warning => self.errors + self.warnings,
            Severity::Info => self.errors + self.warnings + self.infos,
        }
    }
}
