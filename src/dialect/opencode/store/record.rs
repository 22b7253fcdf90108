//! One row as one record: `{"type", "timestamp", "sessionID", "role", "message"|"part"}`
//! with the row's `data` and the ids its columns hold.

use super::rows::Row;

/// What a row's `data` says of itself: its kind and the ids it already holds.
#[derive(serde::Deserialize, Default)]
pub(super) struct DataHead {
    pub(super) role: Option<String>,
    #[serde(rename = "type")]
    pub(super) ty: Option<String>,
    pub(super) id: Option<serde::de::IgnoredAny>,
    #[serde(rename = "sessionID")]
    pub(super) session_id: Option<serde::de::IgnoredAny>,
    #[serde(rename = "messageID")]
    pub(super) message_id: Option<serde::de::IgnoredAny>,
    pub(super) time: Option<TimeHead>,
    pub(super) error: Option<serde::de::IgnoredAny>,
}

/// A row's `time`: whether it has `completed`; when it was created (a message) or
/// started (a part), for the JSON storage, which has no time columns.
#[derive(serde::Deserialize, Default)]
pub(super) struct TimeHead {
    pub(super) completed: Option<serde::de::IgnoredAny>,
    pub(super) created: Option<i64>,
    pub(super) start: Option<i64>,
}

/// Writes one row as a record: a message (`message` is `None`) or a part of `message`
/// (whose role is `role`). Returns a message's role. A `data` that is not a JSON object
/// is written as it is, so the line is reported as the bad record it is.
pub(super) fn write_row(
    out: &mut Vec<u8>,
    session: &str,
    message: Option<&str>,
    role: Option<&str>,
    row: &Row,
) -> Option<String> {
    // Valid JSON holds a line break only as white space: it becomes a space, so the
    // record stays one line. In a `data` that is not JSON it does the same.
    let data: Vec<u8> = row
        .data
        .iter()
        .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
        .collect();
    let parsed: Option<DataHead> = serde_json::from_slice(&data).ok();
    let trimmed = data.trim_ascii_start();
    let object = parsed.is_some() && trimmed.first() == Some(&b'{');
    let head = parsed.unwrap_or_default();
    let ty = match message {
        None => head.role.clone().unwrap_or_else(|| "message".into()),
        Some(_) => head.ty.clone().unwrap_or_else(|| "part".into()),
    };
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    out.extend_from_slice(b"{\"type\":");
    out.extend_from_slice(quote(&ty).as_bytes());
    out.extend_from_slice(format!(",\"timestamp\":{},\"sessionID\":", row.time).as_bytes());
    out.extend_from_slice(quote(session).as_bytes());
    let role = match message {
        None => head.role.as_deref(),
        Some(_) => role,
    };
    if let Some(role) = role {
        out.extend_from_slice(b",\"role\":");
        out.extend_from_slice(quote(role).as_bytes());
    }
    out.extend_from_slice(if message.is_none() {
        b",\"message\":"
    } else {
        b",\"part\":"
    });
    if object {
        let mut ids: Vec<(&str, &str)> = Vec::new();
        if head.id.is_none() {
            ids.push(("id", &row.id));
        }
        if head.session_id.is_none() {
            ids.push(("sessionID", session));
        }
        if let (Some(m), None) = (message, &head.message_id) {
            ids.push(("messageID", m));
        }
        let rest = &trimmed[1..];
        out.push(b'{');
        for (i, (k, v)) in ids.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(quote(k).as_bytes());
            out.push(b':');
            out.extend_from_slice(quote(v).as_bytes());
        }
        if !ids.is_empty() && rest.trim_ascii_start().first() != Some(&b'}') {
            out.push(b',');
        }
        out.extend_from_slice(rest);
    } else {
        out.extend_from_slice(&data);
    }
    out.extend_from_slice(b"}\n");
    (message.is_none()).then_some(head.role).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(data: &str) -> Row {
        Row {
            id: "msg_1".into(),
            session: "ses_a".into(),
            message: "msg_1".into(),
            time: 5,
            updated: 5,
            data: data.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_row_becomes_one_record_with_the_ids_its_columns_hold() {
        let mut out = Vec::new();
        let role = write_row(&mut out, "ses_a", None, None, &row(r#"{"role":"user"}"#));
        assert_eq!(role.as_deref(), Some("user"));
        write_row(
            &mut out,
            "ses_a",
            Some("msg_1"),
            Some("user"),
            &row("{\"type\":\"text\",\n\"text\":\"hi\"}"),
        );
        write_row(&mut out, "ses_a", Some("msg_1"), None, &row("{}"));
        write_row(&mut out, "ses_a", None, None, &row("not json"));
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"type":"user","timestamp":5,"sessionID":"ses_a","role":"user","message":{"id":"msg_1","sessionID":"ses_a","role":"user"}}"#,
                r#"{"type":"text","timestamp":5,"sessionID":"ses_a","role":"user","part":{"id":"msg_1","sessionID":"ses_a","messageID":"msg_1","type":"text", "text":"hi"}}"#,
                r#"{"type":"part","timestamp":5,"sessionID":"ses_a","part":{"id":"msg_1","sessionID":"ses_a","messageID":"msg_1"}}"#,
                r#"{"type":"message","timestamp":5,"sessionID":"ses_a","message":not json}"#,
            ]
        );
        for l in &lines[..3] {
            serde_json::from_str::<serde_json::Value>(l).expect("json");
        }
    }
}
