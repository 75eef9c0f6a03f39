//! The benchmark record line: how an in-guest benchmark reports one
//! statistic of one metric on the console, and how the host runner reads
//! it back.
//!
//! A task prints `BENCH <metric> <stat> <value>` (the console puts the
//! task's `name: ` in front), for example `BENCH call_reply median 812`.
//! The task formats a [`BenchLine`] with `Display` and the runner reads it
//! with [`BenchLine::parse`], so the format is written down once, here.
//! The unit is not on the line: the runner knows it from the mode it ran
//! (TSC cycles under `tcg`, instructions under `icount`).

use core::fmt;

/// The word every record line starts with.
pub const MARK: &str = "BENCH";

/// Which statistic of a metric's samples a line carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    Median,
    /// The 99th percentile.
    P99,
    /// How many samples the statistics are over.
    Samples,
    /// The mean over all samples (for throughput: total time / operations).
    Mean,
}

impl Stat {
    /// Every statistic, in the order a benchmark prints them.
    pub const ALL: [Stat; 4] = [Stat::Median, Stat::P99, Stat::Samples, Stat::Mean];

    /// The statistic's word on the line.
    pub fn name(self) -> &'static str {
        match self {
            Stat::Median => "median",
            Stat::P99 => "p99",
            Stat::Samples => "samples",
            Stat::Mean => "mean",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        Stat::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One record line: `value` is statistic `stat` of metric `metric`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchLine<'a> {
    metric: &'a str,
    stat: Stat,
    value: u64,
}

/// What is wrong with a line that should be a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchLineError<'a> {
    /// The line does not start with `BENCH `: it is not a record at all.
    NotARecord,
    /// The line ends before this field (`"metric"`, `"statistic"`, `"value"`).
    Missing(&'static str),
    /// A metric name that is empty or has characters other than ASCII
    /// letters, digits and `_`.
    BadMetric(&'a str),
    UnknownStat(&'a str),
    /// Not a whole number that fits 64 bits.
    BadValue(&'a str),
    /// Something follows the value.
    Trailing(&'a str),
}

impl fmt::Display for BenchLineError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotARecord => write!(f, "not a record: it does not start with `{MARK} `"),
            Self::Missing(field) => write!(
                f,
                "the {field} is missing (a record is `{MARK} <metric> <statistic> <value>`)"
            ),
            Self::BadMetric(m) => write!(
                f,
                "metric name `{m}` must be non-empty ASCII letters, digits and `_`"
            ),
            Self::UnknownStat(s) => {
                write!(f, "unknown statistic `{s}` (known:")?;
                for (i, known) in Stat::ALL.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{}", known.name())?;
                }
                write!(f, ")")
            }
            Self::BadValue(v) => write!(f, "value `{v}` is not a whole number below 2^64"),
            Self::Trailing("") => write!(f, "a space after the value"),
            Self::Trailing(t) => write!(f, "unexpected `{t}` after the value"),
        }
    }
}

fn check_metric(metric: &str) -> Result<&str, BenchLineError<'_>> {
    let ok = !metric.is_empty()
        && metric
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    ok.then_some(metric)
        .ok_or(BenchLineError::BadMetric(metric))
}

impl<'a> BenchLine<'a> {
    /// A record, if `metric` is a valid metric name (letters, digits, `_`:
    /// anything else could not be read back).
    pub fn new(metric: &'a str, stat: Stat, value: u64) -> Result<Self, BenchLineError<'a>> {
        Ok(Self {
            metric: check_metric(metric)?,
            stat,
            value,
        })
    }

    /// The same metric with another statistic and value.
    pub fn with(self, stat: Stat, value: u64) -> Self {
        Self {
            stat,
            value,
            ..self
        }
    }

    pub fn metric(&self) -> &'a str {
        self.metric
    }

    pub fn stat(&self) -> Stat {
        self.stat
    }

    pub fn value(&self) -> u64 {
        self.value
    }

