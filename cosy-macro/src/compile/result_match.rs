//! `match` on an op's result: `Ok(v)`, `Err(NOT_FOUND)`, `Err(A | B)`,
//! `Err(_)` and `_` arms, tested in order as a chain of branches.
//!
//! A failed op leaves its code negated (cosy-abi §8), so `Ok(..)` is a
//! signed test against 0 and `Err(NAME)` an equality with the named
//! code negated (names as in `is_err(x, NAME)`). `Ok(v)` binds `v` to the
//! result's register for the arm (a copy when the scrutinee is a mutable
//! variable the arm could change). The match must cover every result:
//! an `Ok` arm and an `Err(_)` arm, or a `_` arm.

use syn::{Expr, ExprMatch, Pat};

use super::failure::is_upper_snake;
use super::value::imm;
use super::Compiler;
use crate::error::err;
use crate::ir::{Cmp, Op, Operand, Var};
use crate::scope::Binding;

/// What one arm takes.
enum Arm<'a> {
    /// `Ok(name)` or `Ok(_)`.
    Ok(Option<&'a syn::Ident>),
    /// `Err(A | B)`: the named errors.
    Named(Vec<&'a syn::Ident>),
    /// `Err(_)`.
    AnyErr,
    /// `_`.
    Rest,
}

/// Whether `m` matches on a result (some arm is `Ok(..)` or `Err(..)`).
pub(super) fn is_result_match(m: &ExprMatch) -> bool {
    m.arms.iter().any(|a| variant(&a.pat).is_some())
}

/// `Ok(inner)` / `Err(inner)`: the variant's name and its one pattern.
fn variant(p: &Pat) -> Option<(String, &Pat)> {
    let Pat::TupleStruct(t) = p else { return None };
    let name = t.path.get_ident()?.to_string();
    match (name.as_str(), t.elems.len()) {
        ("Ok" | "Err", 1) => Some((name, t.elems.first()?)),
        _ => None,
    }
}

fn arm(p: &Pat) -> syn::Result<Arm<'_>> {
    if matches!(p, Pat::Wild(_)) {
        return Ok(Arm::Rest);
    }
    let Some((name, inner)) = variant(p) else {
        return Err(err(
            p,
            "a match on a result takes `Ok(..)`, `Err(..)` and `_` arms",
            "write `Ok(v) => ..`, `Err(NOT_FOUND) => ..`, `Err(_) => ..`",
        ));
    };
    match (name.as_str(), inner) {
        ("Ok", Pat::Wild(_)) => Ok(Arm::Ok(None)),
        ("Ok", Pat::Ident(i))
            if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() =>
        {
            Ok(Arm::Ok(Some(&i.ident)))
        }
        ("Err", Pat::Wild(_)) => Ok(Arm::AnyErr),
        ("Err", Pat::Ident(_) | Pat::Path(_) | Pat::Or(_)) => named(inner).map(Arm::Named),
        _ => Err(err(
            inner,
            "this pattern isn't supported in a result's arm",
            "write `Ok(v)` or `Ok(_)`, and `Err(NAME)`, `Err(A | B)` or `Err(_)`",
        )),
    }
}

/// The error names of `Err(A | B)`.
fn named(p: &Pat) -> syn::Result<Vec<&syn::Ident>> {
    match p {
        Pat::Or(o) => {
            let names = o.cases.iter().map(named).collect::<syn::Result<Vec<_>>>()?;
            Ok(names.concat())
        }
        Pat::Ident(i)
            if i.by_ref.is_none()
                && i.mutability.is_none()
                && i.subpat.is_none()
                && is_upper_snake(&i.ident.to_string()) =>
        {
            Ok(vec![&i.ident])
        }
        Pat::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
            Ok(path.path.get_ident().into_iter().collect())
        }
        _ => Err(err(
            p,
            "an error is matched by its name in capitals",
            "write `Err(NOT_FOUND)` (names from the `errors` module beside the op table, or \
             the executor's), `Err(A | B)` or `Err(_)`",
        )),
    }
}

