//! Records: data that can prove it arrived whole, once and in order.
//!
//! Test and benchmark data travel as records so that the end of a flow
//! can check what came through: a 16-byte header (magic, sequence
//! number, payload length, CRC-32C of the payload) and a payload that is
//! a function of the flow's seed and the sequence number. The `pattern`
//! source makes them, the host's UDP sender makes the same bytes, and the
//! `check` sink (or a test reading the disk back) verifies them with
//! [`Checker`]: a record lost, repeated, reordered or damaged anywhere in
//! the flow is counted as such.
//!
//! ```text
//! +0   magic  u32  "CfxR"
//! +4   seq    u32  0, 1, 2, ...
//! +8   len    u32  payload bytes (the record is 16 + len bytes)
//! +12  crc    u32  CRC-32C of the payload
//! +16  payload     byte i = (seed + seq * 31 + i * 7) as u8 ^ (i >> 8) as u8
//! ```

/// The first four bytes of every record.
pub const MAGIC: [u8; 4] = *b"CfxR";
/// Bytes before the payload.
pub const HEADER: usize = 16;

const CASTAGNOLI: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// CRC-32C of `bytes` (what the crc32c stage appends, too).
pub fn crc32c(bytes: &[u8]) -> u32 {
    CASTAGNOLI.checksum(bytes)
}

fn payload_byte(seed: u64, seq: u32, i: usize) -> u8 {
    (seed
        .wrapping_add(u64::from(seq).wrapping_mul(31))
        .wrapping_add(i as u64 * 7) as u8)
        ^ (i >> 8) as u8
}

/// Writes record `seq` of a flow seeded `seed` filling all of `out`
/// (at least [`HEADER`] bytes); returns its length, or `None` if `out` is
/// too short.
pub fn write(out: &mut [u8], seed: u64, seq: u32) -> Option<usize> {
    let payload_len = out.len().checked_sub(HEADER)?;
    let (head, payload) = out.split_at_mut(HEADER);
    for (i, b) in payload.iter_mut().enumerate() {
        *b = payload_byte(seed, seq, i);
    }
    head[0..4].copy_from_slice(&MAGIC);
    head[4..8].copy_from_slice(&seq.to_le_bytes());
    head[8..12].copy_from_slice(&(payload_len as u32).to_le_bytes());
    head[12..16].copy_from_slice(&crc32c(payload).to_le_bytes());
    Some(out.len())
}

/// What a checker has seen so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Records whole and in order.
    pub good: u64,
    /// Records whose sequence number was already seen (or is behind).
    pub repeated: u64,
    /// Sequence numbers skipped over (lost records).
    pub missing: u64,
    /// Buffers that are not a record, or whose payload does not match
    /// its length, CRC or the seed's bytes.
    pub damaged: u64,
    /// Bytes of good records.
    pub bytes: u64,
}

/// Bits of each of missing, repeated and damaged when a tally travels in
/// the two figure words of a stage's STATS answer.
const TALLY_FIELD: u32 = 21;
const TALLY_MAX: u64 = (1 << TALLY_FIELD) - 1;

impl Tally {
    /// The two STATS figure words of a check sink: good records in the
    /// first; missing, repeated and damaged, 21 bits each, in the second
    /// (a count past 21 bits shows as the largest value, not wrapped).
    pub fn to_words(&self) -> [u64; 2] {
        let f = |v: u64| v.min(TALLY_MAX);
        [
            self.good,
            f(self.missing)
                | f(self.repeated) << TALLY_FIELD
                | f(self.damaged) << (2 * TALLY_FIELD),
        ]
    }

    /// `(good, missing, repeated, damaged)` from the two words.
    pub fn from_words(words: [u64; 2]) -> (u64, u64, u64, u64) {
        let w = words[1];
        (
            words[0],
            w & TALLY_MAX,
            w >> TALLY_FIELD & TALLY_MAX,
            w >> (2 * TALLY_FIELD) & TALLY_MAX,
        )
    }
}

/// Checks records as they arrive at the end of a flow.
#[derive(Clone, Copy, Debug)]
pub struct Checker {
    seed: u64,
    next: u32,
    pub tally: Tally,
}

