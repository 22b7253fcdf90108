//! Diagnostics: the codes of the error taxonomy (docs/REFERENCE.md, "Diagnostic codes"), their
//! severities, and where a problem sits (file, line, column, byte offset).
//!
//! This module owns the vocabulary only. Deciding when a diagnostic is raised belongs to
//! the stations that see the problem (framing, decoding, dialects); printing it belongs to
//! the sinks.

use std::fmt;
use std::sync::Arc;

/// How bad a diagnostic is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! codes {
    ($($variant:ident => $name:literal, $sev:ident;)*) => {
        /// Every diagnostic code ndjq can raise.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            /// All codes, in the order docs/REFERENCE.md lists them ("Diagnostic codes").
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// The default severity of the code.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev,)* }
            }
        }
    };
}

codes! {
    InvalidUtf8 => "PROTO_INVALID_UTF8", Error;
    InvalidJson => "PROTO_INVALID_JSON", Error;
    Truncated => "PROTO_TRUNCATED", Error;
    NotObject => "PROTO_NOT_OBJECT", Warning;
    TextNoise => "PROTO_TEXT_NOISE", Warning;
    UnknownType => "PROTO_UNKNOWN_TYPE", Warning;
    Schema => "PROTO_SCHEMA", Warning;
    LineTooLong => "PROTO_LINE_TOO_LONG", Error;
    TooDeep => "PROTO_TOO_DEEP", Error;
    Crlf => "PROTO_CRLF", Info;
    Bom => "PROTO_BOM", Info;
    EmptyLine => "PROTO_EMPTY_LINE", Info;
    SeqGap => "SEQ_GAP", Error;
    SeqDuplicate => "SEQ_DUPLICATE", Warning;
    SeqOutOfOrder => "SEQ_OUT_OF_ORDER", Warning;
    SessNoInit => "SESS_NO_INIT", Warning;
    SessNoResult => "SESS_NO_RESULT", Warning;
    SessErrorResult => "SESS_ERROR_RESULT", Error;
    ToolOrphanUse => "TOOL_ORPHAN_USE", Warning;
    ToolOrphanResult => "TOOL_ORPHAN_RESULT", Warning;
    ToolError => "TOOL_ERROR", Info;
    RpcUnanswered => "RPC_UNANSWERED", Warning;
    RpcUnmatchedResponse => "RPC_UNMATCHED_RESPONSE", Warning;
    RpcDuplicateId => "RPC_DUPLICATE_ID", Warning;
    ProcSpawnFailed => "PROC_SPAWN_FAILED", Error;
    ProcExitNonzero => "PROC_EXIT_NONZERO", Error;
    ProcKilled => "PROC_KILLED", Error;
    ProcStalled => "PROC_STALLED", Error;
    ProcRestarted => "PROC_RESTARTED", Info;
    ProcGaveUp => "PROC_GAVE_UP", Error;
}

impl Code {
    /// Looks a code up by its name, case-insensitively.
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem, located.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// The input's display name (`-` for stdin).
    pub file: Arc<str>,
    /// 1-based line number of the record.
    pub line: u64,
    /// 1-based byte column within the record, when the problem has one.
    pub column: Option<u64>,
    /// Absolute byte offset in the (decompressed) input of the problem, or of the record.
    pub offset: u64,
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// A short, printable piece of the record around the problem.
    pub excerpt: String,
}

impl Diagnostic {
    /// Builds the `file:line:column` location prefix compilers use; in OpenCode's store,
    /// `file:message:<id>` (or `part:<id>`), the row the record is.
    pub fn location(&self) -> String {
        if let Some(row) = self.record() {
            return format!("{}:{row}", self.file);
        }
        match self.column {
            Some(c) => format!("{}:{}:{}", self.file, self.line, c),
            None => format!("{}:{}", self.file, self.line),
        }
    }

    /// The row of OpenCode's store the record is (`message:<id>`, `part:<id>`), when it
    /// comes from one.
    pub fn record(&self) -> Option<String> {
        crate::dialect::store::record_label(&self.file, self.line)
    }
}

