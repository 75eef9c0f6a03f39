//! The verifier: turns untrusted compound bytes into a [`Program`].
//!
//! It checks the header and layout, then decodes every op into the
//! server's storage, checking op codes against the service's op table,
//! operand kinds, register numbers, jump targets, switch tables and every
//! buffer ref against the client's regions, and finally caps the budget.
//! It stops at the first problem and reports where and why
//! ([`VerifyError`]); which problem is first when there are several is
//! part of the spec (§10.1), so the order of the checks here and in
//! `decode` is deliberate (`tests/verify_order.rs`). It allocates nothing.

mod decode;
mod error;

pub use error::{Expect, Field, OpError, OpName, RefError, VerifyError};

use crate::program::{Insn, Program, Target, MAX_REGIONS};
use crate::wire::Compound;

impl<S: AsRef<[Insn]> + AsMut<[Insn]>> Program<S> {
    /// Verifies compound bytes and decodes them into `storage`, which must
    /// hold at least as many [`Insn`]s as the compound has ops (that is
    /// also the server's limit on compound size).
    pub fn verify(bytes: &[u8], target: &Target<'_>, storage: S) -> Result<Self, VerifyError> {
        Program::verify_compound(&Compound::new_checked(bytes)?, target, storage)
    }

    /// [`Program::verify`] for a view the caller already made. The header
    /// is checked again, so an unchecked view is safe to pass.
    pub fn verify_compound<T: AsRef<[u8]>>(
        compound: &Compound<T>,
        target: &Target<'_>,
        mut storage: S,
    ) -> Result<Self, VerifyError> {
        let c = Compound::new_checked(compound.as_bytes())?;
        if target.regions.len() > MAX_REGIONS {
            return Err(VerifyError::TooManyRegions {
                count: target.regions.len(),
            });
        }
        let slots = storage.as_mut();
        let count = c.op_count();
        let max = slots.len();
        let slots = slots
            .get_mut(..usize::from(count))
            .ok_or(VerifyError::TooManyOps { count, max })?;
        for (index, slot) in (0..count).zip(slots.iter_mut()) {
            *slot = Insn(decode::decode(&c, index, target)?);
        }
        // Refs that some op uses were checked with that op (so the error
        // names it); this catches the unused ones.
        for index in 0..c.ref_count() {
            decode::check_ref(&c, index, target)
                .map_err(|error| VerifyError::Ref { index, error })?;
        }
        let mut region_lens = [0; MAX_REGIONS];
        region_lens
            .iter_mut()
            .zip(target.regions)
            .for_each(|(dst, len)| *dst = *len);
        Ok(Program {
            storage,
            len: count,
            budget: c.step_budget().min(target.max_steps),
            fail_fast: c.fail_fast(),
            region_lens,
            region_count: target.regions.len(),
        })
    }
}
