//! `if`/`else`, `loop`, `while`, `for i in a..b`, `break` and `continue`.
//!
//! Loops are laid out so each iteration costs one branch back: `while`
//! tests once on entry and again at the bottom; a `loop` whose last
//! statement is `if c { break; }` becomes a do-while (the papers' read
//! loop); `for` is Cosy's counted loop, one `MOV`, one entry check and a
//! single `LOOP` op per iteration, as `Builder::for_loop` writes it.

use syn::{
    Expr, ExprBreak, ExprContinue, ExprForLoop, ExprIf, ExprLoop, ExprWhile, Pat, RangeLimits, Stmt,
};

use super::value::imm;
use super::{span_of, Compiler, LoopCtx};
use crate::error::err;
use crate::ir::{Cmp, Label, Op, Operand};
use crate::scope::Binding;

impl Compiler {
    pub(super) fn if_stmt(&mut self, i: &ExprIf) -> syn::Result<()> {
        // `if c { break; }` / `if c { continue; }`: one branch, no jump.
        if let Some(target) = self.lone_jump(i)? {
            return self.jump_if(&i.cond, true, target);
        }
        let end = self.new_label();
        let otherwise = match &i.else_branch {
            Some(_) => self.new_label(),
            None => end,
        };
        self.jump_if(&i.cond, false, otherwise)?;
        self.block(&i.then_branch)?;
        if let Some((_, else_branch)) = &i.else_branch {
            self.push(Op::Jump(end));
            self.push(Op::Bind(otherwise));
            match &**else_branch {
                Expr::If(nested) => self.if_stmt(nested)?,
                Expr::Block(b) => self.block(&b.block)?,
                other => return Err(super::reject(other)),
            }
        }
        self.push(Op::Bind(end));
        Ok(())
    }

    /// Where `if c { break; }` or `if c { continue; }` (no `else`) jumps.
    fn lone_jump(&self, i: &ExprIf) -> syn::Result<Option<Label>> {
        if i.else_branch.is_some() || i.then_branch.stmts.len() != 1 {
            return Ok(None);
        }
        match &i.then_branch.stmts[0] {
            Stmt::Expr(Expr::Break(b), _) if b.expr.is_none() => {
                Ok(Some(self.target(b.label.as_ref(), b)?.brk))
            }
            Stmt::Expr(Expr::Continue(c), _) => Ok(Some(self.target(c.label.as_ref(), c)?.cont)),
            _ => Ok(None),
        }
    }

    /// Runs `body` as a loop's body with `break` / `continue` targets.
    fn in_loop_ctx<T>(
        &mut self,
        label: Option<&syn::Label>,
        brk: Label,
        cont: Label,
        body: impl FnOnce(&mut Self) -> syn::Result<T>,
    ) -> syn::Result<T> {
        let name = label.map(|l| l.name.ident.to_string());
        self.loops.push(LoopCtx { name, brk, cont });
        let result = body(self);
        self.loops.pop();
        result
    }

    pub(super) fn loop_loop(&mut self, l: &ExprLoop) -> syn::Result<()> {
        let (top, end) = (self.new_label(), self.new_label());
        let stmts = &l.body.stmts;
        let exit_test = stmts.last().and_then(|s| break_test(s, l.label.as_ref()));
        let cont = if exit_test.is_some() {
            self.new_label()
        } else {
            top
        };
        self.push(Op::Bind(top));
        self.in_loop_ctx(l.label.as_ref(), end, cont, |c| {
            c.scopes.push();
            let result = (|| {
                match exit_test {
                    // `loop { ..; if done { break; } }`: a do-while.
                    Some(done) => {
                        for s in &stmts[..stmts.len() - 1] {
                            c.stmt(s)?;
                        }
                        c.push(Op::Bind(cont));
                        c.jump_if(done, false, top)
                    }
                    None => {
                        stmts.iter().try_for_each(|s| c.stmt(s))?;
                        c.push(Op::Jump(top));
                        Ok(())
                    }
                }
            })();
            c.scopes.pop();
            result
        })?;
        self.push(Op::Bind(end));
        Ok(())
    }

    pub(super) fn while_loop(&mut self, w: &ExprWhile) -> syn::Result<()> {
        let (top, cont, end) = (self.new_label(), self.new_label(), self.new_label());
        self.jump_if(&w.cond, false, end)?;
        self.push(Op::Bind(top));
        self.in_loop_ctx(w.label.as_ref(), end, cont, |c| c.block(&w.body))?;
        self.push(Op::Bind(cont));
        self.jump_if(&w.cond, true, top)?;
        self.push(Op::Bind(end));
        Ok(())
    }

