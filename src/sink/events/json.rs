//! `--format json`: one NDJSON line per event.

use super::*;

/// One NDJSON line. (Written piece by piece, not with `write!`: its formatting machinery
/// cost more than the rest of a short event.)
pub(super) fn write_json<W: Write + ?Sized>(out: &mut W, ev: &Event<'_>) -> io::Result<()> {
    out.write_all(b"{\"line\":")?;
    serde_json::to_writer(&mut *out, &ev.line)?;
    out.write_all(b",\"file\":")?;
    write_str(out, ev.file)?;
    if let Some(s) = ev.session {
        out.write_all(b",\"session\":")?;
        write_str(out, s)?;
    }
    out.write_all(b",\"kind\":\"")?;
    out.write_all(ev.body.kind().as_bytes())?;
    out.write_all(b"\"")?;
    for (key, value) in fields(ev) {
        // The keys are this file's own names: nothing in them to escape.
        out.write_all(b",\"")?;
        out.write_all(key.as_bytes())?;
        out.write_all(b"\":")?;
        match value {
            Field::Str(s) => write_str(out, s)?,
            Field::Text(t) => t.write_json(out)?,
            Field::UInt(n) => serde_json::to_writer(&mut *out, &n)?,
            Field::Float(x) => serde_json::to_writer(&mut *out, &x)?,
            Field::Bool(b) => out.write_all(if b { b"true" } else { b"false" })?,
            Field::Json(j) => j.write_compact(out)?,
            Field::Nested(n) => n.write_compact(out)?,
        }
    }
    out.write_all(b"}\n")
}
