//! HTTP-dates (RFC 9110, section 5.6.7): written as IMF-fixdate, read in
//! all three forms a recipient must accept.
//!
//! - IMF-fixdate, the one httpd writes: `Sun, 06 Nov 1994 08:49:37 GMT`;
//! - RFC 850, obsolete: `Sunday, 06-Nov-94 08:49:37 GMT`;
//! - ANSI C's `asctime()`, obsolete: `Sun Nov  6 08:49:37 1994`.
//!
//! A header value is untrusted: [`DateValue::parse`] checks it once, the
//! whole grammar (names, two-digit fields, a day that exists in its
//! month, `GMT`) with no leniency beyond the three forms, and says `None`
//! for anything else — a conditional header with a date that is not one
//! is ignored, as the RFC requires. RFC 850's two-digit year needs the
//! current time to resolve (a year more than 50 years ahead is the most
//! recent past year with those digits), so a parsed value becomes an
//! [`HttpDate`] through [`DateValue::at`], with the time passed in.
//! The weekday is checked to be a weekday's name but not against the
//! date: a client's mistake there does not change which instant it means.

use core::fmt;

use conflux_abi::calendar::{days_from_civil, days_in_month, weekday, Civil};

/// An instant, in whole seconds since 1970-01-01 00:00:00 UTC, that an
/// HTTP-date can say (years 1970 to 9999).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HttpDate(u64);

/// The last second an IMF-fixdate's four-digit year can hold.
const MAX_SECS: u64 = 253_402_300_799; // 9999-12-31 23:59:59

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

impl HttpDate {
    /// The instant `secs` seconds after the epoch; past year 9999 it is
    /// the last second of 9999 (no HTTP-date says more).
    pub fn from_unix(secs: u64) -> HttpDate {
        HttpDate(secs.min(MAX_SECS))
    }

    /// The instant `ms` milliseconds after the epoch, to the second below.
    pub fn from_unix_ms(ms: u64) -> HttpDate {
        HttpDate::from_unix(ms / 1000)
    }

    pub fn unix(self) -> u64 {
        self.0
    }
}

/// IMF-fixdate.
impl fmt::Display for HttpDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0 as i64;
        let c = Civil::from_unix(secs);
        write!(
            f,
            "{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT",
            DAYS[usize::from(weekday(secs.div_euclid(86_400)))],
            c.day,
            MONTHS[usize::from(c.month - 1)],
            c.year,
            c.hour,
            c.minute,
            c.second
        )
    }
}

/// A year as written: four digits, or RFC 850's two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Year {
    Full(i64),
    TwoDigit(u8),
}

/// A header value that is an HTTP-date in one of the three forms,
/// checked; [`DateValue::at`] gives its instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateValue {
    year: Year,
    month: u8,
    day: u8,
    /// Seconds into the day.
    time: u32,
}

impl DateValue {
    /// Parses `text` (already trimmed of surrounding whitespace).
    pub fn parse(text: &str) -> Option<DateValue> {
        let b = text.as_bytes();
        let comma = b.iter().position(|&c| c == b',');
        let value = match comma {
            Some(3) => imf_fixdate(b)?,
            Some(_) => rfc850(b)?,
            None => asctime(b)?,
        };
        value.is_valid().then_some(value)
    }

    /// The instant it names, with `now` resolving a two-digit year.
    pub fn at(self, now: HttpDate) -> HttpDate {
        let year = match self.year {
            Year::Full(y) => y,
            Year::TwoDigit(yy) => {
                let this_year = Civil::from_unix(now.0 as i64).year;
                let mut y = this_year - this_year % 100 + i64::from(yy);
                if y > this_year + 50 {
                    y -= 100;
                }
                y
            }
        };
        let days = days_from_civil(year, self.month, self.day);
        let secs = days * 86_400 + i64::from(self.time);
        // Years below 1970 (a two-digit year resolved early) say "long ago".
        HttpDate::from_unix(secs.max(0) as u64)
    }

