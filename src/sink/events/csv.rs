//! `--format csv`: one row per event.

use super::*;

/// One CSV row: strings as they are, nested values as compact JSON.
pub(super) fn write_csv<W: Write + ?Sized>(out: &mut W, ev: &Event<'_>) -> io::Result<()> {
    let mut cells: Vec<Cow<'_, str>> = vec![Cow::Borrowed(""); CSV_COLUMNS.len()];
    let mut put = |key: &str, value: Cow<'_, str>| {
        if let Some(i) = CSV_COLUMNS.iter().position(|c| *c == key) {
            cells[i] = Cow::Owned(value.into_owned());
        }
    };
    put("line", Cow::Owned(ev.line.to_string()));
    put("file", Cow::Borrowed(ev.file));
    if let Some(s) = ev.session {
        put("session", Cow::Borrowed(s));
    }
    put("kind", Cow::Borrowed(ev.body.kind()));
    for (key, value) in fields(ev) {
        let text = match value {
            Field::Str(s) => Cow::Borrowed(s),
            Field::Text(t) => Cow::Borrowed(t.as_str()),
            Field::UInt(n) => Cow::Owned(n.to_string()),
            Field::Float(x) => Cow::Owned(serde_json::to_string(&x)?),
            Field::Bool(b) => Cow::Borrowed(if b { "true" } else { "false" }),
            Field::Json(j) => match j.as_str() {
                Some(s) => Cow::Borrowed(s),
                None => Cow::Owned(j.to_compact_string()),
            },
            Field::Nested(n) => match n.as_str() {
                Some(s) => Cow::Borrowed(s),
                None => Cow::Owned(n.to_compact_string()),
            },
        };
        put(key, text);
    }
    let refs: Vec<&str> = cells.iter().map(|c| c.as_ref()).collect();
    out.write_all(&csv_row(&refs)?)
}