impl Compiler {
    /// See the module docs.
    pub(super) fn result_match(&mut self, m: &ExprMatch) -> syn::Result<()> {
        let arms = m
            .arms
            .iter()
            .map(|a| match &a.guard {
                Some((_, guard)) => Err(err(
                    guard,
                    "match guards aren't supported",
                    "test the condition with `if` inside the arm",
                )),
                None => arm(&a.pat),
            })
            .collect::<syn::Result<Vec<_>>>()?;
        let covered = arms.iter().any(|a| matches!(a, Arm::Rest))
            || (arms.iter().any(|a| matches!(a, Arm::Ok(_)))
                && arms.iter().any(|a| matches!(a, Arm::AnyErr)));
        if !covered {
            return Err(err(
                m.match_token,
                "this match doesn't cover every result",
                "add an `Err(_) => {}` arm (and an `Ok(..)` one), or `_ => {}`",
            ));
        }
        let mark = self.mark();
        let x = self.result_reg(&m.expr)?;
        let end = self.new_label();
        for (a, pat_arm) in arms.iter().zip(&m.arms) {
            let next = self.new_label();
            let bound = self.test_arm(a, x, next)?;
            self.scopes.push();
            if let (Some(name), Some(var)) = (bound, self.ok_binding(a, x, &m.expr)) {
                let binding = Binding::Value {
                    var,
                    mutable: false,
                    counter: false,
                };
                self.scopes.bind(name.to_string(), binding);
            }
            let body = match &*pat_arm.body {
                Expr::Block(b) if b.label.is_none() => self.block(&b.block),
                body => self.expr_stmt(body),
            };
            self.scopes.pop();
            body?;
            self.push(Op::Jump(end));
            self.push(Op::Bind(next));
        }
        self.push(Op::Bind(end));
        self.release(mark);
        Ok(())
    }

    /// The scrutinee in a register, busy for the whole match.
    fn result_reg(&mut self, e: &Expr) -> syn::Result<Var> {
        match self.operand(e)? {
            Operand::Reg(v) => Ok(v),
            other => {
                let t = self.temp(super::span_of(e));
                self.push(Op::Mov(t, other));
                Ok(t)
            }
        }
    }

    /// Jumps to `next` unless the arm takes the result in `x`; the name
    /// an `Ok(name)` arm binds.
    fn test_arm<'a>(
        &mut self,
        a: &Arm<'a>,
        x: Var,
        next: crate::ir::Label,
    ) -> syn::Result<Option<&'a syn::Ident>> {
        let x_op = Operand::Reg(x);
        match a {
            Arm::Rest => {}
            Arm::Ok(name) => {
                self.push(Op::Branch(Cmp::LtS, x_op, imm(0), next));
                return Ok(*name);
            }
            Arm::AnyErr => self.push(Op::Branch(Cmp::GeS, x_op, imm(0), next)),
            Arm::Named(names) => {
                let body = self.new_label();
                for name in names {
                    let value = self.named_failure(name);
                    self.push(Op::Branch(Cmp::Eq, x_op.clone(), value, body));
                }
                self.push(Op::Jump(next));
                self.push(Op::Bind(body));
            }
        }
        Ok(None)
    }

    /// The register `Ok(name)` binds: the result's own, or a copy when
    /// the scrutinee is a mutable variable the arm could assign.
    fn ok_binding(&mut self, a: &Arm<'_>, x: Var, scrutinee: &Expr) -> Option<Var> {
        let Arm::Ok(Some(name)) = a else { return None };
        match self.scopes.lookup_expr(scrutinee) {
            Some(Binding::Value { mutable: true, .. }) => {
                let copy = self.new_var(name.span(), false);
                self.push(Op::Mov(copy, Operand::Reg(x)));
                Some(copy)
            }
            _ => Some(x),
        }
    }
}
