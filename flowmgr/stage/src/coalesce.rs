//! A sink that sends several small buffers as one piece (one system call
//! for many): which buffers go together, and what a send that went only
//! part of the way means for each of them.
//!
//! The arithmetic is kept apart from the sending so it is tested on the
//! host: a mistake here sends a byte twice or skips one, which only a
//! peer checking the whole stream would notice.

/// How many buffers, from the first on, go in one piece of at most `cap`
/// bytes: `rest` bytes are left of the first (always taken, whatever its
/// size), then whole buffers of `lens` (the lengths of the buffers after
/// the first) while they fit.
pub fn group(rest: usize, lens: impl IntoIterator<Item = usize>, cap: usize) -> usize {
    let (mut count, mut total) = (1, rest);
    for len in lens {
        match total.checked_add(len) {
            Some(t) if t <= cap => {
                total = t;
                count += 1;
            }
            _ => break,
        }
    }
    count
}

/// Where a piece's send stopped, counted in buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reached {
    /// Buffers that went whole, from the first on.
    pub whole: usize,
    /// Bytes of the next buffer that went (less than its length; 0 when
    /// every buffer went whole).
    pub part: usize,
}

/// Hands `gone` bytes (those sent of a group, the first buffer's bytes
/// sent by earlier calls included) out to buffers of lengths `lens`, in
/// order.
pub fn reached(lens: impl IntoIterator<Item = usize>, gone: usize) -> Reached {
    let mut left = gone;
    let mut whole = 0;
    for len in lens {
        if left < len {
            return Reached { whole, part: left };
        }
        left -= len;
        whole += 1;
    }
    Reached { whole, part: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_first_buffer_always_goes_even_when_too_big() {
        assert_eq!(group(20_000, [10], 16_384), 1);
        assert_eq!(group(0, [], 16_384), 1);
    }

    #[test]
    fn buffers_join_while_they_fit() {
        assert_eq!(group(1000, [1000, 1000, 14_384, 1], 16_384), 3);
        assert_eq!(group(1000, [1000, 14_384], 16_384), 3);
    }

    #[test]
    fn a_send_stopped_midway_names_the_buffer_and_its_bytes() {
        assert_eq!(reached([64, 64, 64], 100), Reached { whole: 1, part: 36 });
        assert_eq!(reached([64, 64, 64], 128), Reached { whole: 2, part: 0 });
        assert_eq!(reached([64, 64, 64], 192), Reached { whole: 3, part: 0 });
        assert_eq!(reached([64, 64, 64], 0), Reached { whole: 0, part: 0 });
    }

    #[test]
    fn an_empty_buffer_goes_whole_once_reached() {
        assert_eq!(reached([10, 0, 10], 10), Reached { whole: 2, part: 0 });
    }

    proptest! {
        /// Every byte sent is accounted for exactly once: the whole
        /// buffers and the part of the next add up to what went, and the
        /// part is less than that buffer.
        #[test]
        fn every_byte_is_counted_once(
            lens in proptest::collection::vec(0usize..5000, 1..9),
            frac in 0.0f64..=1.0,
        ) {
            let total: usize = lens.iter().sum();
            let gone = (total as f64 * frac) as usize;
            let r = reached(lens.iter().copied(), gone);
            let whole: usize = lens[..r.whole].iter().sum();
            prop_assert_eq!(whole + r.part, gone);
            if r.whole < lens.len() {
                prop_assert!(r.part < lens[r.whole]);
            } else {
                prop_assert_eq!(r.part, 0);
            }
        }

        /// A group never goes over the cap unless it is the first buffer
        /// alone, and the next buffer would not have fitted.
        #[test]
        fn groups_respect_the_cap(
            rest in 0usize..20_000,
            lens in proptest::collection::vec(0usize..5000, 0..8),
            cap in 1usize..20_000,
        ) {
            let n = group(rest, lens.iter().copied(), cap);
            let size = rest + lens[..n - 1].iter().sum::<usize>();
            prop_assert!(n == 1 || size <= cap);
            if let Some(next) = lens.get(n - 1) {
                prop_assert!(size + next > cap);
            }
        }
    }
}