impl Checker {
    /// A checker expecting record 0 first.
    pub fn new(seed: u64) -> Self {
        Self::from(seed, 0)
    }

    /// A checker expecting record `next` first, its tally empty: a check
    /// sink restarted mid-flow, whose earlier tally `flowmgr` keeps.
    pub fn from(seed: u64, next: u32) -> Self {
        Self {
            seed,
            next,
            tally: Tally::default(),
        }
    }

    /// Checks one buffer, which should hold exactly one record.
    pub fn check(&mut self, buf: &[u8]) {
        let Some(seq) = self.parse(buf) else {
            self.tally.damaged += 1;
            return;
        };
        if seq < self.next {
            self.tally.repeated += 1;
            return;
        }
        self.tally.missing += u64::from(seq - self.next);
        self.next = seq.wrapping_add(1);
        self.tally.good += 1;
        self.tally.bytes += buf.len() as u64;
    }

    /// The record's sequence number if `buf` is a whole, undamaged record.
    fn parse(&self, buf: &[u8]) -> Option<u32> {
        let (head, payload) = buf.split_at_checked(HEADER)?;
        let word = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
        let seq = word(4);
        let ok = head[0..4] == MAGIC
            && word(8) as usize == payload.len()
            && word(12) == crc32c(payload)
            && payload
                .iter()
                .enumerate()
                .all(|(i, &b)| b == payload_byte(self.seed, seq, i));
        ok.then_some(seq)
    }

    /// The sequence number expected next.
    pub fn next(&self) -> u32 {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_travels_in_two_words_and_saturates() {
        let t = Tally {
            good: 1 << 40,
            missing: 3,
            repeated: 5,
            damaged: 7,
            bytes: 0,
        };
        assert_eq!(Tally::from_words(t.to_words()), (1 << 40, 3, 5, 7));
        let big = Tally {
            missing: 1 << 30,
            ..t
        };
        assert_eq!(
            Tally::from_words(big.to_words()),
            (1 << 40, (1 << 21) - 1, 5, 7)
        );
    }

    #[test]
    fn a_checker_started_mid_flow_counts_from_there() {
        let mut c = Checker::from(5, 10);
        c.check(&rec(5, 9, 64));
        c.check(&rec(5, 10, 64));
        c.check(&rec(5, 12, 64));
        assert_eq!((c.tally.good, c.tally.repeated, c.tally.missing), (2, 1, 1));
        assert_eq!(c.next(), 13);
    }

    fn rec(seed: u64, seq: u32, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        write(&mut v, seed, seq).unwrap();
        v
    }

    #[test]
    fn in_order_records_are_good() {
        let mut c = Checker::new(5);
        for s in 0..100 {
            c.check(&rec(5, s, 64 + s as usize));
        }
        assert_eq!(c.tally.good, 100);
        assert_eq!(
            (c.tally.missing, c.tally.repeated, c.tally.damaged),
            (0, 0, 0)
        );
        assert_eq!(c.next(), 100);
    }

    #[test]
    fn loss_repetition_and_damage_are_each_counted() {
        let mut c = Checker::new(1);
        c.check(&rec(1, 0, 64));
        c.check(&rec(1, 3, 64)); // 1 and 2 lost
        c.check(&rec(1, 3, 64)); // repeated
        c.check(&rec(1, 2, 64)); // late: counted as repeated, not reordered into place
        let mut bad = rec(1, 4, 64);
        bad[40] ^= 1;
        c.check(&bad);
        c.check(&rec(2, 4, 64)); // another flow's bytes
        c.check(&rec(1, 4, 64)[..63]); // cut short
        c.check(&[0; 10]);
        assert_eq!(
            c.tally,
            Tally {
                good: 2,
                repeated: 2,
                missing: 2,
                damaged: 4,
                bytes: 128
            }
        );
    }

    #[test]
    fn crc32c_is_castagnoli() {
        // The check value of CRC-32C.
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(write(&mut [0; 15], 0, 0), None);
        assert_eq!(write(&mut [0; 16], 0, 0), Some(16));
    }
}
