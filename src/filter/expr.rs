//! `--where PATH OP VALUE`: one comparison of the values a path names in a record with a
//! value given on the command line, parsed once at startup. Errors carry the span of the
//! expression they are about, so the command line can show it with a caret under it, as
//! ripgrep shows a bad regex.
//!
//! Semantics, where jq and SQL differ: a number compares with a number and a string with a
//! string, never across types (`--where 'x<5'` does not select records without `x`); a
//! plain path that is missing is jq's `null`, so `=null` and `!=` select it and nothing
//! else does; a path with `*` selects a record when any of its values passes.

use super::path::{ends_path, Path};
use crate::json::{Json, Kind};
use std::cmp::Ordering;
use std::fmt;
use std::ops::Range;

/// A command-line expression that does not parse: which option, the text, where in it and
/// what is wrong. Displayed on several lines: the message, the expression, a caret line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub flag: &'static str,
    pub text: String,
    /// Byte range of `text` the error is about.
    pub span: Range<usize>,
    pub message: String,
    /// A line of advice after the caret line.
    pub hint: Option<String>,
}

impl ExprError {
    pub fn new(flag: &'static str, text: &str, span: Range<usize>, message: String) -> Self {
        let end = span.end.min(text.len());
        let start = span.start.min(end);
        ExprError {
            flag,
            text: text.to_string(),
            span: start..end,
            message,
            hint: None,
        }
    }

    fn with_hint(mut self, hint: &str) -> Self {
        self.hint = Some(hint.to_string());
        self
    }

