//! The register file a compound runs with: its parameters going in, its
//! results coming out.
//!
//! A prepared compound is run many times with new parameters; the server
//! puts them in the first registers (`Registers::with_params`) and the
//! compound reads them like any earlier result.

use crate::wire::NREGS;

/// The 32 registers `r0`..`r31`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registers([u64; NREGS]);

impl Default for Registers {
    fn default() -> Self {
        Registers::new()
    }
}

impl Registers {
    /// All zero.
    pub const fn new() -> Self {
        Registers([0; NREGS])
    }

    /// `r0`.. set to `params`, the rest zero; `None` if there are more
    /// than 32 parameters.
    pub fn with_params(params: &[u64]) -> Option<Self> {
        let mut regs = Registers::new();
        regs.0.get_mut(..params.len())?.copy_from_slice(params);
        Some(regs)
    }

    /// Register `reg`'s value (0 for a number above 31).
    pub fn get(&self, reg: u8) -> u64 {
        self.0.get(usize::from(reg)).copied().unwrap_or(0)
    }

    /// Sets register `reg` (ignored above 31).
    pub fn set(&mut self, reg: u8, value: u64) {
        if let Some(r) = self.0.get_mut(usize::from(reg)) {
            *r = value;
        }
    }

    /// All registers.
    pub fn as_array(&self) -> &[u64; NREGS] {
        &self.0
    }

    pub(crate) fn as_mut_array(&mut self) -> &mut [u64; NREGS] {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_fill_the_first_registers() {
        let regs = Registers::with_params(&[5, 6]).unwrap();
        assert_eq!((regs.get(0), regs.get(1), regs.get(2)), (5, 6, 0));
        assert_eq!(regs.get(200), 0);
        assert!(Registers::with_params(&[0; 33]).is_none());
    }
}
