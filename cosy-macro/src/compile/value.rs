//! Values: literals, the app's constants, variables, arithmetic and
//! calls, into a register or an operand.
//!
//! An expression is evaluated straight into its destination where it can
//! be (`x = x * A + B` is `MUL x, x, A; ADD x, x, B`), and into reused
//! temporaries otherwise. Arithmetic wraps, as the compound's ops do; an
//! expression that names no compound variable is ordinary Rust, evaluated
//! once when the compound is built, and becomes an immediate.

use proc_macro2::Literal;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

use super::{reject, span_of, Compiler};
use crate::error::err;
use crate::ir::{Op, Operand, Var};
use crate::scope::Binding;

/// The builder method of an arithmetic operator.
pub(super) fn arith_op(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "add",
        BinOp::Sub(_) => "sub",
        BinOp::Mul(_) => "mul",
        BinOp::Div(_) => "div",
        BinOp::Rem(_) => "rem",
        BinOp::BitAnd(_) => "and",
        BinOp::BitOr(_) => "or",
        BinOp::BitXor(_) => "xor",
        BinOp::Shl(_) => "shl",
        BinOp::Shr(_) => "shr",
        _ => return None,
    })
}

/// The builder method of a compound assignment (`+=` -> `add`).
pub(super) fn assign_op(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::AddAssign(_) => "add",
        BinOp::SubAssign(_) => "sub",
        BinOp::MulAssign(_) => "mul",
        BinOp::DivAssign(_) => "div",
        BinOp::RemAssign(_) => "rem",
        BinOp::BitAndAssign(_) => "and",
        BinOp::BitOrAssign(_) => "or",
        BinOp::BitXorAssign(_) => "xor",
        BinOp::ShlAssign(_) => "shl",
        BinOp::ShrAssign(_) => "shr",
        _ => return None,
    })
}

/// A `u64` literal's tokens.
pub(super) fn imm(value: u64) -> Operand {
    let lit = Literal::u64_suffixed(value);
    Operand::Imm(quote!(#lit))
}

impl Compiler {
    /// `e` as an operand without any op, if it is that simple: a literal,
    /// a variable, or an expression of the app's.
    pub(super) fn simple(&self, e: &Expr) -> syn::Result<Option<Operand>> {
        match e {
            Expr::Lit(l) => literal(&l.lit).map(Some),
            Expr::Paren(p) => self.simple(&p.expr),
            Expr::Group(g) => self.simple(&g.expr),
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Int(i), ..
                }) => Ok(Some(imm(i.base10_parse::<u64>()?.wrapping_neg()))),
                _ => Ok(None),
            },
            _ if fold(e).is_some() => Ok(fold(e).map(imm)),
            _ => match self.scopes.lookup_expr(e) {
                Some(Binding::Value { var, .. }) => Ok(Some(Operand::Reg(var))),
                Some(Binding::Buf(_)) => Err(err(
                    e,
                    "a buffer isn't a value",
                    "pass it to an operation that takes a buffer, e.g. `read(fd, buffer, len)`",
                )),
                None if self.scopes.is_app_expr(e) => Ok(Some(app_value(e))),
                None => Ok(None),
            },
        }
    }

    /// `e` as an operand, computed into a temporary if needed (released
    /// with the statement).
    pub(super) fn operand(&mut self, e: &Expr) -> syn::Result<Operand> {
        if let Some(op) = self.simple(e)? {
            return Ok(op);
        }
        let t = self.temp(span_of(e));
        self.value_into(e, t)?;
        Ok(Operand::Reg(t))
    }

    /// Computes `e` into `dst`.
    pub(super) fn value_into(&mut self, e: &Expr, dst: Var) -> syn::Result<()> {
        if let Some(op) = self.simple(e)? {
            self.push(Op::Mov(dst, op));
            return Ok(());
        }
        match e {
            Expr::Binary(b) => match arith_op(&b.op) {
                Some(method) => self.binary_into(method, &b.left, &b.right, dst),
                None => Err(reject(e)),
            },
            Expr::Unary(u) => match u.op {
                UnOp::Not(_) => {
                    let a = self.operand(&u.expr)?;
                    let b = imm(u64::MAX);
                    self.push(Op::Alu {
                        method: "xor",
                        dst,
                        a,
                        b,
                    });
                    Ok(())
                }
                // As in Rust, a u64 can't be negated (a literal can: its
                // two's complement, see `simple`).
                UnOp::Neg(_) => Err(err(
                    e,
                    "compound values are u64, which can't be negated",
                    "subtract instead (`0 - x` wraps, as every compound op does)",
                )),
                _ => Err(reject(e)),
            },
            Expr::Call(c) => self.call(c, Some(dst)),
            Expr::Paren(p) => self.value_into(&p.expr, dst),
            Expr::Group(g) => self.value_into(&g.expr, dst),
            _ => Err(reject(e)),
        }
    }

    /// `dst = a <method> b`. `a` goes straight into `dst` unless `b`
    /// still needs the old value of `dst`.
    pub(super) fn binary_into(
        &mut self,
        method: &'static str,
        a: &Expr,
        b: &Expr,
        dst: Var,
    ) -> syn::Result<()> {
        let a = match self.simple(a)? {
            Some(op) => op,
            None if !self.reads(b, dst) => {
                self.value_into(a, dst)?;
                Operand::Reg(dst)
            }
            None => self.operand(a)?,
        };
        let b = self.operand(b)?;
        self.push(Op::Alu { method, dst, a, b });
        Ok(())
    }

    /// Whether `e` reads register `var`.
    fn reads(&self, e: &Expr, var: Var) -> bool {
        let mut reads = false;
        crate::scope::for_each_name(e, &mut |name| {
            if let Some(Binding::Value { var: v, .. }) = self.scopes.lookup(name) {
                reads |= v == var;
            }
        });
        reads
    }
}

