//! Sinks: the writers that turn records, diagnostics and summaries into json, csv, text or
//! GitHub annotations. They receive plain values and an already-decided [`Painter`]; they
//! never look at the terminal themselves.

mod diagnostics;
pub mod events;
pub mod live;
mod reporter;
pub mod stats;

pub use diagnostics::{csv_row, summary_line, DiagnosticWriter};
pub use reporter::{Reporter, REPORT_LIMIT};

use owo_colors::{OwoColorize, Style};
use std::borrow::Cow;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
    Text,
    Github,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Text => "text",
            Format::Github => "github",
        }
    }
}

/// Colours text when colour was chosen, and is a no-op otherwise.
#[derive(Debug, Clone, Copy)]
pub struct Painter {
    enabled: bool,
}

impl Painter {
    pub fn new(enabled: bool) -> Self {
        Painter { enabled }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    pub fn paint(&self, text: &str, style: Style) -> String {
        if self.enabled {
            text.style(style).to_string()
        } else {
            text.to_string()
        }
    }
}

/// A string from a log, made safe for a terminal table cell: see [`sanitize`]; a tab,
/// which would push a column out of line, shows as `\t`.
pub fn safe(text: &str) -> String {
    sanitize(text).replace('\t', "\\t")
}

/// The columns a terminal gives `text`: wide characters (CJK, most emoji) take two.
/// Colour codes are never in it: cells are painted after they are laid out (see
/// docs/DESIGN.md, "Text tables").
pub fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` padded with spaces to `width` terminal columns.
pub fn pad(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + width);
    out.push_str(text);
    out.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(display_width(text)),
    ));
    out
}

/// Text with its control characters shown escaped (`\e` for ESC), so data can never drive
/// the terminal; `\r` is dropped, tabs are kept. The characters that reorder or break the
/// text around them without showing (BiDi embeddings, overrides and isolates, the
/// direction marks, the line and paragraph separators) are shown escaped too, as
/// `\u{202e}`. Every text output for people passes the strings it takes from a log
/// (types, sessions, models, tools, paths) through it.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| (c.is_control() && c != '\t') || is_invisible_layout(c))
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push(c),
            '\r' => {}
            '\u{1b}' => out.push_str("\\e"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() || is_invisible_layout(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// BiDi embeddings, overrides and isolates (U+202A-E, U+2066-9), the direction marks
/// (U+200E, U+200F, U+061C) and the line and paragraph separators (U+2028, U+2029).
fn is_invisible_layout(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}' | '\u{2029}')
}

/// `1234567` as `1,234,567`: the figures of the text reports and the HTML page.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_groups_digits_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
