//! Choosing QEMU's accelerator.
//!
//! KVM is used only when it is hardware-backed: the `kvm_intel` or
//! `kvm_amd` module is loaded. A `/dev/kvm` alone proves nothing — on some
//! hosts it is `kvm_pvm`, a software virtualiser that runs guest ring 0
//! about 100x slower than TCG. Figures from different accelerators are
//! never comparable, so the choice is always printed.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// How QEMU executes the guest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accel {
    /// TCG binary translation; the guest TSC is emulated time.
    Tcg,
    /// TCG with `-icount shift=0,sleep=off`: time advances one step per
    /// guest instruction, so runs are deterministic.
    Icount,
    /// Hardware virtualisation.
    Kvm,
}

impl FromStr for Accel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tcg" => Ok(Self::Tcg),
            "icount" => Ok(Self::Icount),
            "kvm" => Ok(Self::Kvm),
            _ => Err(format!("unknown accelerator `{s}`: use tcg, icount or kvm")),
        }
    }
}

impl fmt::Display for Accel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Accel {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tcg => "tcg",
            Self::Icount => "icount",
            Self::Kvm => "kvm",
        }
    }

    /// From the manifest's mode names.
    pub fn from_mode(m: conflux_manifest::Mode) -> Self {
        match m {
            conflux_manifest::Mode::Tcg => Self::Tcg,
            conflux_manifest::Mode::Icount => Self::Icount,
            conflux_manifest::Mode::Kvm => Self::Kvm,
        }
    }

    /// QEMU arguments selecting this accelerator and a matching CPU model.
    pub fn qemu_args(self) -> Vec<&'static str> {
        match self {
            Self::Tcg => vec!["-accel", "tcg", "-cpu", "max"],
            Self::Icount => vec![
                "-accel",
                "tcg",
                "-icount",
                "shift=0,sleep=off",
                "-cpu",
                "max",
            ],
            Self::Kvm => vec!["-accel", "kvm", "-cpu", "host"],
        }
    }
}

/// True when a hardware KVM module is loaded.
pub fn hardware_kvm() -> bool {
    ["kvm_intel", "kvm_amd"]
        .iter()
        .any(|m| Path::new("/sys/module").join(m).exists())
        && Path::new("/dev/kvm").exists()
}

/// The accelerator to use when none is forced.
pub fn default_accel() -> Accel {
    if hardware_kvm() {
        Accel::Kvm
    } else {
        Accel::Tcg
    }
}

/// Checks a forced choice is possible here.
pub fn check(accel: Accel) -> Result<(), String> {
    if accel == Accel::Kvm && !hardware_kvm() {
        return Err("--accel kvm asked, but no hardware KVM module (kvm_intel or kvm_amd) is loaded; use tcg or icount".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_rejects_others() {
        assert_eq!("icount".parse::<Accel>(), Ok(Accel::Icount));
        assert!("kvm_pvm"
            .parse::<Accel>()
            .unwrap_err()
            .contains("unknown accelerator"));
    }

    #[test]
    fn icount_is_tcg_with_deterministic_time() {
        let a = Accel::Icount.qemu_args();
        assert!(a.windows(2).any(|w| w == ["-accel", "tcg"]));
        assert!(a.contains(&"shift=0,sleep=off"));
    }
}
