//! Time: the bounds a user types (`--since`, `--until`) and the time a record carries.
//!
//! A bound is RFC 3339 with an offset (`2025-06-30T14:00:00Z`, `…+02:00`), a date and
//! time without one (`2025-06-30T14:00`, `2025-06-30 14:00:00`), or a date
//! (`2025-06-30`, `20250630`); the last two are read in the time zone given (the
//! command line passes the system's, which `TZ` sets). As an end bound a date means the
//! whole day: up to its last nanosecond. Parsing and time zones are jiff's.
//!
//! A record's time is its top-level `timestamp` in every dialect that has one: an ISO
//! string with an offset (claude-log, codex-log, gemini, copilot write `…Z`) or a number
//! of milliseconds since the Unix epoch. Claude `stream-json`, `codex exec --json` and
//! JSON-RPC carry none; such records have no time.

use crate::json::{Json, Kind};
use std::fmt;

pub use jiff::tz::TimeZone;
pub use jiff::Timestamp;

/// Which end of a range a bound is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// `--since`: a date means its first instant.
    Start,
    /// `--until`: a date means its last instant.
    End,
}

/// A bound that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundError {
    pub text: String,
    pub message: String,
}

impl fmt::Display for BoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a time: {} (expected RFC 3339 like 2025-06-30T14:00:00Z, or a date like 2025-06-30)",
            self.text, self.message
        )
    }
}

impl std::error::Error for BoundError {}

/// Parses a bound typed by a user; dates and times without an offset are in `tz`.
pub fn parse_bound(text: &str, edge: Edge, tz: &TimeZone) -> Result<Timestamp, BoundError> {
    let text = text.trim();
    let fail = |message: String| BoundError {
        text: text.to_string(),
        message,
    };
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(ts);
    }
    // `20250630`, as ccusage takes it.
    let compact;
    let date_text = if text.len() == 8 && text.bytes().all(|b| b.is_ascii_digit()) {
        compact = format!("{}-{}-{}", &text[..4], &text[4..6], &text[6..]);
        compact.as_str()
    } else {
        text
    };
    if let Ok(date) = date_text.parse::<jiff::civil::Date>() {
        if date_text.len() == 10 {
            let start = date.to_zoned(tz.clone()).map_err(|e| fail(e.to_string()))?;
            return match edge {
                Edge::Start => Ok(start.timestamp()),
                Edge::End => start
                    .tomorrow()
                    .and_then(|next| next.start_of_day())
                    .map(|next| next.timestamp() - jiff::SignedDuration::from_nanos(1))
                    .map_err(|e| fail(e.to_string())),
            };
        }
    }
    match text.parse::<jiff::civil::DateTime>() {
        Ok(dt) => dt
            .to_zoned(tz.clone())
            .map(|z| z.timestamp())
            .map_err(|e| fail(e.to_string())),
        // jiff's words help with a date gone wrong (month 13); not with a word.
        Err(e) if text.starts_with(|c: char| c.is_ascii_digit()) => Err(fail(e.to_string())),
        Err(_) => Err(fail("not a date or time".to_string())),
    }
}

/// An ISO 8601 / RFC 3339 time with an offset, as records write it.
pub fn parse_iso(text: &str) -> Option<Timestamp> {
    text.parse().ok()
}

/// Milliseconds since the Unix epoch.
pub fn from_epoch_ms(ms: f64) -> Option<Timestamp> {
    if !ms.is_finite() {
        return None;
    }
    // Whole milliseconds; the cast saturates far beyond jiff's range, which then refuses.
    Timestamp::from_millisecond(ms.floor() as i64).ok()
}

/// The time a record carries (see the module docs), if any.
pub fn record_time(value: Json<'_>) -> Option<Timestamp> {
    let ts = value.get("timestamp")?;
    match ts.kind() {
        Kind::String => ts.as_str().and_then(parse_iso),
        Kind::Number => ts.as_f64().and_then(from_epoch_ms),
        _ => None,
    }
}

/// `--since` / `--until`, both inclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeRange {
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
}

impl TimeRange {
    pub fn is_unbounded(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    pub fn contains(&self, t: Timestamp) -> bool {
        self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t <= u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc() -> TimeZone {
        TimeZone::UTC
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("a timestamp")
    }

    #[test]
    fn bounds_in_every_spelling() {
        let tz = utc();
        let b = |s: &str, e| parse_bound(s, e, &tz).expect(s);
        assert_eq!(
            b("2025-06-30T14:00:00Z", Edge::Start),
            ts("2025-06-30T14:00:00Z")
        );
        assert_eq!(
            b("2025-06-30T16:00:00+02:00", Edge::End),
            ts("2025-06-30T14:00:00Z")
        );
        assert_eq!(b("2025-06-30", Edge::Start), ts("2025-06-30T00:00:00Z"));
        assert_eq!(b("20250630", Edge::Start), ts("2025-06-30T00:00:00Z"));
        assert_eq!(
            b("2025-06-30", Edge::End),
            ts("2025-06-30T23:59:59.999999999Z")
        );
        assert_eq!(
            b("2025-06-30T14:00", Edge::Start),
            ts("2025-06-30T14:00:00Z")
        );
        assert_eq!(
            b("2025-06-30 14:00:00", Edge::End),
            ts("2025-06-30T14:00:00Z")
        );
        let paris =
            TimeZone::get("Europe/Paris").unwrap_or_else(|_| TimeZone::fixed(jiff::tz::offset(2)));
        assert_eq!(
            parse_bound("2025-06-30", Edge::Start, &paris).expect("date"),
            ts("2025-06-29T22:00:00Z")
        );
        for bad in ["yesterday", "2025-13-01", "2025-06-30T25:00Z", ""] {
            let e = parse_bound(bad, Edge::Start, &tz).expect_err(bad);
            assert!(e.to_string().contains("is not a time"), "{e}");
        }
    }

    #[test]
    fn record_times_iso_or_epoch_ms() {
        let time = |line: &str| {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            record_time(Json::Serde(&v))
        };
        assert_eq!(
            time(r#"{"timestamp":"2025-06-30T14:03:58.123Z"}"#),
            Some(ts("2025-06-30T14:03:58.123Z"))
        );
        assert_eq!(
            time(r#"{"timestamp":1751292238123}"#),
            Some(ts("2025-06-30T14:03:58.123Z"))
        );
        assert_eq!(time(r#"{"timestamp":"soon"}"#), None);
        assert_eq!(time(r#"{"timestamp":null}"#), None);
        assert_eq!(time(r#"{"time":"2025-06-30T14:03:58Z"}"#), None);
        assert_eq!(time(r#"{"timestamp":1e300}"#), None);
    }

    #[test]
    fn ranges_are_inclusive() {
        let r = TimeRange {
            since: Some(ts("2025-01-01T00:00:00Z")),
            until: Some(ts("2025-01-02T00:00:00Z")),
        };
        assert!(r.contains(ts("2025-01-01T00:00:00Z")));
        assert!(r.contains(ts("2025-01-02T00:00:00Z")));
        assert!(!r.contains(ts("2025-01-02T00:00:00.001Z")));
        assert!(TimeRange::default().is_unbounded());
    }
}
