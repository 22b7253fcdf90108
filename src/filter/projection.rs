//! `--print PATH[,PATH]`: the values of a record instead of its bytes, one line per
//! record, like `jq -r '[.a, .b] | join("\t")'`: strings raw (no quotes, no escapes), other
//! scalars as JSON, objects and arrays as compact JSON (keys in input order), a missing
//! value or null empty. A path with `*` prints the JSON array of the values it names.
//! Values are separated by a tab and records end with a newline, or with NUL (`-0`) for
//! values that may hold newlines.

use super::expr::ExprError;
use super::path::Path;
use crate::json::{Json, Kind};
use std::io::{self, Write};

/// The paths to print and the record terminator.
#[derive(Debug, Clone)]
pub struct Projection {
    paths: Vec<Path>,
    terminator: u8,
}

impl Projection {
    /// Parses the paths: each `--print` is a comma-separated list, split only at a comma
    /// outside brackets and quotes (`["a,b"]` is one key); an error quotes the whole
    /// expression, pointing into it.
    pub fn new(exprs: &[String], nul: bool) -> Result<Projection, ExprError> {
        let mut paths = Vec::new();
        for expr in exprs {
            let mut start = 0;
            loop {
                let rest = &expr[start..];
                let (path, end) =
                    Path::parse_prefix(rest, |c| c == ',', "--print").map_err(|e| ExprError {
                        text: expr.clone(),
                        span: e.span.start + start..e.span.end + start,
                        ..e
                    })?;
                paths.push(path);
                start += end;
                if start >= expr.len() {
                    break;
                }
                // Stopped at a comma: the next path follows it.
                start += 1;
                if start >= expr.len() {
                    return Err(ExprError::new(
                        "--print",
                        expr,
                        start - 1..start,
                        "expected a path after the comma".to_string(),
                    ));
                }
            }
        }
        Ok(Projection {
            paths,
            terminator: if nul { 0 } else { b'\n' },
        })
    }

    /// Writes the line of one record (`None`: a record that is not JSON, all empty).
    pub fn write<W: Write + ?Sized>(&self, out: &mut W, value: Option<Json<'_>>) -> io::Result<()> {
        for (i, path) in self.paths.iter().enumerate() {
            if i > 0 {
                out.write_all(b"\t")?;
            }
            let Some(value) = value else {
                continue;
            };
            if path.has_wildcard() {
                out.write_all(b"[")?;
                let mut first = true;
                let mut result = Ok(());
                path.any(value, &mut |v| {
                    if let Some(v) = v {
                        let comma = if first { Ok(()) } else { out.write_all(b",") };
                        first = false;
                        result = comma.and_then(|()| v.write_compact(out));
                    }
                    result.is_err()
                });
                result?;
                out.write_all(b"]")?;
            } else if let Some(v) = path.get(value) {
                write_raw(out, v)?;
            }
        }
        out.write_all(&[self.terminator])
    }
}

/// A value as `jq -r` prints it, null as nothing.
fn write_raw<W: Write + ?Sized>(out: &mut W, v: Json<'_>) -> io::Result<()> {
    match v.kind() {
        Kind::Null => Ok(()),
        Kind::String => out.write_all(v.as_str().unwrap_or_default().as_bytes()),
        _ => v.write_compact(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(paths: &[&str], nul: bool, record: &str) -> String {
        let v: serde_json::Value = serde_json::from_str(record).expect("json");
        let p: Vec<String> = paths.iter().map(|s| s.to_string()).collect();
        let mut out = Vec::new();
        Projection::new(&p, nul)
            .expect("paths")
            .write(&mut out, Some(Json::Serde(&v)))
            .expect("write");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn values_raw_tab_separated() {
        let r = r#"{"s":"a\tb\n","n":1.5,"b":false,"z":null,"o":{"k":[1,"x"]},"l":[{"n":"x"},{"m":1},{"n":2}]}"#;
        assert_eq!(line(&["s", "n", "b"], false, r), "a\tb\n\t1.5\tfalse\n");
        assert_eq!(
            line(&["z", "missing", "o"], false, r),
            "\t\t{\"k\":[1,\"x\"]}\n"
        );
        assert_eq!(line(&["l.*.n"], true, r), "[\"x\",2]\0");
        assert_eq!(line(&["l.0.n"], false, r), "x\n");
    }
}
