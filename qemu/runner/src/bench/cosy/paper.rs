//! The Cosy papers' figures for each workload and configuration, printed
//! beside ours. The papers give elapsed-time improvements over VAN,
//! `(VAN - config) / VAN`: -90 % is ten times as fast. Sources:
//! FSL-02-01 (the technical report) §4.2 and §4.4, HotOS 2003 §3.

/// What the paper reports for `bench` in `config` (a VAN row has none).
pub fn claim(bench: &str, config: &str) -> &'static str {
    match (bench, config) {
        (_, "VAN") => "",
        ("null-loop", _) => {
            "getpid loop: -12 % (N=2) to -90 % (N=256) elapsed, ~10x at 256 (FSL §4.2)"
        }
        ("copy", _) => "no figure (HotOS §2 shows the code only)",
        ("grep", "COSY") => "-13 % elapsed (FSL Fig. 7; HotOS: -15 %)",
        ("grep", _) => "-20 % elapsed (FSL Fig. 7, HotOS)",
        ("dbsim", "COSY") => "-26 % elapsed (FSL Fig. 3)",
        ("dbsim", _) => "-64 % elapsed, 2.8x (FSL Fig. 3)",
        ("ls-l", "COSY") => "-8 % elapsed (FSL Fig. 6)",
        ("ls-l", _) => "-85 % elapsed, 6.7x (FSL Fig. 6)",
        ("bonnie", _) => "fastread -80 %, rewrite -30..-90 %, fastwrite -45..-90 % (FSL Fig. 5)",
        _ => "no figure",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_workload_has_the_papers_figure_and_van_none() {
        assert_eq!(claim("grep", "VAN"), "");
        assert!(claim("null-loop", "COSY").contains("-90 %"));
        assert!(claim("grep", "COSY-FAST").contains("-20 %"));
        assert!(claim("ls-l", "COSY-FAST").contains("-85 %"));
        assert_eq!(claim("unknown", "COSY"), "no figure");
    }
}