    /// The span moved by `by` bytes into a longer text (a regex inside an expression).
    pub(crate) fn within(mut self, text: &str, by: usize) -> Self {
        self.span = self.span.start + by..self.span.end + by;
        self.text = text.to_string();
        self
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Columns count characters; a control character would shift them, so it shows as
        // a space (the caret line stays under the character meant).
        let shown: String = self
            .text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let col = self
            .text
            .get(..self.span.start)
            .map_or(0, |s| s.chars().count());
        let width = self
            .text
            .get(self.span.clone())
            .map_or(1, |s| s.chars().count())
            .max(1);
        write!(
            f,
            "{} {}: {}\n    {}\n    {}{}",
            self.flag,
            serde_json::to_string(&self.text).unwrap_or_default(),
            self.message,
            shown,
            " ".repeat(col),
            "^".repeat(width)
        )?;
        if let Some(hint) = &self.hint {
            write!(f, "\n{hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ExprError {}

const OPERATORS_HINT: &str =
    "operators: = != > >= < <= ~ (regex); PATH alone selects records where it exists and is not null";

/// `--where`: a path and what its values must be.
#[derive(Debug, Clone)]
pub struct Where {
    pub path: Path,
    test: Test,
}

#[derive(Debug, Clone)]
enum Test {
    /// `PATH` alone: exists and is not null.
    Exists,
    /// `=` (negated: `!=`): JSON equality, or a string field equal to the text as typed.
    Equal {
        value: serde_json::Value,
        text: String,
        negated: bool,
    },
    Number(Cmp, f64),
    Text(Cmp, String),
    Regex(regex::Regex),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Gt,
    Ge,
    Lt,
    Le,
}

impl Cmp {
    fn holds(self, o: Ordering) -> bool {
        match self {
            Cmp::Gt => o == Ordering::Greater,
            Cmp::Ge => o != Ordering::Less,
            Cmp::Lt => o == Ordering::Less,
            Cmp::Le => o != Ordering::Greater,
        }
    }
}

impl Where {
    /// Parses `PATH`, or `PATH OP VALUE` (blanks around OP allowed). VALUE is JSON when it
    /// parses as JSON (`3`, `true`, `"a b"`), otherwise the text as typed. `ignore_case`
    /// makes `~` case-insensitive.
    pub fn parse(text: &str, ignore_case: bool) -> Result<Where, ExprError> {
        const FLAG: &str = "--where";
        let err = |span: Range<usize>, message: String| ExprError::new(FLAG, text, span, message);
        let (path, end) = Path::parse_prefix(text, ends_path, FLAG)?;
        let op_start = end + (text[end..].len() - text[end..].trim_start().len());
        if op_start == text.len() {
            return Ok(Where {
                path,
                test: Test::Exists,
            });
        }
        let op_len = text[op_start..]
            .find(|c: char| !matches!(c, '=' | '!' | '<' | '>' | '~'))
            .unwrap_or(text.len() - op_start);
        let op = &text[op_start..op_start + op_len];
        if op.is_empty() {
            let c = text[op_start..].chars().next().map_or(1, char::len_utf8);
            return Err(err(
                op_start..op_start + c,
                "expected an operator after the path".to_string(),
            )
            .with_hint(OPERATORS_HINT));
        }
        let value_start = op_start + op_len;
        let value_start =
            value_start + (text[value_start..].len() - text[value_start..].trim_start().len());
        let raw = text[value_start..].trim_end();
        if raw.is_empty() {
            return Err(err(
                value_start..value_start + 1,
                format!("expected a value after `{op}`"),
            )
            .with_hint("write \"\" for the empty string"));
        }
        let json: Option<serde_json::Value> = serde_json::from_str(raw).ok();
        let value_span = value_start..value_start + raw.len();
        let cmp = match op {
            "=" | "==" | "!=" => {
                let test = Test::Equal {
                    value: json.unwrap_or_else(|| serde_json::Value::String(raw.to_string())),
                    text: raw.to_string(),
                    negated: op == "!=",
                };
                return Ok(Where { path, test });
            }
            "~" => {
                // A JSON string is unquoted: `~ "a b"` is the regex `a b`.
                let (pattern, at) = match &json {
                    Some(serde_json::Value::String(s)) if raw.starts_with('"') => (s.clone(), None),
                    _ => (raw.to_string(), Some(value_start)),
                };
                let regex = compile_regex(&pattern, ignore_case).map_err(|mut e| {
                    e.flag = FLAG;
                    match at {
                        Some(at) => e.within(text, at),
                        None => ExprError::new(FLAG, text, value_span.clone(), e.message),
                    }
                })?;
                return Ok(Where {
                    path,
                    test: Test::Regex(regex),
                });
            }
            ">" => Cmp::Gt,
            ">=" => Cmp::Ge,
            "<" => Cmp::Lt,
            "<=" => Cmp::Le,
            _ => {
                return Err(err(
                    op_start..op_start + op_len,
                    format!("unknown operator `{op}`"),
                )
                .with_hint(OPERATORS_HINT))
            }
        };
        let test = match json {
            Some(serde_json::Value::Number(n)) => match n.as_f64() {
                Some(f) => Test::Number(cmp, f),
                None => return Err(err(value_span, "number out of range".to_string())),
            },
            Some(serde_json::Value::String(s)) => Test::Text(cmp, s),
            None => Test::Text(cmp, raw.to_string()),
            Some(_) => {
                return Err(err(
                    value_span,
                    format!("`{op}` compares numbers or strings"),
                ))
            }
        };
        Ok(Where { path, test })
    }

    /// Whether the record passes.
    pub fn matches(&self, record: Json<'_>) -> bool {
        self.path.any(record, &mut |found| self.test.holds(found))
    }
}

impl Test {
    fn holds(&self, found: Option<Json<'_>>) -> bool {
        match self {
            Test::Exists => found.is_some_and(|v| v.kind() != Kind::Null),
            Test::Equal {
                value,
                text,
                negated,
            } => {
                let equal = match found {
                    Some(v) => v.equals(value) || v.as_str() == Some(text.as_str()),
                    None => value.is_null(),
                };
                equal != *negated
            }
            Test::Number(cmp, want) => match found.filter(|v| v.kind() == Kind::Number) {
                Some(v) => v
                    .as_f64()
                    .and_then(|n| n.partial_cmp(want))
                    .is_some_and(|o| cmp.holds(o)),
                None => false,
            },
            Test::Text(cmp, want) => found
                .and_then(|v| v.as_str())
                .is_some_and(|s| cmp.holds(s.cmp(want.as_str()))),
            Test::Regex(re) => found
                .and_then(|v| v.as_str())
                .is_some_and(|s| re.is_match(s)),
        }
    }
}

/// Compiles a regular expression, its syntax errors pointing at the offending part of it.
pub(crate) fn compile_regex(pattern: &str, ignore_case: bool) -> Result<regex::Regex, ExprError> {
    check_syntax(pattern, ignore_case)?;
    regex::RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .build()
        .map_err(|e| regex_error(pattern, e))
}

/// Parses a pattern with regex-syntax (which knows where an error is) and returns its
/// high-level form.
pub(crate) fn check_syntax(
    pattern: &str,
    ignore_case: bool,
) -> Result<regex_syntax::hir::Hir, ExprError> {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(ignore_case)
        .build()
        .parse(pattern)
        .map_err(|e| {
            let (message, span) = match &e {
                regex_syntax::Error::Parse(e) => (
                    e.kind().to_string(),
                    e.span().start.offset..e.span().end.offset,
                ),
                regex_syntax::Error::Translate(e) => (
                    e.kind().to_string(),
                    e.span().start.offset..e.span().end.offset,
                ),
                _ => (e.to_string(), 0..pattern.len()),
            };
            let span = span.start..span.end.max(span.start + 1);
            ExprError::new("--grep", pattern, span, format!("bad regex: {message}"))
        })
}

/// An error of the regex compiler itself (a pattern too big): about the whole pattern.
pub(crate) fn regex_error(pattern: &str, e: regex::Error) -> ExprError {
    let message = match e {
        regex::Error::CompiledTooBig(limit) => {
            format!("regex too big once compiled (over {limit} bytes)")
        }
        other => format!("bad regex: {other}"),
    };
    ExprError::new("--grep", pattern, 0..pattern.len(), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(expr: &str, record: &str) -> bool {
        let v: serde_json::Value = serde_json::from_str(record).expect("json");
        Where::parse(expr, false)
            .expect(expr)
            .matches(Json::Serde(&v))
    }

    #[test]
    fn each_operator() {
        let r = r#"{"n":150,"s":"carrot-x","f":1.5,"b":true,"z":null,"id":"42"}"#;
        assert!(sel("n>100", r) && !sel("n>150", r) && sel("n>=150", r));
        assert!(sel("n<200", r) && !sel("n<150", r) && sel("n<=150", r));
        assert!(sel("n=150", r) && sel("n==150.0", r) && sel("n!=1", r) && !sel("n!=150", r));
        assert!(sel("f > 1", r) && sel("f < 2", r));
        assert!(sel("s=carrot-x", r) && sel(r#"s="carrot-x""#, r) && sel("s!=other", r));
        assert!(sel("s>carrot", r) && sel("s<d", r) && !sel("s<carrot", r));
        assert!(sel("s~^carrot", r) && !sel("s~^x", r) && sel(r#"s ~ "-x$""#, r));
        assert!(sel("b=true", r) && sel("b!=false", r));
        assert!(
            sel("id=42", r),
            "a bare number also matches the string field"
        );
        assert!(!sel("id>4", r), "numbers do not compare with strings");
        assert!(sel("s", r) && !sel("z", r) && !sel("missing", r));
    }

    #[test]
    fn missing_is_null_for_plain_paths_only() {
        let r = r#"{"a":[{"n":1},{"m":2}]}"#;
        assert!(sel("x=null", r) && sel("x!=3", r) && !sel("x<3", r) && !sel("x>3", r));
        assert!(
            sel("a.*.n=1", r) && sel("a.*.n!=1", r),
            "the second element has no n"
        );
        assert!(
            !sel("x.*.n!=1", r),
            "a wildcard over nothing selects nothing"
        );
        assert!(sel("a.*.m", r) && !sel("a.*.q", r));
    }

    #[test]
    fn errors_point_at_the_operator_value_or_regex() {
        let e = Where::parse("message.usage.output_tokens=>100", false).expect_err("bad op");
        assert_eq!(e.span, 27..29);
        assert_eq!(e.message, "unknown operator `=>`");
        assert_eq!(
            e.to_string().lines().nth(2),
            Some("                               ^^")
        );
        let e = Where::parse("a.b~x(y", false).expect_err("bad regex");
        assert_eq!(e.span.start, 5, "{e}: the caret under the open group");
        assert!(e.message.starts_with("bad regex"), "{e}");
        let e = Where::parse("a.b>true", false).expect_err("bad value");
        assert_eq!(e.span, 4..8);
        let e = Where::parse("a b", false).expect_err("no operator");
        assert_eq!(e.span, 2..3);
        let e = Where::parse("a=", false).expect_err("no value");
        assert_eq!(e.span.start, 2);
    }

    #[test]
    fn ignore_case_applies_to_regexes() {
        let v: serde_json::Value = serde_json::from_str(r#"{"s":"Carrot"}"#).expect("json");
        assert!(Where::parse("s~carrot", true)
            .expect("ok")
            .matches(Json::Serde(&v)));
        assert!(!Where::parse("s~carrot", false)
            .expect("ok")
            .matches(Json::Serde(&v)));
    }
}