    fn is_valid(&self) -> bool {
        // A two-digit year's leap day is checked with a leap year (2000);
        // `at` then may land on a 29 February of a common year, which
        // days_from_civil counts as 1 March: harmless for a comparison.
        let year = match self.year {
            Year::Full(y) => y,
            Year::TwoDigit(_) => 2000,
        };
        (1..=12).contains(&self.month)
            && self.day >= 1
            && self.day <= days_in_month(year, self.month)
            && (1970..=9999).contains(&year)
    }
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`
fn imf_fixdate(b: &[u8]) -> Option<DateValue> {
    if b.len() != 29 {
        return None;
    }
    name(&b[0..3], &DAYS)?;
    lit(&b[3..5], b", ")?;
    let day = two(&b[5..7])?;
    lit(&b[7..8], b" ")?;
    let month = name(&b[8..11], &MONTHS)? as u8 + 1;
    lit(&b[11..12], b" ")?;
    let year = Year::Full(i64::from(four(&b[12..16])?));
    lit(&b[16..17], b" ")?;
    let time = time_of_day(&b[17..25])?;
    lit(&b[25..], b" GMT")?;
    Some(DateValue {
        year,
        month,
        day,
        time,
    })
}

/// `Sunday, 06-Nov-94 08:49:37 GMT`
fn rfc850(b: &[u8]) -> Option<DateValue> {
    let comma = b.iter().position(|&c| c == b',')?;
    name(&b[..comma], &LONG_DAYS)?;
    let rest = &b[comma..];
    if rest.len() != 24 {
        return None;
    }
    lit(&rest[0..2], b", ")?;
    let day = two(&rest[2..4])?;
    lit(&rest[4..5], b"-")?;
    let month = name(&rest[5..8], &MONTHS)? as u8 + 1;
    lit(&rest[8..9], b"-")?;
    let year = Year::TwoDigit(two(&rest[9..11])?);
    lit(&rest[11..12], b" ")?;
    let time = time_of_day(&rest[12..20])?;
    lit(&rest[20..], b" GMT")?;
    Some(DateValue {
        year,
        month,
        day,
        time,
    })
}

/// `Sun Nov  6 08:49:37 1994` (a one-digit day is padded with a space)
fn asctime(b: &[u8]) -> Option<DateValue> {
    if b.len() != 24 {
        return None;
    }
    name(&b[0..3], &DAYS)?;
    lit(&b[3..4], b" ")?;
    let month = name(&b[4..7], &MONTHS)? as u8 + 1;
    lit(&b[7..8], b" ")?;
    let day = match b[8] {
        b' ' => digit(b[9])?,
        _ => two(&b[8..10])?,
    };
    lit(&b[10..11], b" ")?;
    let time = time_of_day(&b[11..19])?;
    lit(&b[19..20], b" ")?;
    let year = Year::Full(i64::from(four(&b[20..24])?));
    Some(DateValue {
        year,
        month,
        day,
        time,
    })
}

/// `HH:MM:SS`, as seconds into the day.
fn time_of_day(b: &[u8]) -> Option<u32> {
    let (h, m, s) = (two(&b[0..2])?, two(&b[3..5])?, two(&b[6..8])?);
    lit(&b[2..3], b":")?;
    lit(&b[5..6], b":")?;
    (h < 24 && m < 60 && s < 60).then(|| u32::from(h) * 3600 + u32::from(m) * 60 + u32::from(s))
}

/// The index of `b` among `names` (exact case: HTTP-dates are case-sensitive).
fn name(b: &[u8], names: &[&str]) -> Option<usize> {
    names.iter().position(|n| n.as_bytes() == b)
}

fn lit(b: &[u8], want: &[u8]) -> Option<()> {
    (b == want).then_some(())
}

fn digit(c: u8) -> Option<u8> {
    c.is_ascii_digit().then(|| c - b'0')
}

fn two(b: &[u8]) -> Option<u8> {
    Some(digit(b[0])? * 10 + digit(b[1])?)
}

fn four(b: &[u8]) -> Option<u16> {
    Some(u16::from(two(&b[0..2])?) * 100 + u16::from(two(&b[2..4])?))
}
