//! The server's state and its operations. The same methods serve a
//! request (`ADD`) and an `add` inside a compound, where the executor
//! calls them through [`Service`].

use cosy_abi::{Args, CallError, OpTable, Service};

// This app's own protocol (apps/totals/protocol).
use totals_protocol::{self as protocol, Error};

/// The total every client adds to.
#[derive(Default)]
pub struct Total(u64);

impl Total {
    /// Adds `amount`; the new total.
    pub fn add(&mut self, amount: u64) -> Result<u64, Error> {
        self.0 = self.0.checked_add(amount).ok_or(Error::Overflow)?;
        Ok(self.0)
    }

    pub fn get(&self) -> u64 {
        self.0
    }
}

impl Service for Total {
    fn ops(&self) -> OpTable<'_> {
        protocol::OPS
    }

    fn call(&mut self, opcode: u16, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        match opcode {
            protocol::OP_ADD => self
                .add(args.value(0))
                .map_err(|_| CallError::Service(protocol::OVERFLOW_CODE)),
            protocol::OP_GET => Ok(self.get()),
            _ => Err(CallError::UnknownOp { opcode }),
        }
    }
}
