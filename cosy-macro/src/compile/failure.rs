//! Testing an op's result for failure: `is_err(x)`, `is_ok(x)` and
//! `is_err(x, NAME)`.
//!
//! A failed op leaves its code negated in its destination (cosy-abi §8),
//! so it is negative as an `i64` and a successful result is not (no
//! operation returns values of 2^63 or more). `is_err(x)` is therefore
//! the signed branch `x < 0`, and `is_err(x, NOT_FOUND)` the equality
//! with that code negated. A name is the service's error, a `u16`
//! constant in the `errors` module beside the op table
//! (`fs_protocol::ops::errors::NOT_FOUND`), unless it is one of the
//! executor's own ([`EXECUTOR_ERRORS`]), which every compound can meet.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, ExprCall};

use super::value::imm;
use super::Compiler;
use crate::error::err;
use crate::ir::{Cmp, Label, Op, Operand};

/// The executor's failures an op can leave in a register, by their names
/// in `cosy_abi::code`.
const EXECUTOR_ERRORS: &[&str] = &[
    "DIVIDE_BY_ZERO",
    "REF_OUT_OF_BOUNDS",
    "COUNT_TOO_LARGE",
    "NOT_A_BUFFER",
    "UNKNOWN_SERVICE_OP_AT_RUN",
    "SERVICE_BAD_ERROR",
];

/// Whether `name` is one of the failure tests.
pub(super) fn is_test(name: &str) -> bool {
    name == "is_err" || name == "is_ok"
}

impl Compiler {
    /// Jumps to `to` if the test `c` (`is_err(..)` / `is_ok(..)`) is `when`.
    pub(super) fn jump_if_test(
        &mut self,
        c: &ExprCall,
        name: &str,
        when: bool,
        to: Label,
    ) -> syn::Result<()> {
        let args: Vec<&Expr> = c.args.iter().collect();
        let (value, code) = match (name, args.as_slice()) {
            (_, [value]) => (*value, None),
            ("is_err", [value, code]) => (*value, Some(*code)),
            _ => {
                return Err(err(
                    c,
                    format!("`{name}` takes the result to test"),
                    "write `is_err(x)` or `is_ok(x)`, or `is_err(x, NOT_FOUND)` for one error",
                ))
            }
        };
        let mark = self.mark();
        let x = self.operand(value)?;
        let (cmp, y) = match code {
            None if name == "is_err" => (Cmp::LtS, imm(0)),
            None => (Cmp::GeS, imm(0)),
            Some(code) => (Cmp::Eq, self.failure_value(code)?),
        };
        let cmp = if when { cmp } else { cmp.negate() };
        self.push(Op::Branch(cmp, x, y, to));
        self.release(mark);
        Ok(())
    }

    /// The value a register holds after an op failed with the error named
    /// `code`.
    fn failure_value(&self, code: &Expr) -> syn::Result<Operand> {
        let name = match code {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
            _ => None,
        };
        let Some(name) = name.filter(|n| is_upper_snake(&n.to_string())) else {
            return Err(err(
                code,
                "an error is named by its constant",
                "write the error's name in capitals, e.g. `is_err(fd, NOT_FOUND)`; the names \
                 are in the `errors` module beside the op table, and the executor's \
                 (`COUNT_TOO_LARGE`, ...)",
            ));
        };
        Ok(self.named_failure(name))
    }

    /// The value a register holds after an op failed with error `name`.
    pub(super) fn named_failure(&self, name: &syn::Ident) -> Operand {
        let code: TokenStream = if EXECUTOR_ERRORS.contains(&name.to_string().as_str()) {
            quote!(::cosy_abi::code::#name)
        } else {
            let module = &self.table_module;
            quote!(::cosy_abi::code::service(#module errors::#name))
        };
        Operand::Imm(quote!(::cosy_abi::code::failed(#code)))
    }
}

pub(super) fn is_upper_snake(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}
