//! Op codes, comparisons and operand kinds: the small closed enums of the
//! wire format (spec §4 and §6), each with a checked conversion from the
//! raw byte so no other code interprets raw numbers.

use core::fmt;

/// What an op does (spec §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Opcode {
    /// Call the service.
    Call = 0x01,
    /// Stop with an exit value.
    Exit = 0x02,
    /// Copy a value into a register.
    Mov = 0x03,
    /// Wrapping add.
    Add = 0x10,
    /// Wrapping subtract.
    Sub = 0x11,
    /// Wrapping multiply.
    Mul = 0x12,
    /// Unsigned divide.
    Div = 0x13,
    /// Unsigned remainder.
    Rem = 0x14,
    /// Bitwise and.
    And = 0x15,
    /// Bitwise or.
    Or = 0x16,
    /// Bitwise exclusive or.
    Xor = 0x17,
    /// Shift left.
    Shl = 0x18,
    /// Logical shift right.
    Shr = 0x19,
    /// Compare and branch.
    Br = 0x20,
    /// Unconditional jump.
    Jump = 0x21,
    /// Counted loop step: add, compare, branch back.
    Loop = 0x22,
    /// Jump table.
    Switch = 0x23,
    /// Copy bytes between buffers.
    Copy = 0x30,
    /// Fill a buffer with a byte.
    Fill = 0x31,
    /// Compare two buffers.
    Memcmp = 0x32,
    /// Count occurrences of a byte string.
    Search = 0x33,
    /// CRC-32C of a buffer.
    Crc32c = 0x34,
}

impl Opcode {
    /// Every op code, in code order (for tests and generators).
    pub const ALL: [Opcode; 22] = [
        Opcode::Call,
        Opcode::Exit,
        Opcode::Mov,
        Opcode::Add,
        Opcode::Sub,
        Opcode::Mul,
        Opcode::Div,
        Opcode::Rem,
        Opcode::And,
        Opcode::Or,
        Opcode::Xor,
        Opcode::Shl,
        Opcode::Shr,
        Opcode::Br,
        Opcode::Jump,
        Opcode::Loop,
        Opcode::Switch,
        Opcode::Copy,
        Opcode::Fill,
        Opcode::Memcmp,
        Opcode::Search,
        Opcode::Crc32c,
    ];

    /// Decodes a raw code byte.
    #[inline]
    pub fn from_u8(code: u8) -> Option<Opcode> {
        Some(match code {
            0x01 => Opcode::Call,
            0x02 => Opcode::Exit,
            0x03 => Opcode::Mov,
            0x10 => Opcode::Add,
            0x11 => Opcode::Sub,
            0x12 => Opcode::Mul,
            0x13 => Opcode::Div,
            0x14 => Opcode::Rem,
            0x15 => Opcode::And,
            0x16 => Opcode::Or,
            0x17 => Opcode::Xor,
            0x18 => Opcode::Shl,
            0x19 => Opcode::Shr,
            0x20 => Opcode::Br,
            0x21 => Opcode::Jump,
            0x22 => Opcode::Loop,
            0x23 => Opcode::Switch,
            0x30 => Opcode::Copy,
            0x31 => Opcode::Fill,
            0x32 => Opcode::Memcmp,
            0x33 => Opcode::Search,
            0x34 => Opcode::Crc32c,
            _ => return None,
        })
    }

