//! The paths of `--where` and `--print`: dotted keys (`message.usage.output_tokens`), array
//! indexes as numbers (`message.content.0`), `*` for any key or index
//! (`message.content.*.name`), and jq's spellings of the same (`.message.content[].name`,
//! `[0]`, `[*]`, `."key.with.dots"`). A path is parsed once; walking it over a record
//! never allocates.

use super::expr::ExprError;
use crate::json::{Json, Kind};

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// An object key, or an array index when the value there is an array.
    Key(String),
    /// `*`: every value of an object, every element of an array.
    Any,
}

/// A parsed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    steps: Vec<Step>,
}

/// Characters that end a path inside a `--where` expression.
pub(crate) fn ends_path(c: char) -> bool {
    matches!(c, '=' | '!' | '<' | '>' | '~') || c.is_whitespace()
}

impl Path {
    /// Parses the path at the start of `text` up to the first character for which `stop`
    /// holds (outside quotes); returns it and the byte index where it stopped. `flag` names
    /// the option in errors.
    pub(crate) fn parse_prefix(
        text: &str,
        stop: impl Fn(char) -> bool,
        flag: &'static str,
    ) -> Result<(Path, usize), ExprError> {
        let err = |at: usize, len: usize, message: &str| {
            ExprError::new(flag, text, at..at + len.max(1), message.to_string())
        };
        let bytes = text.as_bytes();
        let mut steps = Vec::new();
        let mut i = 0;
        // jq's leading dot is optional.
        if bytes.first() == Some(&b'.') {
            i = 1;
        }
        // Whether a step may start here (start, after a dot) or only a `[` / the end.
        let mut need_step = true;
        while let Some(c) = text[i..].chars().next() {
            if c == '[' {
                let close = text[i..]
                    .find(']')
                    .map(|j| i + j)
                    .ok_or_else(|| err(i, 1, "`[` without its `]`"))?;
                let inner = text[i + 1..close].trim();
                if inner.is_empty() || inner == "*" {
                    steps.push(Step::Any);
                } else if inner.bytes().all(|b| b.is_ascii_digit()) {
                    steps.push(Step::Key(inner.to_string()));
                } else if let Ok(key) = serde_json::from_str::<String>(inner) {
                    steps.push(Step::Key(key));
                } else {
                    return Err(err(
                        i,
                        close + 1 - i,
                        "expected `[]`, `[*]`, `[N]` or `[\"key\"]`",
                    ));
                }
                i = close + 1;
                need_step = false;
                continue;
            }
            if !need_step {
                if c == '.' {
                    i += 1;
                    need_step = true;
                    if text[i..].starts_with('[') {
                        need_step = false;
                    }
                    continue;
                }
                if stop(c) {
                    break;
                }
                return Err(err(
                    i,
                    c.len_utf8(),
                    "expected `.`, `[` or the end of the path",
                ));
            }
            // A step: `"quoted key"`, `*`, or a bare key.
            if c == '"' {
                let end = quoted_end(&bytes[i..])
                    .map(|j| i + j)
                    .ok_or_else(|| err(i, text.len() - i, "unterminated quoted key"))?;
                let key = serde_json::from_str::<String>(&text[i..end])
                    .map_err(|_| err(i, end - i, "not a JSON string"))?;
                steps.push(Step::Key(key));
                i = end;
            } else {
                let len = text[i..]
                    .find(|c: char| c == '.' || c == '[' || stop(c))
                    .unwrap_or(text.len() - i);
                if len == 0 {
                    let message = if c == '.' {
                        "empty key (two dots in a row)"
                    } else if i == 0 {
                        "expected a path (like message.model) first"
                    } else {
                        "expected a key after the dot"
                    };
                    return Err(err(i, c.len_utf8(), message));
                }
                let key = &text[i..i + len];
                steps.push(if key == "*" {
                    Step::Any
                } else {
                    Step::Key(key.to_string())
                });
                i += len;
            }
            need_step = false;
        }
        if need_step {
            let message = if steps.is_empty() && i <= 1 {
                "expected a path (like message.model)"
            } else {
                "expected a key after the dot"
            };
            return Err(err(i.min(text.len()), 1, message));
        }
        Ok((Path { steps }, i))
    }

