//! Conditions: comparisons, `!`, `&&` and `||`, into branches.
//!
//! A condition is never a value in a compound; [`Compiler::jump_if`]
//! emits the branches that jump to a label when it holds (or when it does
//! not), short-circuiting as Rust does. Comparisons are unsigned.

use syn::{BinOp, Expr, Lit, UnOp};

use super::Compiler;
use crate::error::err;
use crate::ir::{Cmp, Label, Op};

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
            Expr::Binary(b) => match (&b.op, comparison(&b.op)) {
                (_, Some(cmp)) => {
                    let mark = self.mark();
                    let a = self.operand(&b.left)?;
                    let c = self.operand(&b.right)?;
                    let cmp = if when { cmp } else { cmp.negate() };
                    self.push(Op::Branch(cmp, a, c, to));
                    self.release(mark);
                    Ok(())
                }
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

fn not_a_condition(cond: &Expr) -> syn::Error {
    err(
        cond,
        "a condition must be a comparison",
        "compare the value, e.g. `x != 0`; combine comparisons with `&&`, `||` and `!`",
    )
}
