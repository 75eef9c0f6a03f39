//! The civil calendar (proleptic Gregorian, UTC) and Unix time.
//!
//! The wall clock (`Sysno::WallClock`) counts milliseconds since
//! 1970-01-01 00:00:00 UTC; the kernel turns the real-time clock's date
//! into that count and programs turn it back into dates (HTTP's `Date`,
//! a file's `Last-Modified`). Both directions live here, once. Days are
//! counted with the era arithmetic of Howard Hinnant's `days_from_civil`
//! (400-year eras of 146 097 days, years starting in March so that the
//! leap day is the last day of a year), which needs no tables and no
//! loops. Leap seconds do not exist in Unix time, nor here.

/// A date and time of day, UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    /// 1..=12
    pub month: u8,
    /// 1..=31, and valid for the month and year.
    pub day: u8,
    /// 0..=23
    pub hour: u8,
    /// 0..=59
    pub minute: u8,
    /// 0..=59
    pub second: u8,
}

/// Days in `month` (1..=12) of `year`; 0 for a month that does not exist.
pub fn days_in_month(year: i64, month: u8) -> u8 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days from 1970-01-01 to `year-month-day` (negative before). The date
/// must be valid ([`Civil::is_valid`]); years are bounded by the caller.
pub fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let (m, d) = (i64::from(month), i64::from(day));
    // The year runs March..February, so February's length ends it.
    let y = if m <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01: `(year, month, day)`.
pub fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The day of the week of `days` after 1970-01-01 (a Thursday): 0 is
/// Sunday.
pub fn weekday(days: i64) -> u8 {
    (days + 4).rem_euclid(7) as u8
}

impl Civil {
    /// Whether every field is in range (the day for its month and year).
    pub fn is_valid(&self) -> bool {
        (1..=12).contains(&self.month)
            && self.day >= 1
            && self.day <= days_in_month(self.year, self.month)
            && self.hour < 24
            && self.minute < 60
            && self.second < 60
    }

    /// Seconds since the Unix epoch (negative before 1970). The date
    /// must be valid.
    pub fn to_unix(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
    }

    /// The date and time `secs` seconds after the Unix epoch.
    pub fn from_unix(secs: i64) -> Civil {
        let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
        let rest = secs.rem_euclid(86_400);
        Civil {
            year,
            month,
            day,
            hour: (rest / 3600) as u8,
            minute: (rest / 60 % 60) as u8,
            second: (rest % 60) as u8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn civil(year: i64, month: u8, day: u8, hour: u8, minute: u8, second: u8) -> Civil {
        Civil {
            year,
            month,
            day,
            hour,
            minute,
            second,
        }
    }

    #[test]
    fn known_instants() {
        assert_eq!(civil(1970, 1, 1, 0, 0, 0).to_unix(), 0);
        // RFC 9110's example date, and the 32-bit rollover.
        assert_eq!(civil(1994, 11, 6, 8, 49, 37).to_unix(), 784_111_777);
        assert_eq!(civil(2038, 1, 19, 3, 14, 8).to_unix(), 1 << 31);
        assert_eq!(civil(2000, 2, 29, 12, 0, 0).to_unix(), 951_825_600);
        assert_eq!(civil(1969, 12, 31, 23, 59, 59).to_unix(), -1);
        assert_eq!(Civil::from_unix(-1), civil(1969, 12, 31, 23, 59, 59));
        assert_eq!(Civil::from_unix(784_111_777), civil(1994, 11, 6, 8, 49, 37));
    }

    #[test]
    fn every_day_of_four_centuries_round_trips() {
        let start = days_from_civil(1900, 1, 1);
        let mut expect = (1900, 1, 1);
        for days in start..start + 146_097 {
            assert_eq!(civil_from_days(days), expect);
            assert_eq!(days_from_civil(expect.0, expect.1, expect.2), days);
            expect = if expect.2 < days_in_month(expect.0, expect.1) {
                (expect.0, expect.1, expect.2 + 1)
            } else if expect.1 < 12 {
                (expect.0, expect.1 + 1, 1)
            } else {
                (expect.0 + 1, 1, 1)
            };
        }
    }

    #[test]
    fn weekdays_and_leap_years() {
        assert_eq!(weekday(0), 4); // Thursday
        assert_eq!(weekday(days_from_civil(1994, 11, 6)), 0); // Sunday
        assert_eq!(weekday(-1), 3);
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2023, 13), 0);
        assert!(!civil(2023, 2, 29, 0, 0, 0).is_valid());
        assert!(!civil(2023, 4, 31, 0, 0, 0).is_valid());
        assert!(!civil(2023, 1, 1, 24, 0, 0).is_valid());
        assert!(civil(2024, 2, 29, 23, 59, 59).is_valid());
    }
}
