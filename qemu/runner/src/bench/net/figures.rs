//! What `bench net` measured, turned into records and a table: medians
//! (and the echo's p99) per configuration, the COSY/VAN ratio of times
//! measured in the same run, and the IPCs per round trip or request that
//! the guest's netbench task counted (its tally lines on the console).

use super::super::{median, Record};

/// The two ways netbench runs a loop, in the order of every `[_; 2]`.
pub const CONFIGS: [&str; 2] = ["VAN", "COSY"];

/// Everything measured in one boot.
#[derive(Debug, Default)]
pub struct Figures {
    /// Echo round trips, µs, every timed one, per configuration.
    pub echo: [Vec<f64>; 2],
    /// Request loop, µs per request (connect to close), per configuration.
    pub request: [Vec<f64>; 2],
    /// httpd, 1 KiB, one client: requests/s of each round.
    pub http_1: Vec<f64>,
    /// httpd, 1 KiB, 16 clients: requests/s of each round.
    pub http_16: Vec<f64>,
    /// httpd, HEAD for the 1 KiB file, one client: requests/s of each round.
    pub http_head: Vec<f64>,
    /// httpd, 16 MiB: MiB/s of each fetch.
    pub transfer: Vec<f64>,
}

/// IPCs the guest counted for one configuration (its tally lines summed).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Tally {
    pub served: u64,
    pub ipcs: u64,
    pub late: u64,
}

impl Tally {
    pub fn per_served(&self) -> f64 {
        self.ipcs as f64 / self.served.max(1) as f64
    }
}

/// The sums of netbench's tally lines named `name` (`echo VAN`,
/// `request COSY`, ...): `netbench: NAME: S served with I IPCs (L late
/// requests)`.
pub fn tally(console: &str, name: &str) -> Tally {
    let prefix = format!("netbench: {name}: ");
    let mut t = Tally::default();
    for rest in console.lines().filter_map(|l| l.strip_prefix(&prefix)) {
        let words: Vec<&str> = rest.split_whitespace().collect();
        if let [s, "served", "with", i, "IPCs", l, "late", "requests)"] = words[..] {
            let l = l.trim_start_matches('(');
            if let (Ok(s), Ok(i), Ok(l)) = (s.parse::<u64>(), i.parse::<u64>(), l.parse::<u64>()) {
                t.served += s;
                t.ipcs += i;
                t.late += l;
            }
        }
    }
    t
}

