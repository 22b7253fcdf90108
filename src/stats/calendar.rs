//! Time: the clock of a run (`--timezone`, `--since`/`--until`), the hour each record is
//! counted in, and the days, ISO weeks (named by their Monday), months and 5-hour blocks
//! the breakdowns read from those hours (docs/REFERENCE.md "stats").

use super::intern::NONE;
use super::Stats;
use crate::json::Json;
use crate::timestamp::{self, TimeRange, TimeZone, Timestamp};
use std::collections::HashMap;

/// The time settings of a run: the zone days, weeks, months and blocks are counted in,
/// and `--since` / `--until`.
#[derive(Debug, Clone)]
pub struct Clock {
    pub tz: TimeZone,
    pub range: TimeRange,
}

impl Default for Clock {
    /// UTC, unbounded (the command line passes the system's zone).
    fn default() -> Self {
        Clock {
            tz: TimeZone::UTC,
            range: TimeRange::default(),
        }
    }
}

/// The hour of a time in `tz`, as `YYYY-MM-DDTHH`: what attributions record, days, weeks,
/// months and blocks being read from it.
pub(super) fn hour_in(t: Timestamp, tz: &TimeZone) -> String {
    let z = t.to_zoned(tz.clone());
    format!(
        "{:04}-{:02}-{:02}T{:02}",
        z.year(),
        z.month(),
        z.day(),
        z.hour()
    )
}

/// The time of a record's `timestamp` (ISO string or epoch milliseconds).
pub(super) fn time_of(ts: Json<'_>) -> Option<Timestamp> {
    match ts.kind() {
        crate::json::Kind::String => ts.as_str().and_then(timestamp::parse_iso),
        crate::json::Kind::Number => ts.as_f64().and_then(timestamp::from_epoch_ms),
        _ => None,
    }
}

/// The day (`YYYY-MM-DD`) of an hour key.
pub(super) fn day_part(hour: &str) -> &str {
    hour.get(..10).unwrap_or(hour)
}

/// Claude's 5-hour billing windows, as ccusage counts them: a block starts at the hour of
/// the first activity not in an earlier block and lasts five hours. Every hour key to its
/// block's name (`YYYY-MM-DD HH:00`).
pub(super) fn blocks_of<'a>(hours: impl Iterator<Item = &'a str>) -> HashMap<String, String> {
    let abs = |h: &str| -> Option<i64> {
        let y: i64 = h.get(..4)?.parse().ok()?;
        let m: i64 = h.get(5..7)?.parse().ok()?;
        let d: i64 = h.get(8..10)?.parse().ok()?;
        let hh: i64 = h.get(11..13)?.parse().ok()?;
        Some(days_from_civil(y, m, d) * 24 + hh)
    };
    let mut sorted: Vec<(i64, &str)> = hours.filter_map(|h| Some((abs(h)?, h))).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = HashMap::new();
    let mut start: Option<(i64, String)> = None;
    for (n, h) in sorted {
        let open = matches!(&start, Some((s, _)) if n < s + 5);
        if !open {
            start = Some((
                n,
                format!("{} {}:00", day_part(h), h.get(11..13).unwrap_or("00")),
            ));
        }
        if let Some((_, name)) = &start {
            out.insert(h.to_string(), name.clone());
        }
    }
    out
}

impl Stats {
    /// The hour key of a record's timestamp in the clock's zone, as a string index.
    pub(super) fn hour_id(&mut self, ts: Json<'_>, time: Option<Timestamp>) -> u32 {
        // Records of one session come seconds apart: a `…Z` time in the same minute as
        // the last one is in the same hour.
        let key = ts
            .as_str()
            .filter(|s| s.ends_with('Z') && s.len() >= 16)
            .map(|s| &s[..16]);
        if let (Some(k), Some((last, id))) = (key, &self.hour_cache) {
            if k == last {
                return *id;
            }
        }
        let Some(t) = time.or_else(|| time_of(ts)) else {
            return NONE;
        };
        let hour = hour_in(t, &self.clock.tz);
        let id = self.strings.id(&hour);
        if let Some(k) = key {
            self.hour_cache = Some((k.to_string(), id));
        }
        id
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub(super) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number.
pub(super) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// The week of a `YYYY-MM-DD` day, named by its Monday (ISO weeks start on Monday).
pub(super) fn week_of(day: &str) -> Option<String> {
    let y: i64 = day.get(..4)?.parse().ok()?;
    let m: i64 = day.get(5..7)?.parse().ok()?;
    let d: i64 = day.get(8..10)?.parse().ok()?;
    let n = days_from_civil(y, m, d);
    // 1970-01-01 was a Thursday: Monday is 0 in (n + 3) mod 7.
    let monday = n - (n + 3).rem_euclid(7);
    let (y, m, d) = civil_from_days(monday);
    Some(format!("{y:04}-{m:02}-{d:02}"))
}