    pub(super) fn for_loop(&mut self, f: &ExprForLoop) -> syn::Result<()> {
        let name = match &*f.pat {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() && i.mutability.is_none() => {
                Some(&i.ident)
            }
            Pat::Wild(_) => None,
            other => {
                return Err(err(
                    other,
                    "a `for` binds one counter",
                    "write `for i in a..b` (the counter can't be `mut`; use `while` to change it)",
                ))
            }
        };
        let (range, step) = split_step(&f.expr)?;
        let Expr::Range(range) = range else {
            return Err(err(
                &f.expr,
                "`for` runs over a range of integers only",
                "write `for i in a..b`, `a..=b` or `(a..b).step_by(k)`; iterate over a buffer's \
                 records with a counter and `buf_at`",
            ));
        };
        let (Some(start), Some(end_expr)) = (&range.start, &range.end) else {
            return Err(err(
                range,
                "a `for` range needs both ends",
                "write `for i in a..b`; for an endless loop write `loop { ... }`",
            ));
        };
        let cmp = match range.limits {
            RangeLimits::HalfOpen(_) => Cmp::LtU,
            RangeLimits::Closed(_) => Cmp::LeU,
        };
        let mark = self.mark();
        let counter = self.new_var(span_of(&f.pat), false);
        self.value_into(start, counter)?;
        // The range is evaluated once, as in Rust: a limit or step the body
        // could change is copied first.
        let limit = self.fixed(end_expr)?;
        let step = match step {
            // Rust panics on it; the compound would loop to its budget.
            Some(step) if super::value::fold(step) == Some(0) => {
                return Err(err(
                    step,
                    "a step of 0 never ends the loop",
                    "step by 1 or more",
                ))
            }
            Some(step) => self.fixed(step)?,
            None => imm(1),
        };
        let (top, cont, end) = (self.new_label(), self.new_label(), self.new_label());
        self.push(Op::Branch(
            cmp.negate(),
            Operand::Reg(counter),
            limit.clone(),
            end,
        ));
        self.push(Op::Bind(top));
        self.in_loop_ctx(f.label.as_ref(), end, cont, |c| {
            c.scopes.push();
            if let Some(name) = name {
                let binding = Binding::Value {
                    var: counter,
                    mutable: false,
                    counter: true,
                };
                c.scopes.bind(name.to_string(), binding);
            }
            let result = f.body.stmts.iter().try_for_each(|s| c.stmt(s));
            c.scopes.pop();
            result
        })?;
        self.push(Op::Bind(cont));
        self.push(Op::LoopBack {
            counter,
            step,
            cmp,
            limit,
            to: top,
        });
        self.push(Op::Bind(end));
        self.release(mark);
        Ok(())
    }

    /// `e` as an operand that keeps its value through a loop: a constant,
    /// an immutable variable, or a temporary holding a copy.
    fn fixed(&mut self, e: &Expr) -> syn::Result<Operand> {
        match self.simple(e)? {
            Some(Operand::Reg(var)) if self.vars[var.0].mutable => {
                let t = self.temp(span_of(e));
                self.push(Op::Mov(t, Operand::Reg(var)));
                Ok(Operand::Reg(t))
            }
            Some(op) => Ok(op),
            None => self.operand(e),
        }
    }

    pub(super) fn break_stmt(&mut self, b: &ExprBreak) -> syn::Result<()> {
        if let Some(value) = &b.expr {
            return Err(err(
                value,
                "`break` can't carry a value",
                "assign a `let mut` variable before the `break`",
            ));
        }
        let target = self.target(b.label.as_ref(), b)?.brk;
        self.push(Op::Jump(target));
        Ok(())
    }

    pub(super) fn continue_stmt(&mut self, c: &ExprContinue) -> syn::Result<()> {
        let target = self.target(c.label.as_ref(), c)?.cont;
        self.push(Op::Jump(target));
        Ok(())
    }

    fn target(
        &self,
        label: Option<&syn::Lifetime>,
        at: impl quote::ToTokens,
    ) -> syn::Result<&LoopCtx> {
        let found = match label {
            None => self.loops.last(),
            Some(l) => {
                let name = l.ident.to_string();
                self.loops
                    .iter()
                    .rev()
                    .find(|c| c.name.as_deref() == Some(name.as_str()))
            }
        };
        found.ok_or_else(|| {
            err(
                at,
                "there is no such loop around this",
                "`break` and `continue` work inside `loop`, `while` and `for` (name an outer one \
                 with a label: `'outer: loop`)",
            )
        })
    }
}

/// `(a..b).step_by(k)` -> (`a..b`, `k`); anything else -> (it, none).
fn split_step(e: &Expr) -> syn::Result<(&Expr, Option<&Expr>)> {
    match e {
        Expr::Paren(p) => split_step(&p.expr),
        Expr::Group(g) => split_step(&g.expr),
        Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            Ok((strip(&m.receiver), m.args.first()))
        }
        Expr::MethodCall(m) => Err(err(
            m,
            format!("`.{}()` on a range isn't supported", m.method),
            "write `a..b`, `a..=b` or `(a..b).step_by(k)`; count down with a `while` loop",
        )),
        other => Ok((other, None)),
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// `if c { break; }` (leaving this loop) as a loop's last statement: `c`.
fn break_test<'a>(s: &'a Stmt, label: Option<&syn::Label>) -> Option<&'a Expr> {
    let Stmt::Expr(Expr::If(i), _) = s else {
        return None;
    };
    if i.else_branch.is_some() || i.then_branch.stmts.len() != 1 {
        return None;
    }
    let Stmt::Expr(Expr::Break(b), _) = &i.then_branch.stmts[0] else {
        return None;
    };
    let ours = match (&b.label, label) {
        (None, _) => true,
        (Some(l), Some(own)) => l.ident == own.name.ident,
        (Some(_), None) => false,
    };
    (ours && b.expr.is_none() && !matches!(&*i.cond, Expr::Let(_))).then_some(&*i.cond)
}