/// The longest excerpt kept in a diagnostic, in characters.
pub const EXCERPT_CHARS: usize = 60;

/// A printable excerpt of `bytes` around byte index `at` (or from the start): invalid UTF-8
/// is shown as `\xNN`, control characters escaped, at most [`EXCERPT_CHARS`] characters.
pub fn excerpt(bytes: &[u8], at: Option<usize>) -> String {
    let start = match at {
        Some(i) => i.saturating_sub(EXCERPT_CHARS / 2).min(bytes.len()),
        None => 0,
    };
    // Back up to a character boundary so the excerpt does not begin mid-character.
    let mut start = start;
    while start > 0 && start < bytes.len() && (bytes[start] & 0xC0) == 0x80 {
        start -= 1;
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut chars = 0;
    let mut pos = start;
    while pos < bytes.len() && chars < EXCERPT_CHARS {
        let rest_start = pos;
        // Only the bytes the excerpt can still show are decoded (at most 4 a character),
        // never the rest of a record of a megabyte once per diagnostic.
        let end = bytes.len().min(pos + (EXCERPT_CHARS - chars) * 4);
        let rest = &bytes[pos..end];
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(s) => (s, false),
            // The prefix up to `valid_up_to` is UTF-8 by construction. A character cut by
            // the window's end is not a bad byte: the window holds every character shown.
            Err(e) => (
                std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default(),
                e.error_len().is_some() || end == bytes.len(),
            ),
        };
        for ch in valid.chars() {
            if chars >= EXCERPT_CHARS {
                break;
            }
            push_escaped(&mut out, ch);
            chars += 1;
            pos += ch.len_utf8();
        }
        if bad && chars < EXCERPT_CHARS && pos == rest_start + valid.len() {
            out.push_str(&format!("\\x{:02X}", bytes[pos]));
            chars += 1;
            pos += 1;
        }
    }
    if pos < bytes.len() {
        out.push('…');
    }
    out
}

/// Text from the input, made safe to put in a one-line message: control characters
/// (ESC, CR, LF, NUL, ...) and the invisible ones of [`crate::sink::is_hidden`] are
/// escaped so they cannot break lines, colour a terminal or reorder a line.
pub fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        push_escaped(&mut out, ch);
    }
    out
}

fn push_escaped(out: &mut String, ch: char) {
    match ch {
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        c if c.is_control() || crate::sink::is_hidden(c) => out.push_str(&crate::sink::escaped(c)),
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_keep_spec_severities() {
        for c in Code::ALL {
            assert_eq!(Code::parse(c.as_str()), Some(*c));
        }
        assert_eq!(Code::parse("proto_truncated"), Some(Code::Truncated));
        assert_eq!(Code::Truncated.severity(), Severity::Error);
        assert_eq!(Code::UnknownType.severity(), Severity::Warning);
        assert_eq!(Code::Crlf.severity(), Severity::Info);
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
    }

    #[test]
    fn excerpt_escapes_bad_bytes_and_controls() {
        assert_eq!(excerpt(b"{\"a\":\xff}", None), "{\"a\":\\xFF}");
        assert_eq!(excerpt(b"a\tb\0", None), "a\\tb\\u{0}");
        let long = "x".repeat(200);
        let e = excerpt(long.as_bytes(), Some(100));
        assert!(e.starts_with('…') && e.ends_with('…'));
        assert_eq!(e.chars().filter(|c| *c == 'x').count(), EXCERPT_CHARS);
        // Wide characters up to the excerpt's end, a bad byte after, a cut one at the end.
        let wide = "é€😀".repeat(40);
        let e = excerpt(wide.as_bytes(), None);
        assert_eq!(e.trim_end_matches('…'), "é€😀".repeat(20));
        let mut cut = wide.as_bytes()[..wide.len() - 2].to_vec();
        assert!(excerpt(&cut, Some(cut.len() - 3)).ends_with("\\xF0\\x9F"));
        cut.truncate(9);
        cut.push(0xFF);
        assert_eq!(excerpt(&cut, None), "é€😀\\xFF");
    }
}
