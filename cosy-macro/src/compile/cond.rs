//! Conditions: comparisons, `!`, `&&` and `||`, into branches.
//!
//! A condition is never a value in a compound; [`Compiler::jump_if`]
//! emits the branches that jump to a label when it holds (or when it does
//! not), short-circuiting as Rust does. Comparisons are unsigned, as
//! compound values are `u64`; a side cast `as i64` makes one signed, and
//! `is_err(x)` / `is_ok(x)` ([`failure`](super::failure)) test an op's
//! result. An unsigned comparison with 0 that cannot change its answer
//! (`x >= 0`) is an error: it is what someone testing a result for
//! failure writes, and it would never see one.

use quote::ToTokens;
use syn::{BinOp, Expr, ExprBinary, Lit, Type, UnOp};

use super::{failure, value, Compiler};
use crate::error::err;
use crate::ir::{Cmp, Label, Op};
use crate::scope::bare_name;

fn comparison(op: &BinOp) -> Option<Cmp> {
    Some(match op {
        BinOp::Eq(_) => Cmp::Eq,
        BinOp::Ne(_) => Cmp::Ne,
        BinOp::Lt(_) => Cmp::LtU,
        BinOp::Le(_) => Cmp::LeU,
        BinOp::Gt(_) => Cmp::GtU,
        BinOp::Ge(_) => Cmp::GeU,
        _ => return None,
    })
}

impl Compiler {
    /// Jumps to `to` if `cond` is `when` (true or false); falls through
    /// otherwise.
    pub(super) fn jump_if(&mut self, cond: &Expr, when: bool, to: Label) -> syn::Result<()> {
        match cond {
            Expr::Paren(p) => self.jump_if(&p.expr, when, to),
            Expr::Group(g) => self.jump_if(&g.expr, when, to),
            Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => self.jump_if(&u.expr, !when, to),
            Expr::Lit(l) if matches!(l.lit, Lit::Bool(_)) => {
                if matches!(&l.lit, Lit::Bool(b) if b.value == when) {
                    self.push(Op::Jump(to));
                }
                Ok(())
            }
            Expr::Call(c) => match bare_name(&c.func).map(|n| n.to_string()) {
                Some(name) if failure::is_test(&name) => self.jump_if_test(c, &name, when, to),
                _ => Err(not_a_condition(cond)),
            },
            Expr::Binary(b) => match (&b.op, comparison(&b.op)) {
                (_, Some(cmp)) => self.compare(b, cmp, when, to),
                // `a && b` is false if either is; `a || b` true if either is.
                (BinOp::And(_), None) => self.short_circuit(&b.left, &b.right, false, when, to),
                (BinOp::Or(_), None) => self.short_circuit(&b.left, &b.right, true, when, to),
                _ => Err(not_a_condition(cond)),
            },
            Expr::Let(l) => Err(err(
                l,
                "`if let` and `while let` aren't supported",
                "compare integers instead, e.g. `if x == 0`",
            )),
            _ => Err(not_a_condition(cond)),
        }
    }

    /// `a cmp b`: signed if a side is cast `as i64`.
    fn compare(&mut self, b: &ExprBinary, cmp: Cmp, when: bool, to: Label) -> syn::Result<()> {
        let (left, left_signed) = uncast(&b.left)?;
        let (right, right_signed) = uncast(&b.right)?;
        let cmp = if left_signed || right_signed {
            cmp.signed()
        } else {
            check_not_constant(b, cmp)?;
            cmp
        };
        let mark = self.mark();
        let a = self.operand(left)?;
        let c = self.operand(right)?;
        let cmp = if when { cmp } else { cmp.negate() };
        self.push(Op::Branch(cmp, a, c, to));
        self.release(mark);
        Ok(())
    }

    /// `a op b` where the whole is `decisive` as soon as one side is
    /// (`||`: true, `&&`: false).
    fn short_circuit(
        &mut self,
        a: &Expr,
        b: &Expr,
        decisive: bool,
        when: bool,
        to: Label,
    ) -> syn::Result<()> {
        if when == decisive {
            self.jump_if(a, when, to)?;
            self.jump_if(b, when, to)
        } else {
            let skip = self.new_label();
            self.jump_if(a, decisive, skip)?;
            self.jump_if(b, when, to)?;
            self.push(Op::Bind(skip));
            Ok(())
        }
    }
}

/// `e` without an `as i64` (signed) or `as u64` (no change) around it,
/// and whether it was signed.
fn uncast(e: &Expr) -> syn::Result<(&Expr, bool)> {
    match e {
        Expr::Paren(p) => uncast(&p.expr),
        Expr::Group(g) => uncast(&g.expr),
        Expr::Cast(c) => match &*c.ty {
            Type::Path(t) if t.qself.is_none() && t.path.is_ident("i64") => Ok((&c.expr, true)),
            Type::Path(t) if t.qself.is_none() && t.path.is_ident("u64") => Ok((&c.expr, false)),
            _ => Err(err(
                &c.ty,
                "a comparison casts only to `i64` (signed) or `u64` (unsigned, the default)",
                "write `(x as i64) < 0` to compare as two's-complement, or `is_err(x)` to test an \
                 op's result",
            )),
        },
        _ => Ok((e, false)),
    }
}

/// Refuses an unsigned comparison with 0 whose answer is fixed:
/// `x >= 0` and `0 <= x` always hold, `x < 0` and `0 > x` never do.
fn check_not_constant(b: &ExprBinary, cmp: Cmp) -> syn::Result<()> {
    let zero = |e: &Expr| value::fold(e) == Some(0);
    let always = match (zero(&b.left), cmp, zero(&b.right)) {
        (false, Cmp::GeU, true) | (true, Cmp::LeU, false) => "true",
        (false, Cmp::LtU, true) | (true, Cmp::GtU, false) => "false",
        _ => return Ok(()),
    };
    let (x, zero_on_right) = if zero(&b.right) {
        (&b.left, true)
    } else {
        (&b.right, false)
    };
    let x = x.to_token_stream().to_string();
    let (test, signed) = match (always, zero_on_right) {
        ("true", true) => (format!("is_ok({x})"), format!("({x} as i64) >= 0")),
        ("true", false) => (format!("is_ok({x})"), format!("0 <= ({x} as i64)")),
        (_, true) => (format!("is_err({x})"), format!("({x} as i64) < 0")),
        (_, false) => (format!("is_err({x})"), format!("0 > ({x} as i64)")),
    };
    Err(err(
        b,
        format!(
            "this comparison is always {always}: compound values are u64 and compare unsigned, \
             so nothing is below 0 (a failed op's result is its negated code, a large u64)"
        ),
        format!(
            "to test whether an op failed write `{test}`; to compare as a signed number write \
             `{signed}`"
        ),
    ))
}

fn not_a_condition(cond: &Expr) -> syn::Error {
    err(
        cond,
        "a condition must be a comparison",
        "compare the value, e.g. `x != 0`; combine comparisons with `&&`, `||` and `!`",
    )
}