    /// Reads a record line as [`fmt::Display`] writes it (without the
    /// console's task prefix), fields separated by single spaces.
    pub fn parse(line: &'a str) -> Result<Self, BenchLineError<'a>> {
        let rest = line
            .strip_prefix(MARK)
            .and_then(|r| r.strip_prefix(' '))
            .ok_or(BenchLineError::NotARecord)?;
        let mut fields = rest.splitn(4, ' ');
        let mut next = |what| {
            fields
                .next()
                .filter(|f| !f.is_empty() || what == "metric")
                .ok_or(BenchLineError::Missing(what))
        };
        let metric = check_metric(next("metric")?)?;
        let stat = next("statistic")?;
        let stat = Stat::from_name(stat).ok_or(BenchLineError::UnknownStat(stat))?;
        let value = next("value")?;
        // `u64::from_str` would accept a leading `+`; a record never has one.
        let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
        let value = value
            .parse()
            .ok()
            .filter(|_| digits)
            .ok_or(BenchLineError::BadValue(value))?;
        if let Some(trailing) = fields.next() {
            return Err(BenchLineError::Trailing(trailing));
        }
        Ok(Self {
            metric,
            stat,
            value,
        })
    }
}

impl fmt::Display for BenchLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{MARK} {} {} {}",
            self.metric,
            self.stat.name(),
            self.value
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_statistic_round_trips() {
        for stat in Stat::ALL {
            for value in [0, 1, 812, u64::MAX] {
                let line = BenchLine::new("call_reply_2", stat, value).unwrap();
                let text = line.to_string();
                assert_eq!(BenchLine::parse(&text), Ok(line), "{text}");
            }
        }
    }

    #[test]
    fn the_line_is_exactly_mark_metric_stat_value() {
        let line = BenchLine::new("notify_wait", Stat::P99, 2000).unwrap();
        assert_eq!(line.to_string(), "BENCH notify_wait p99 2000");
        let count = line.with(Stat::Samples, 7).to_string();
        assert_eq!(count, "BENCH notify_wait samples 7");
        let read = BenchLine::parse("BENCH notify_wait median 812").unwrap();
        assert_eq!(
            (read.metric(), read.stat(), read.value()),
            ("notify_wait", Stat::Median, 812)
        );
    }

    #[test]
    fn lines_that_are_not_records_say_so() {
        for line in [
            "",
            "hello",
            "BENCHX a median 1",
            "BENCH",
            " BENCH a median 1",
        ] {
            assert_eq!(
                BenchLine::parse(line),
                Err(BenchLineError::NotARecord),
                "{line:?}"
            );
        }
    }

    #[test]
    fn malformed_records_name_their_fault() {
        use BenchLineError::*;
        let cases = [
            ("BENCH ", BadMetric("")),
            ("BENCH a", Missing("statistic")),
            ("BENCH a median", Missing("value")),
            ("BENCH a median ", Missing("value")),
            ("BENCH a-b median 1", BadMetric("a-b")),
            ("BENCH  a median 1", BadMetric("")),
            ("BENCH a p95 1", UnknownStat("p95")),
            ("BENCH a median -1", BadValue("-1")),
            ("BENCH a median +1", BadValue("+1")),
            ("BENCH a median 1.5", BadValue("1.5")),
            (
                "BENCH a median 18446744073709551616",
                BadValue("18446744073709551616"),
            ),
            ("BENCH a median 1 cycles", Trailing("cycles")),
            ("BENCH a median 1 ", Trailing("")),
        ];
        for (line, want) in cases {
            assert_eq!(BenchLine::parse(line), Err(want), "{line:?}");
        }
    }

    #[test]
    fn a_metric_that_could_not_be_read_back_is_refused() {
        assert_eq!(
            BenchLine::new("two words", Stat::Median, 1),
            Err(BenchLineError::BadMetric("two words"))
        );
    }

    #[test]
    fn errors_read_as_sentences() {
        let e = BenchLine::parse("BENCH a p95 1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown statistic `p95` (known: median, p99, samples, mean)"
        );
    }
}
