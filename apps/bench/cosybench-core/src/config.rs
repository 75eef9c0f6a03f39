//! The three configurations every workload runs in (FSL-02-01 §4):
//!
//! - **VAN**: one IPC per file operation through `conflux-fs-client`,
//!   whose calls copy data between the control region and the app's own
//!   buffers (a system call's `copy_from_user` / `copy_to_user`).
//! - **COSY**: the workload as one compound, its data still copied
//!   between the buffer the file operation uses and the app's buffer,
//!   once per operation, as Cosy's compounds copied between the kernel
//!   and the user's buffers: the compound's own `COPY` data op does it
//!   (the app cannot, while its compound runs), both buffers in the
//!   control region ([`crate::layout::APP`]).
//! - **COSY-FAST**: the same compound without those copies: the file
//!   operations read into and write from the app's buffer itself, in a
//!   data region the app attached and shares with the server (Cosy's
//!   zero-copy buffers).

/// How a workload talks to the file server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Config {
    Van,
    Cosy,
    CosyFast,
}

impl Config {
    /// Every configuration, VAN first (its answer is the reference).
    pub const ALL: [Config; 3] = [Config::Van, Config::Cosy, Config::CosyFast];

    /// The name in metric names (`_` for the record's `-`).
    pub fn metric(self) -> &'static str {
        match self {
            Config::Van => "VAN",
            Config::Cosy => "COSY",
            Config::CosyFast => "COSY_FAST",
        }
    }

    /// Its number in job messages.
    pub fn code(self) -> u64 {
        match self {
            Config::Van => 0,
            Config::Cosy => 1,
            Config::CosyFast => 2,
        }
    }

    pub fn from_code(code: u64) -> Option<Config> {
        Self::ALL.into_iter().find(|c| c.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_name_each_configuration_once() {
        for c in Config::ALL {
            assert_eq!(Config::from_code(c.code()), Some(c));
        }
        assert_eq!(Config::from_code(3), None);
    }
}
