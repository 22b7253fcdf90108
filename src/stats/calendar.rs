//! Time: the clock of a run (`--timezone`, `--since`/`--until`), the hour each record is
//! counted in, and the days, ISO weeks (named by their Monday), months and 5-hour blocks
//! the breakdowns read from those hours (docs/REFERENCE.md "stats").

use super::intern::NONE;
use super::Stats;
use crate::json::Json;
use crate::timestamp::{self, TimeRange, TimeZone, Timestamp};
use jiff::civil::{Date, DateTime, Time};
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
/// months and blocks being read from it. Called once per minute of timestamps, not per
/// record (see [`Stats::hour_id`]).
pub(super) fn hour_in(t: Timestamp, tz: &TimeZone) -> String {
    let at = tz.to_datetime(t);
    let (year, month, day, hour) = (at.year(), at.month(), at.day(), at.hour());
    // The digits written out: `format!` was most of a new minute's cost.
    let Ok(year) = u16::try_from(year) else {
        return format!("{year:04}-{month:02}-{day:02}T{hour:02}");
    };
    let mut key = String::with_capacity(13);
    for (n, width, sep) in [
        (year, 4, Some('-')),
        (month as u16, 2, Some('-')),
        (day as u16, 2, Some('T')),
        (hour as u16, 2, None),
    ] {
        for place in (0..width).rev() {
            key.push(char::from(b'0' + (n / 10u16.pow(place) % 10) as u8));
        }
        key.extend(sep);
    }
    key
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
    // Hours on the wall clock of the zone the keys were written in: a block spans five
    // of them, as ccusage's do, whatever a DST change did in between.
    let abs = |h: &str| -> Option<i64> {
        let hour = Time::new(h.get(11..13)?.parse().ok()?, 0, 0, 0).ok()?;
        let at = date_of(h)?.to_datetime(hour);
        Some(
            at.duration_since(DateTime::constant(1970, 1, 1, 0, 0, 0, 0))
                .as_hours(),
        )
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
            // The buffer is reused: a new minute must not allocate.
            match &mut self.hour_cache {
                Some((last, last_id)) => {
                    last.clear();
                    last.push_str(k);
                    *last_id = id;
                }
                None => self.hour_cache = Some((k.to_string(), id)),
            }
        }
        id
    }
}

/// The date of a `YYYY-MM-DD` day (the start of an hour key), its fields read as numbers
/// as [`hour_in`] writes them (a year before 1000 or before 0 included).
fn date_of(day: &str) -> Option<Date> {
    let y: i16 = day.get(..4)?.parse().ok()?;
    let m: i8 = day.get(5..7)?.parse().ok()?;
    let d: i8 = day.get(8..10)?.parse().ok()?;
    Date::new(y, m, d).ok()
}

/// The week of a `YYYY-MM-DD` day, named by its Monday (ISO weeks start on Monday).
pub(super) fn week_of(day: &str) -> Option<String> {
    let monday = date_of(day)?.iso_week_date().first_of_week().ok()?.date();
    Some(format!(
        "{:04}-{:02}-{:02}",
        monday.year(),
        monday.month(),
        monday.day()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hour_keys_are_the_formatted_hour() {
        let tz = TimeZone::UTC;
        let mut rng = crate::test_rng::Rng::new(7);
        for _ in 0..20_000 {
            // Any second from year -9999 to 9999.
            let s = rng.below(2 * 253_402_300_799) as i64 - 253_402_300_799;
            let Ok(t) = Timestamp::from_second(s) else {
                continue;
            };
            let at = tz.to_datetime(t);
            let want = format!(
                "{:04}-{:02}-{:02}T{:02}",
                at.year(),
                at.month(),
                at.day(),
                at.hour()
            );
            assert_eq!(hour_in(t, &tz), want, "{t}");
        }
    }

    #[test]
    fn weeks_are_named_by_their_monday_across_years() {
        assert_eq!(week_of("2025-01-01").as_deref(), Some("2024-12-30"));
        assert_eq!(week_of("2021-01-03").as_deref(), Some("2020-12-28"));
        assert_eq!(week_of("2024-02-29").as_deref(), Some("2024-02-26"));
        assert_eq!(week_of("2025-09-08").as_deref(), Some("2025-09-08"));
        assert_eq!(week_of("(none)"), None);
        assert_eq!(week_of("2025-02-30"), None);
    }

    #[test]
    fn a_block_spans_five_wall_clock_hours_from_its_first() {
        let hours = [
            "2025-03-09T22",
            "2025-03-10T02",
            "2025-03-10T03",
            "2024-12-31T23",
            "2025-01-01T01",
        ];
        let blocks = blocks_of(hours.into_iter());
        assert_eq!(blocks["2024-12-31T23"], "2024-12-31 23:00");
        assert_eq!(blocks["2025-01-01T01"], "2024-12-31 23:00");
        assert_eq!(blocks["2025-03-09T22"], "2025-03-09 22:00");
        assert_eq!(blocks["2025-03-10T02"], "2025-03-09 22:00");
        assert_eq!(blocks["2025-03-10T03"], "2025-03-10 03:00");
    }

    #[test]
    fn the_hour_is_read_in_the_zone() {
        let t: Timestamp = "2025-01-01T03:30:00Z".parse().expect("time");
        // Asia/Kolkata's offset, without a time zone database.
        let kolkata = TimeZone::fixed(jiff::tz::Offset::from_seconds(19_800).expect("offset"));
        assert_eq!(hour_in(t, &TimeZone::UTC), "2025-01-01T03");
        assert_eq!(hour_in(t, &kolkata), "2025-01-01T09");
    }
}