    /// The spec's name for the op, as used in error messages.
    pub fn name(self) -> &'static str {
        match self {
            Opcode::Call => "call",
            Opcode::Exit => "exit",
            Opcode::Mov => "mov",
            Opcode::Add => "add",
            Opcode::Sub => "sub",
            Opcode::Mul => "mul",
            Opcode::Div => "div",
            Opcode::Rem => "rem",
            Opcode::And => "and",
            Opcode::Or => "or",
            Opcode::Xor => "xor",
            Opcode::Shl => "shl",
            Opcode::Shr => "shr",
            Opcode::Br => "br",
            Opcode::Jump => "jump",
            Opcode::Loop => "loop",
            Opcode::Switch => "switch",
            Opcode::Copy => "copy",
            Opcode::Fill => "fill",
            Opcode::Memcmp => "memcmp",
            Opcode::Search => "search",
            Opcode::Crc32c => "crc32c",
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A comparison for `BR` and `LOOP` (spec §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Cmp {
    /// `a == b`
    Eq = 0,
    /// `a != b`
    Ne = 1,
    /// `a < b`, unsigned
    LtU = 2,
    /// `a <= b`, unsigned
    LeU = 3,
    /// `a > b`, unsigned
    GtU = 4,
    /// `a >= b`, unsigned
    GeU = 5,
    /// `a < b`, signed
    LtS = 6,
    /// `a <= b`, signed
    LeS = 7,
    /// `a > b`, signed
    GtS = 8,
    /// `a >= b`, signed
    GeS = 9,
}

impl Cmp {
    /// Every comparison, in code order.
    pub const ALL: [Cmp; 10] = [
        Cmp::Eq,
        Cmp::Ne,
        Cmp::LtU,
        Cmp::LeU,
        Cmp::GtU,
        Cmp::GeU,
        Cmp::LtS,
        Cmp::LeS,
        Cmp::GtS,
        Cmp::GeS,
    ];

    /// Decodes a raw `sub` field.
    #[inline]
    pub fn from_u16(raw: u16) -> Option<Cmp> {
        Cmp::ALL.get(usize::from(raw)).copied()
    }

    /// Whether the comparison holds for `a` and `b`.
    #[inline]
    pub fn holds(self, a: u64, b: u64) -> bool {
        // Signed variants reinterpret the bits; that is the point of them.
        let (sa, sb) = (a as i64, b as i64);
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::LtU => a < b,
            Cmp::LeU => a <= b,
            Cmp::GtU => a > b,
            Cmp::GeU => a >= b,
            Cmp::LtS => sa < sb,
            Cmp::LeS => sa <= sb,
            Cmp::GtS => sa > sb,
            Cmp::GeS => sa >= sb,
        }
    }

    /// The comparison that holds exactly when this one does not.
    pub fn negate(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::LtU => Cmp::GeU,
            Cmp::LeU => Cmp::GtU,
            Cmp::GtU => Cmp::LeU,
            Cmp::GeU => Cmp::LtU,
            Cmp::LtS => Cmp::GeS,
            Cmp::LeS => Cmp::GtS,
            Cmp::GtS => Cmp::LeS,
            Cmp::GeS => Cmp::LtS,
        }
    }
}

/// The kind of an operand slot (spec §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Kind {
    /// Unused slot.
    #[default]
    None = 0,
    /// The slot holds the value.
    Imm = 1,
    /// The slot holds a register number.
    Reg = 2,
    /// The slot holds a buffer-ref index.
    Ref = 3,
}

impl Kind {
    /// Decodes two bits.
    #[inline]
    pub fn from_bits(bits: u16) -> Kind {
        match bits & 3 {
            0 => Kind::None,
            1 => Kind::Imm,
            2 => Kind::Reg,
            _ => Kind::Ref,
        }
    }

    /// How error messages name the kind.
    pub fn name(self) -> &'static str {
        match self {
            Kind::None => "missing",
            Kind::Imm => "an immediate",
            Kind::Reg => "a register",
            Kind::Ref => "a buffer ref",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_round_trips_and_rejects_unknown() {
        for op in Opcode::ALL {
            assert_eq!(Opcode::from_u8(op as u8), Some(op));
        }
        assert_eq!(Opcode::from_u8(0), None);
        assert_eq!(Opcode::from_u8(0x35), None);
    }

    #[test]
    fn comparisons_signed_and_unsigned_differ() {
        let minus_one = u64::MAX;
        assert!(Cmp::GtU.holds(minus_one, 0));
        assert!(Cmp::LtS.holds(minus_one, 0));
        for cmp in Cmp::ALL {
            assert_eq!(Cmp::from_u16(cmp as u16), Some(cmp));
            for (a, b) in [(0, 0), (1, 2), (2, 1), (minus_one, 1)] {
                assert_ne!(cmp.holds(a, b), cmp.negate().holds(a, b));
            }
        }
        assert_eq!(Cmp::from_u16(10), None);
    }
}
