//! A compound in a client's control region, as a server verifies it and
//! writes its results back: the steps every Cosy server takes the same
//! way.

use cosy_abi::{Compound, Insn, OpResult, OpTable, Program, Report, Target};

/// Why a compound was not verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// `offset..offset + len` is not inside the control region.
    BadSpan,
    /// The verifier refused it (its results area says so where it could
    /// be written): reply [`crate::REJECTED`] `| code`, word `op`.
    Rejected { code: u16, op: u64 },
}

/// Verifies the compound at `offset..offset + len` of region 0 of
/// `slices` (the client's regions, numbered as in buffer refs) against
/// `ops`, into `storage`.
pub fn verify_at<S: AsRef<[Insn]> + AsMut<[Insn]>>(
    slices: &mut [&mut [u8]],
    offset: u64,
    len: u64,
    ops: OpTable<'_>,
    max_steps: u32,
    storage: S,
) -> Result<Program<S>, Refused> {
    let lens: alloc_free::Lens = alloc_free::lens(slices);
    let target = Target {
        ops,
        regions: lens.as_slice(),
        max_steps,
    };
    let bytes = span(slices.first_mut().map(|r| &mut **r), offset, len).ok_or(Refused::BadSpan)?;
    Program::verify(bytes, &target, storage).map_err(|e| {
        Compound::new_unchecked(&mut *bytes).write_rejection(&e);
        Refused::Rejected {
            code: e.code(),
            op: e.op().map_or(0xFFFF, u64::from),
        }
    })
}

/// Writes an ended run's results into the compound's results area at
/// `offset..offset + len` of `control`, if its bytes still describe one
/// (the client may have overwritten them meanwhile).
pub fn write_results(
    control: &mut [u8],
    offset: u64,
    len: u64,
    report: &Report,
    results: &[OpResult],
) {
    if let Some(bytes) = span(Some(control), offset, len) {
        if let Ok(mut view) = Compound::new_checked(bytes) {
            view.write_results(report, results);
        }
    }
}

/// `offset..offset + len` of `region`, if inside it.
fn span(region: Option<&mut [u8]>, offset: u64, len: u64) -> Option<&mut [u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    region?.get_mut(start..end)
}

/// Region lengths without allocating: a server has at most
/// [`crate::MAX_REGIONS`] regions per session.
mod alloc_free {
    use crate::MAX_REGIONS;

    pub struct Lens {
        lens: [usize; MAX_REGIONS],
        n: usize,
    }

    impl Lens {
        pub fn as_slice(&self) -> &[usize] {
            &self.lens[..self.n]
        }
    }

    pub fn lens(slices: &[&mut [u8]]) -> Lens {
        let mut l = Lens {
            lens: [0; MAX_REGIONS],
            n: 0,
        };
        for (slot, s) in l.lens.iter_mut().zip(slices) {
            *slot = s.len();
            l.n += 1;
        }
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosy_abi::OpSpec;

    const NONE: OpTable<'static> = OpTable::new("none", &[] as &[OpSpec]);

    #[test]
    fn a_span_outside_the_region_is_refused_before_verifying() {
        let mut region = [0u8; 64];
        let mut slices = [&mut region[..]];
        let r = verify_at(&mut slices, 60, 8, NONE, 10, [Insn::EMPTY; 4]);
        assert_eq!(r.err(), Some(Refused::BadSpan));
        let r = verify_at(&mut slices, u64::MAX, 2, NONE, 10, [Insn::EMPTY; 4]);
        assert_eq!(r.err(), Some(Refused::BadSpan));
    }

    #[test]
    fn garbage_is_rejected_with_the_verifier_code() {
        let mut region = [0xAAu8; 256];
        let mut slices = [&mut region[..]];
        let r = verify_at(&mut slices, 0, 256, NONE, 10, [Insn::EMPTY; 4]);
        assert!(matches!(r, Err(Refused::Rejected { .. })), "{:?}", r.err());
    }
}
