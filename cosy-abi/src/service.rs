//! The `Service` trait a server implements, and the op table that tells
//! the verifier which operations exist and what they take.
//!
//! A server describes its operations once, as a static `OpTable`; the
//! verifier checks every `CALL` against it, and the executor calls
//! `Service::call` with an `Args` whose buffers are bounds-checked slices
//! of the client's regions. The service never sees an address.

use core::fmt;

use crate::args::Args;
use crate::code;

/// What one service operand must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// An immediate or a register.
    Value,
    /// A buffer ref (a slice of a client region).
    Buf,
}

/// Declares a server's operation numbers and its op table in one list,
/// so the two cannot drift apart: `NAME = number, "name", [operand
/// kinds];` per operation, in number order. It defines a `pub const NAME:
/// u16` per operation, `SPECS` (the table, indexed by number) and `ALL`
/// (every number, in order). The operand kinds are names of [`ArgKind`]
/// constants in scope where the macro is used.
#[macro_export]
macro_rules! operations {
    ($( $(#[$doc:meta])* $name:ident = $n:literal, $text:literal, [$($arg:ident),*]; )*) => {
        $( $(#[$doc])* pub const $name: u16 = $n; )*
        /// Every operation's name and operands, indexed by number.
        pub const SPECS: &[$crate::OpSpec] = &[ $( $crate::OpSpec::new($text, &[$($arg),*]), )* ];
        /// Every operation number, in order (for tests and tools).
        pub const ALL: &[u16] = &[ $( $n, )* ];
    };
}

/// Declares a service's error codes, their numbers and their messages in
/// one list: `Name (NAME) = number, "message";` per code, under the
/// enum's name. It defines the enum (`repr(u16)`), `ALL`, `from_code`,
/// `code`, `message`, `Display` (the message) and the conversion into
/// [`CallError::Service`], so a service's call can fail with `?`; and a
/// module `codes` with a `pub const NAME: u16` per code, which the op
/// table's module re-exports as `errors` for `cosy!`'s
/// `is_err(x, NAME)`.
#[macro_export]
macro_rules! service_errors {
    ($(#[$meta:meta])* $enum:ident {
        $( $(#[$doc:meta])* $name:ident ($upper:ident) = $n:literal, $text:literal; )*
    }) => {
        /// The codes as constants, named as `cosy!` names them
        /// (`is_err(fd, NOT_FOUND)`); a failed op's register holds
        /// `cosy_abi::code::failed(cosy_abi::code::service(code))`.
        pub mod codes {
            $( $(#[$doc])* pub const $upper: u16 = $n; )*
        }

        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum $enum { $( $(#[$doc])* $name = $n, )* }

        impl $enum {
            /// Every code, in declaration order.
            pub const ALL: &'static [$enum] = &[ $( $enum::$name, )* ];

            /// The code with this number, if there is one.
            pub fn from_code(code: u16) -> Option<$enum> {
                match code { $( $n => Some($enum::$name), )* _ => None }
            }

            /// The number on the wire.
            pub fn code(self) -> u16 {
                self as u16
            }

            /// What it means, for a person.
            pub fn message(self) -> &'static str {
                match self { $( $enum::$name => $text, )* }
            }
        }

        impl core::fmt::Display for $enum {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.message())
            }
        }

        impl $crate::typed::ServiceError for $enum {
            fn from_code(code: u16) -> Option<Self> {
                $enum::from_code(code)
            }
        }

        impl From<$enum> for $crate::CallError {
            fn from(e: $enum) -> Self {
                $crate::CallError::Service(e.code())
            }
        }
    };
}

/// One operation of a service: its name (for error messages) and its
/// operands, at most six.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpSpec {
    /// Name, e.g. `"read"`.
    pub name: &'static str,
    /// Operand kinds, in order.
    pub args: &'static [ArgKind],
}

impl OpSpec {
    /// Describes an operation.
    pub const fn new(name: &'static str, args: &'static [ArgKind]) -> Self {
        OpSpec { name, args }
    }

    /// Whether the operation has a buffer operand, the only way it can
    /// reach a client's regions: a server may skip gathering the regions
    /// for one that has none.
    #[inline]
    pub fn takes_buffers(&self) -> bool {
        self.args.iter().any(|k| matches!(k, ArgKind::Buf))
    }
}

/// A service's operations, indexed by opcode (the `sub` of a `CALL`).
#[derive(Clone, Copy, Debug)]
pub struct OpTable<'a> {
    name: &'static str,
    specs: &'a [OpSpec],
}

impl<'a> OpTable<'a> {
    /// A table whose opcode `i` is `specs[i]`. `name` names the service in
    /// error messages.
    pub const fn new(name: &'static str, specs: &'a [OpSpec]) -> Self {
        OpTable { name, specs }
    }

    /// The service's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The operation with this opcode.
    pub fn get(&self, opcode: u16) -> Option<&'a OpSpec> {
        self.specs.get(usize::from(opcode))
    }

    /// Whether a call of `opcode` with operands of these kinds fits the
    /// table. A `const fn`, so the `cosy!` macro can check every call it
    /// compiles while the app is being compiled, not when the server
    /// verifies the compound.
    pub const fn check_call(&self, opcode: u16, kinds: &[ArgKind]) -> CallShape {
        let index = opcode as usize;
        if index >= self.specs.len() {
            return CallShape::UnknownOp;
        }
        let wanted = self.specs[index].args;
        if wanted.len() != kinds.len() {
            return CallShape::Arity {
                expected: wanted.len(),
            };
        }
        let mut operand = 0;
        while operand < kinds.len() {
            let same = matches!(
                (wanted[operand], kinds[operand]),
                (ArgKind::Value, ArgKind::Value) | (ArgKind::Buf, ArgKind::Buf)
            );
            if !same {
                return CallShape::Kind { operand };
            }
            operand += 1;
        }
        CallShape::Fits
    }
}

/// How a call's operands compare with its operation's spec; see
/// [`OpTable::check_call`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallShape {
    /// The call fits.
    Fits,
    /// The table has no operation with this opcode.
    UnknownOp,
    /// The operation takes `expected` operands, not as many as given.
    Arity {
        /// Operands the operation takes.
        expected: usize,
    },
    /// Operand `operand` is a value where the operation takes a buffer,
    /// or the reverse.
    Kind {
        /// The first mismatching operand.
        operand: usize,
    },
}

/// Why a service call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallError {
    /// The service asked for a buffer at an operand that holds a value.
    NotABuffer {
        /// Operand index.
        operand: usize,
    },
    /// A buffer the service built (see [`Args::with_buf`]) does not fit.
    OutOfBounds,
    /// The service has no operation with this opcode (the compound was
    /// verified against another table).
    UnknownOp {
        /// The opcode.
        opcode: u16,
    },
    /// A service-defined error, 1..=0x7FFF (e.g. an errno). Any other
    /// value is a service bug and is reported as
    /// [`code::SERVICE_BAD_ERROR`].
    Service(u16),
}

impl CallError {
    /// The wire code (spec §10).
    pub fn code(&self) -> u16 {
        match self {
            CallError::NotABuffer { .. } => code::NOT_A_BUFFER,
            CallError::OutOfBounds => code::REF_OUT_OF_BOUNDS,
            CallError::UnknownOp { .. } => code::UNKNOWN_SERVICE_OP_AT_RUN,
            // Masking would turn 0x8001 into error 1 and 0 into a code
            // outside the range; both must still read as a failure.
            CallError::Service(c @ 1..=0x7FFF) => code::SERVICE | c,
            CallError::Service(_) => code::SERVICE_BAD_ERROR,
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::NotABuffer { operand } => {
                write!(
                    f,
                    "the service wanted a buffer at operand {operand}, which holds a value"
                )
            }
            CallError::OutOfBounds => f.write_str("buffer outside its region"),
            CallError::UnknownOp { opcode } => write!(f, "the service has no opcode {opcode}"),
            CallError::Service(c @ 1..=0x7FFF) => write!(f, "service error {c}"),
            CallError::Service(c) => write!(
                f,
                "service error {c}, outside the service range 1..=32767 (service bug)"
            ),
        }
    }
}

/// A server's operations, as the executor calls them.
pub trait Service {
    /// The op table compounds for this service are verified against.
    fn ops(&self) -> OpTable<'_>;

    /// Performs operation `opcode`. The operands were checked against the
    /// op table when the compound was verified, but a service must still
    /// handle a mismatch without panicking: the accessors of `Args` return
    /// errors rather than trusting it.
    fn call(&mut self, opcode: u16, args: &mut Args<'_, '_>) -> Result<u64, CallError>;

    /// The work a call to `opcode` did beyond its one step, in steps
    /// (a step's worth is [`crate::wire::BYTES_PER_STEP`] bytes moved),
    /// given its value (`None` if it failed). It ends a slice sooner
    /// ([`crate::Program::resume`]), so a server serves its other clients
    /// between one client's big reads and writes; it is not charged to
    /// the client's budget, so slicing never changes what a run does.
    fn work(&self, opcode: u16, value: Option<u64>) -> u32 {
        let _ = (opcode, value);
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_checked_against_the_table() {
        const V: ArgKind = ArgKind::Value;
        const B: ArgKind = ArgKind::Buf;
        const SPECS: [OpSpec; 2] = [OpSpec::new("nop", &[]), OpSpec::new("read", &[V, B, V])];
        const TABLE: OpTable<'static> = OpTable::new("t", &SPECS);
        // Usable where the macro uses it: in a constant.
        const FITS: CallShape = TABLE.check_call(1, &[V, B, V]);
        assert_eq!(FITS, CallShape::Fits);
        assert_eq!(TABLE.check_call(0, &[]), CallShape::Fits);
        assert!(!SPECS[0].takes_buffers() && SPECS[1].takes_buffers());
        assert_eq!(TABLE.check_call(2, &[]), CallShape::UnknownOp);
        assert_eq!(
            TABLE.check_call(1, &[V, B]),
            CallShape::Arity { expected: 3 }
        );
        assert_eq!(
            TABLE.check_call(1, &[V, V, V]),
            CallShape::Kind { operand: 1 }
        );
        assert_eq!(
            TABLE.check_call(1, &[B, B, V]),
            CallShape::Kind { operand: 0 }
        );
    }

    #[test]
    fn service_codes_outside_the_range_are_their_own_status() {
        assert_eq!(CallError::Service(1).code(), 0x8001);
        assert_eq!(CallError::Service(0x7FFF).code(), 0xFFFF);
        for bad in [0, 0x8000, 0x8001, 0xFFFF] {
            let e = CallError::Service(bad);
            assert_eq!(e.code(), code::SERVICE_BAD_ERROR, "{bad:#x}");
        }
        assert_eq!(
            CallError::Service(0).to_string(),
            "service error 0, outside the service range 1..=32767 (service bug)"
        );
    }
}
