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

/// `text` (no colour codes) in at most `width` terminal cells: cut with `…` when longer.
/// A wide character that would straddle the edge is left out (the column is padded).
pub(crate) fn cut(text: &str, width: usize) -> String {
    if display_width(text) <= width {
        return text.to_string();
    }
    cut_cells(text, width, false)
}

/// A line in at most `width` terminal cells, colour codes (`ESC [ … m`, the only escapes
/// a painted line holds: what a log holds is escaped by [`sanitize`]) kept and not
/// counted; a line cut short ends with `…` and a colour reset. The live views' lines.
pub fn fit(line: &str, width: usize) -> std::borrow::Cow<'_, str> {
    let mut cells = 0;
    let mut chars = line.chars().peekable();
    let mut plain = true;
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            plain = false;
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        cells += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if cells > width {
            break;
        }
    }
    if cells <= width {
        return std::borrow::Cow::Borrowed(line);
    }
    std::borrow::Cow::Owned(cut_cells(line, width, !plain))
}

/// The cut of [`cut`] and [`fit`]: the characters of `line` that fit in `width - 1`
/// cells, colour codes kept and not counted, then `…` (and a colour reset when `reset`).
fn cut_cells(line: &str, width: usize, reset: bool) -> String {
    let mut out = String::with_capacity(line.len());
    let mut used = 0;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            out.push(c);
            for c in chars.by_ref() {
                out.push(c);
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    if reset {
        out.push_str("\x1b[0m");
    }
    out
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
/// the terminal; `\r` is dropped, tabs are kept. The characters that change how a terminal
/// orders or shows the text around them without showing themselves ([`is_hidden`]: BiDi
/// overrides and isolates, zero-width characters, line and paragraph separators, the
/// byte-order mark) are escaped too, as `\u{202E}`: a model named with a right-to-left
/// override cannot reverse its row, nor a zero-width space make two names look alike.
/// Every text output for people passes the strings it takes from a log (types, sessions,
/// models, tools, paths) through it.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| (c.is_control() && c != '\t') || is_hidden(c))
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
            c if c.is_control() || is_hidden(c) => out.push_str(&escaped(c)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `c` is one of the invisible characters that reorder or disguise the text around
/// it in a terminal: U+200B-U+200F (zero-width space, joiners, LRM, RLM), U+2028 and
/// U+2029 (line and paragraph separators), U+202A-U+202E (BiDi embeddings and overrides),
/// U+2066-U+2069 (BiDi isolates) and U+FEFF (zero-width no-break space, the BOM).
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// `c` as `\u{HEX}`, upper-case like the `\xNN` of a byte that is not UTF-8.
pub fn escaped(c: char) -> String {
    format!("\\u{{{:X}}}", c as u32)
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
