//! The papers' own figures, quoted beside ours. None of the papers ran
//! on this virtual machine, so a figure is compared only as the paper
//! gave it: the Cosy papers and the flow paper as ratios (a speed-up of
//! one path over another, which travels between machines better than a
//! time does), FlexSC's syscall costs as instructions on its own Core i7
//! and kernel (the same unit as icount, a different machine: an order of
//! magnitude, not a target).

/// A paper's figure for one comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Claim {
    /// The ratio the paper reports, in the direction the report's
    /// column states (e.g. VAN / COSY-FAST), where it gives one number.
    pub ratio: Option<f64>,
    /// The figure in the paper's words, and where it is.
    pub text: &'static str,
}

const fn claim(ratio: f64, text: &'static str) -> Option<Claim> {
    Some(Claim {
        ratio: Some(ratio),
        text,
    })
}

/// The Cosy papers' speed-up of `config` over VAN (VAN time / config
/// time) on `bench`. FSL-02-01 gives elapsed-time changes: -85 % is a
/// speed-up of 1 / 0.15 = 6.7x.
pub fn cosy(bench: &str, config: &str) -> Option<Claim> {
    match (bench, config) {
        ("grep", "COSY") => claim(1.15, "-13 % elapsed, FSL-02-01 Fig. 7"),
        ("grep", "COSY-FAST") => claim(1.25, "-20 % elapsed, FSL-02-01 Fig. 7"),
        ("dbsim", "COSY") => claim(1.35, "-26 % elapsed, FSL-02-01 Fig. 3"),
        ("dbsim", "COSY-FAST") => claim(2.8, "-64 % elapsed, FSL-02-01 Fig. 3"),
        ("ls-l", "COSY") => claim(1.09, "-8 % elapsed, FSL-02-01 Fig. 6"),
        ("ls-l", "COSY-FAST") => claim(6.7, "-85 % elapsed, FSL-02-01 Fig. 6"),
        ("bonnie", "COSY" | "COSY-FAST") => Some(Claim {
            ratio: None,
            text:
                "fastread -80 %, rewrite -30..-90 %, fastwrite -45..-90 % elapsed, FSL-02-01 Fig. 5",
        }),
        _ => None,
    }
}

/// The Cosy paper's null loop (N getpid calls in one compound) at `n`
/// calls: VAN / COSY; it gives only the ends of its range.
pub fn cosy_null_loop(n: &str) -> Option<Claim> {
    match n {
        "2" => claim(1.14, "-12 % elapsed, FSL-02-01 §4.2"),
        "256" => claim(10.0, "-90 % elapsed, FSL-02-01 §4.2"),
        _ => None,
    }
}

/// FlexSC (OSDI 2010) Table 1: Linux's instructions for one call on a
/// Core i7, for the fs-ops operation `param`.
pub fn flexsc_syscall(param: &str) -> Option<(f64, &'static str)> {
    match param {
        "stat" => Some((4972.0, "stat")),
        "pread" => Some((3739.0, "pread")),
        "pwrite" => Some((5689.0, "pwrite")),
        "open-close" => Some((6631.0, "open+close")),
        _ => None,
    }
}

/// FlexSC's server results: exception-less (ring) over synchronous
/// system calls, throughput.
pub const FLEXSC_SERVERS: &str =
    "FlexSC (OSDI 2010): Apache +116 % (2.16x), BIND +105 %, MySQL +40 % throughput with exception-less calls";

/// The flow paper's throughput of a flow over the memory-centric path
/// for datagrams of `size` bytes (1 million packets through all
/// peripherals: 64 B 15.5 s vs 13.6 s, 1024 B 114.6 s vs 59.2 s).
pub fn flow(size: &str) -> Option<Claim> {
    match size {
        "64" => claim(1.13, "1.13x at 64 B (15.5 s vs 13.6 s for 1M packets)"),
        "1024" => claim(1.94, "1.94x at 1024 B (9,150 vs 17,700 packets/s)"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_speed_ups_of_the_named_config() {
        assert_eq!(cosy("ls-l", "COSY-FAST").and_then(|c| c.ratio), Some(6.7));
        assert_eq!(cosy("ls-l", "VAN"), None);
        assert_eq!(cosy_null_loop("256").and_then(|c| c.ratio), Some(10.0));
        assert_eq!(cosy_null_loop("16"), None);
        assert_eq!(cosy("bonnie", "COSY").and_then(|c| c.ratio), None);
        assert_eq!(flexsc_syscall("pread").map(|f| f.0), Some(3739.0));
        assert_eq!(flow("1024").and_then(|c| c.ratio), Some(1.94));
        assert_eq!(flow("512"), None);
    }
}