/// The value of arithmetic on integer literals alone (`1 << 40`),
/// computed here with the compound's wrapping `u64` ops: as Rust code it
/// would be typed `i32` and overflow.
pub(super) fn fold(e: &Expr) -> Option<u64> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse().ok(),
        Expr::Paren(p) => fold(&p.expr),
        Expr::Group(g) => fold(&g.expr),
        Expr::Unary(u) => match u.op {
            UnOp::Not(_) => fold(&u.expr).map(|v| !v),
            UnOp::Neg(_) => fold(&u.expr).map(u64::wrapping_neg),
            _ => None,
        },
        Expr::Binary(b) => {
            let (x, y) = (fold(&b.left)?, fold(&b.right)?);
            let shift = |y: u64| u32::try_from(y).ok().filter(|&s| s < 64);
            match b.op {
                BinOp::Add(_) => Some(x.wrapping_add(y)),
                BinOp::Sub(_) => Some(x.wrapping_sub(y)),
                BinOp::Mul(_) => Some(x.wrapping_mul(y)),
                // Division by zero is left to the op, which reports it.
                BinOp::Div(_) => x.checked_div(y),
                BinOp::Rem(_) => x.checked_rem(y),
                BinOp::BitAnd(_) => Some(x & y),
                BinOp::BitOr(_) => Some(x | y),
                BinOp::BitXor(_) => Some(x ^ y),
                BinOp::Shl(_) => Some(shift(y).map_or(0, |s| x << s)),
                BinOp::Shr(_) => Some(shift(y).map_or(0, |s| x >> s)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// An expression of the app's, as an immediate.
fn app_value(e: &Expr) -> Operand {
    let span = e.span();
    let tokens = e.to_token_stream();
    Operand::Imm(quote_spanned!(span=> ::cosy_abi::Operand::from(#tokens)))
}

fn literal(lit: &Lit) -> syn::Result<Operand> {
    match lit {
        Lit::Int(i) => Ok(imm(i.base10_parse::<u64>()?)),
        Lit::Byte(b) => Ok(imm(u64::from(b.value()))),
        Lit::Bool(_) => Err(err(
            lit,
            "booleans aren't compound values",
            "use 1 and 0, and compare (`x != 0`) in conditions",
        )),
        _ => Err(err(
            lit,
            "compound values are integers",
            "use an integer literal; put text in a buffer before the run",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::fold;

    fn folded(src: &str) -> Option<u64> {
        fold(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn literal_arithmetic_folds_as_wrapping_u64() {
        assert_eq!(folded("1 << 40"), Some(1 << 40));
        assert_eq!(folded("(2 + 3) * 4 - 1"), Some(19));
        assert_eq!(folded("0 - 1"), Some(u64::MAX));
        assert_eq!(folded("!0 >> 63"), Some(1));
        assert_eq!(folded("-1"), Some(u64::MAX));
        assert_eq!(folded("1 << 64"), Some(0));
        assert_eq!(folded("18446744073709551615 * 2"), Some(u64::MAX - 1));
    }

    #[test]
    fn anything_else_is_not_folded() {
        // Left to Rust (a division by zero) or to the compound (a name).
        assert_eq!(folded("1 / 0"), None);
        assert_eq!(folded("x + 1"), None);
        assert_eq!(folded("LEN * 2"), None);
        assert_eq!(folded("1 < 2"), None);
    }
}
