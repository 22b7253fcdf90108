//! The one escape of the page: every string that comes from a log, a file name or a
//! command line goes through [`escape`] before it is written into HTML, in text and in
//! attribute values alike (docs/DESIGN.md, "The HTML report").

/// Appends `s` to `out` with the five characters that mean something in HTML text or in
/// a quoted attribute (`&`, `<`, `>`, `"`, `'`) written as character references. Control
/// characters other than tab and newline (which HTML would not show, or refuses) become
/// U+FFFD.
pub fn escape_into(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(i) = rest.find(|c: char| {
        matches!(c, '&' | '<' | '>' | '"' | '\'') || (c.is_control() && c != '\n' && c != '\t')
    }) {
        out.push_str(&rest[..i]);
        let c = rest[i..].chars().next().unwrap_or('\u{fffd}');
        out.push_str(match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&#39;",
            _ => "\u{fffd}",
        });
        rest = &rest[i + c.len_utf8()..];
    }
    out.push_str(rest);
}

/// [`escape_into`] a new string.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    escape_into(&mut out, s);
    out
}

/// JSON for a `<script type="application/json">` element: `<` (and the line separators
/// some parsers choke on) written as `\u` escapes, so no string in it can close the
/// element or open a comment. The JSON means the same.
pub fn script_json(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            escape("</script><img src=x onerror='a(1)'> & \"q\""),
            "&lt;/script&gt;&lt;img src=x onerror=&#39;a(1)&#39;&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(escape("a\u{0}b\nc"), "a\u{fffd}b\nc");
        assert_eq!(escape("héllo ✓"), "héllo ✓");
    }

    #[test]
    fn json_cannot_close_its_script() {
        assert_eq!(
            script_json(r#"{"a":"</script>"}"#),
            r#"{"a":"\u003c/script>"}"#
        );
    }
}