    /// Parses a whole string as a path (`--print`).
    pub fn parse(text: &str, flag: &'static str) -> Result<Path, ExprError> {
        let (path, end) = Path::parse_prefix(text, |_| false, flag)?;
        debug_assert_eq!(end, text.len());
        Ok(path)
    }

    /// Whether a step is `*` (the path can name several values).
    pub fn has_wildcard(&self) -> bool {
        self.steps.contains(&Step::Any)
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Calls `f` with each value the path names in `value`, until `f` returns true (then
    /// `true` is returned). A plain key that is missing on the way gives `None` (jq's
    /// null) when no `*` follows; a `*` over a missing value or a scalar gives nothing.
    pub fn any<'a>(&self, value: Json<'a>, f: &mut dyn FnMut(Option<Json<'a>>) -> bool) -> bool {
        walk(&self.steps, Some(value), f)
    }

    /// The one value of a path without `*` (`None` when missing).
    pub fn get<'a>(&self, value: Json<'a>) -> Option<Json<'a>> {
        let mut found = None;
        self.any(value, &mut |v| {
            found = v;
            true
        });
        found
    }
}

fn walk<'a>(
    steps: &[Step],
    value: Option<Json<'a>>,
    f: &mut dyn FnMut(Option<Json<'a>>) -> bool,
) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return f(value);
    };
    match step {
        Step::Key(key) => {
            let next = value.and_then(|v| v.step(key));
            if next.is_none() && rest.contains(&Step::Any) {
                return false;
            }
            walk(rest, next, f)
        }
        Step::Any => {
            let Some(v) = value else {
                return false;
            };
            let mut done = false;
            match v.kind() {
                Kind::Object => v.for_each_entry(|_, child| {
                    if !done {
                        done = walk(rest, Some(child), f);
                    }
                }),
                Kind::Array => v.for_each_element(|child| {
                    if !done {
                        done = walk(rest, Some(child), f);
                    }
                }),
                _ => {}
            }
            done
        }
    }
}

/// The end (exclusive) of the JSON string opening `bytes`.
fn quoted_end(bytes: &[u8]) -> Option<usize> {
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(text: &str) -> Vec<Step> {
        Path::parse(text, "--print").expect("a path").steps
    }

    fn key(k: &str) -> Step {
        Step::Key(k.to_string())
    }

    #[test]
    fn dotted_bracketed_and_quoted_spellings() {
        assert_eq!(steps("message.model"), [key("message"), key("model")]);
        assert_eq!(steps(".message.model"), [key("message"), key("model")]);
        assert_eq!(
            steps("message.content.*.name"),
            [key("message"), key("content"), Step::Any, key("name")]
        );
        assert_eq!(
            steps("message.content[].name"),
            [key("message"), key("content"), Step::Any, key("name")]
        );
        assert_eq!(steps("a[0].b"), [key("a"), key("0"), key("b")]);
        assert_eq!(steps("a.[*]"), [key("a"), Step::Any]);
        assert_eq!(steps(r#"a."b.c""#), [key("a"), key("b.c")]);
        assert_eq!(steps(r#"a["b c"]"#), [key("a"), key("b c")]);
    }

    #[test]
    fn errors_point_at_the_character() {
        for (text, at) in [
            ("", 0),
            ("a..b", 2),
            ("a.", 2),
            ("a[x]", 1),
            ("a[0", 1),
            ("a.\"b", 2),
        ] {
            let e = Path::parse(text, "--print").expect_err(text);
            assert_eq!(e.span.start, at, "{text}: {e}");
        }
    }

    #[test]
    fn walks_wildcards_and_reports_missing_as_none() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"a":[{"n":1},{"m":2},{"n":3}],"o":{"x":{"n":4}}}"#)
                .expect("json");
        let j = Json::Serde(&v);
        let all = |text: &str| {
            let mut out = Vec::new();
            Path::parse(text, "--print")
                .expect("path")
                .any(j, &mut |v| {
                    out.push(v.map(|v| v.to_compact_string()));
                    false
                });
            out
        };
        let s = |x: &str| Some(x.to_string());
        assert_eq!(all("a.*.n"), [s("1"), None, s("3")]);
        assert_eq!(all("o.*.n"), [s("4")]);
        assert_eq!(all("a.1.m"), [s("2")]);
        assert_eq!(all("nope.x"), [None]);
        assert!(all("nope.*.x").is_empty());
        assert!(all("a.0.n.*").is_empty());
    }
}
