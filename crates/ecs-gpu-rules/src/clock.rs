//! Today's date, for messages that depend on it (an end of life that has passed or not).
//!
//! `SOURCE_DATE_EPOCH` (seconds since 1970, as reproducible builds use it) overrides the clock:
//! tests and reproducible reports set it.

use std::time::{SystemTime, UNIX_EPOCH};

/// Today (UTC) as `YYYY-MM-DD`: from `SOURCE_DATE_EPOCH` when it is set to a number, else the
/// system clock. Dates in that form compare as strings.
pub fn today() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        });
    civil_date(seconds.div_euclid(86_400))
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::civil_date;

    #[test]
    fn day_counts_become_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
        // 2026-06-30 and the day after.
        assert_eq!(civil_date(20_634), "2026-06-30");
        assert_eq!(civil_date(20_635), "2026-07-01");
        assert_eq!(civil_date(-1), "1969-12-31");
    }
}