/// The `p`-th percentile (0..=100) of `v`, nearest rank.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl Figures {
    /// The records and table lines of these figures; `console` holds the
    /// guest's tally lines.
    pub fn report(&self, console: &str) -> (Vec<Record<'static>>, Vec<String>) {
        let mut records = Vec::new();
        let mut rows: Vec<String> = vec![format!(
            "  {:<34} {:>10} {:>10} {:>10}  {}",
            "what", "median", "p99/min", "max", "unit"
        )];
        for (bench, param, what, ipcs_metric, samples) in [
            (
                "net-echo",
                "64B",
                "echo 64 B round trip",
                "ipcs_per_round_trip",
                &self.echo,
            ),
            (
                "net-request",
                "1-client",
                "request loop, 1 client",
                "ipcs_per_request",
                &self.request,
            ),
        ] {
            let name = bench.trim_start_matches("net-");
            let mut medians = [0.0; 2];
            for (c, config) in CONFIGS.iter().enumerate() {
                let mut v = samples[c].clone();
                let (med, p99) = (median(&mut v), percentile(&mut v, 99.0));
                medians[c] = med;
                let t = tally(console, &format!("{name} {config}"));
                rows.push(format!(
                    "  {:<34} {med:>10.1} {p99:>10.1} {:>10}  µs ({} samples, {:.2} IPCs each, {} late)",
                    format!("{what}, {config}"),
                    "",
                    v.len(),
                    t.per_served(),
                    t.late
                ));
                records.push(rec(
                    bench,
                    config,
                    param,
                    "latency_median",
                    round2(med),
                    "us",
                ));
                records.push(rec(bench, config, param, "latency_p99", round2(p99), "us"));
                let per_sec = 1e6 * v.len() as f64 / v.iter().sum::<f64>();
                records.push(rec(bench, config, param, "per_sec", round2(per_sec), "1/s"));
                let ipcs = round2(t.per_served());
                records.push(rec(bench, config, param, ipcs_metric, ipcs, "ipcs"));
            }
            let ratio = medians[1] / medians[0];
            rows.push(format!(
                "  {:<34} {ratio:>10.3} {:>10} {:>10}  COSY median / VAN median (time)",
                format!("{name} ratio"),
                "",
                ""
            ));
            records.push(rec(
                bench,
                "COSY/VAN",
                param,
                "time_ratio",
                round3(ratio),
                "ratio",
            ));
        }
        for (param, what, v) in [
            ("1KiB-1-client", "httpd 1 KiB, 1 client", &self.http_1),
            ("1KiB-16-clients", "httpd 1 KiB, 16 clients", &self.http_16),
            (
                "1KiB-HEAD-1-client",
                "httpd HEAD 1 KiB, 1 client",
                &self.http_head,
            ),
        ] {
            let (med, min, max) = spread(v);
            rows.push(format!(
                "  {what:<34} {med:>10.1} {min:>10.1} {max:>10.1}  requests/s ({} rounds)",
                v.len()
            ));
            records.push(rec(
                "net-http",
                "httpd",
                param,
                "requests_per_sec",
                round2(med),
                "req/s",
            ));
        }
        let (med, min, max) = spread(&self.transfer);
        rows.push(format!(
            "  {:<34} {med:>10.2} {min:>10.2} {max:>10.2}  MiB/s ({} fetches)",
            "httpd 16 MiB, 1 client",
            self.transfer.len()
        ));
        records.push(rec(
            "net-transfer",
            "httpd",
            "16MiB",
            "rate_median",
            round2(med),
            "MiB/s",
        ));
        (records, rows)
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Median, min and max of `v`.
fn spread(v: &[f64]) -> (f64, f64, f64) {
    let mut v = v.to_vec();
    let med = median(&mut v);
    (med, v[0], v[v.len() - 1])
}

fn rec(
    bench: &'static str,
    config: &'static str,
    param: &'static str,
    metric: &'static str,
    value: f64,
    unit: &'static str,
) -> Record<'static> {
    Record {
        bench,
        config,
        param,
        metric,
        value,
        unit,
        mode: "tcg",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_lines_are_summed_per_name() {
        let console = "netbench: request VAN: 100 served with 500 IPCs (0 late requests)\n\
                       netbench: request COSY: 100 served with 210 IPCs (5 late requests)\n\
                       netbench: request VAN: 50 served with 250 IPCs (0 late requests)\n\
                       httpd: request VAN: 1 served with 1 IPCs (0 late requests)\n";
        assert_eq!(
            tally(console, "request VAN"),
            Tally {
                served: 150,
                ipcs: 750,
                late: 0
            }
        );
        let cosy = tally(console, "request COSY");
        assert_eq!(cosy.late, 5);
        assert!((cosy.per_served() - 2.1).abs() < 1e-9);
        assert_eq!(tally(console, "echo VAN"), Tally::default());
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut v: Vec<f64> = (1..=200).rev().map(f64::from).collect();
        assert_eq!(percentile(&mut v, 99.0), 198.0);
        assert_eq!(percentile(&mut v, 100.0), 200.0);
        assert_eq!(percentile(&mut [5.0], 99.0), 5.0);
    }

    #[test]
    fn ratios_are_cosy_time_over_van_time() {
        let f = Figures {
            echo: [vec![100.0, 100.0, 100.0], vec![80.0, 80.0, 80.0]],
            request: [vec![100.0], vec![50.0]],
            http_1: vec![1.0],
            http_16: vec![1.0],
            http_head: vec![1.0],
            transfer: vec![1.0],
        };
        let (records, table) = f.report("");
        let ratio = |bench: &str| {
            records
                .iter()
                .find(|r| r.bench == bench && r.metric == "time_ratio")
                .map(|r| r.value)
        };
        assert_eq!(ratio("net-echo"), Some(0.8));
        assert_eq!(ratio("net-request"), Some(0.5));
        assert!(records.iter().all(|r| r.mode == "tcg"));
        assert!(table
            .iter()
            .any(|l| l.contains("echo 64 B round trip, COSY")));
    }
}
