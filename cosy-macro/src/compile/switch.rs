//! `match` on integer literals: a `SWITCH` jump table when the values are
//! dense, a chain of branches when they are not.
//!
//! Arms match literals, `a | b` and ranges `a..=b` / `a..b`, with a `_`
//! arm for every other value (a `u64` match needs one, as in Rust). The
//! first arm that lists a value takes it, as in Rust. A match whose arms
//! are `Ok(..)` / `Err(..)` is a result's ([`super::result_match`]).

use syn::{Expr, ExprMatch, Lit, Pat, RangeLimits};

use super::value::imm;
use super::Compiler;
use crate::error::err;
use crate::ir::{Cmp, Label, Op, Operand};

/// Largest jump table the compiler makes.
const MAX_TABLE: u64 = 1024;
/// Values at or below this are dispatched from 0 (no subtraction first).
const LOW_BASE: u64 = 16;

/// The values of one arm: inclusive ranges, or every value.
enum Pick {
    Values(Vec<(u64, u64)>),
    Rest,
}

impl Compiler {
    pub(super) fn match_stmt(&mut self, m: &ExprMatch) -> syn::Result<()> {
        if super::result_match::is_result_match(m) {
            return self.result_match(m);
        }
        let mut arms = Vec::new();
        let mut default = None;
        for arm in &m.arms {
            if let Some((_, guard)) = &arm.guard {
                return Err(err(
                    guard,
                    "match guards aren't supported",
                    "test the condition with `if` inside the arm",
                ));
            }
            let label = self.new_label();
            match pick(&arm.pat)? {
                Pick::Values(ranges) => arms.push((ranges, label)),
                Pick::Rest => {
                    default.get_or_insert(label);
                }
            }
        }
        let Some(default) = default else {
            return Err(err(
                m.match_token,
                "this match has no `_` arm",
                "add `_ => {}`: a compound value is a u64, so a match must cover every other value",
            ));
        };
        let mark = self.mark();
        let value = self.operand(&m.expr)?;
        self.dispatch(value, &arms, default);
        self.release(mark);
        let end = self.new_label();
        self.arms(m, &arms, default, end)?;
        self.push(Op::Bind(end));
        Ok(())
    }

    /// The arms' bodies in source order, each ending with a jump out.
    fn arms(
        &mut self,
        m: &ExprMatch,
        arms: &[(Vec<(u64, u64)>, Label)],
        default: Label,
        end: Label,
    ) -> syn::Result<()> {
        let mut listed = arms.iter();
        let mut default_done = false;
        for (i, arm) in m.arms.iter().enumerate() {
            let label = match pick(&arm.pat)? {
                Pick::Values(_) => listed.next().map(|a| a.1),
                Pick::Rest if !default_done => {
                    default_done = true;
                    Some(default)
                }
                // A second `_` arm is unreachable, as in Rust.
                Pick::Rest => None,
            };
            let Some(label) = label else { continue };
            self.push(Op::Bind(label));
            match &*arm.body {
                Expr::Block(b) if b.label.is_none() => self.block(&b.block)?,
                body => self.stmt_of(body)?,
            }
            if i + 1 < m.arms.len() {
                self.push(Op::Jump(end));
            }
        }
        Ok(())
    }

    fn stmt_of(&mut self, body: &Expr) -> syn::Result<()> {
        let mark = self.mark();
        self.expr_stmt(body)?;
        self.release(mark);
        Ok(())
    }

    /// Jumps to the arm that takes `value`.
    fn dispatch(&mut self, value: Operand, arms: &[(Vec<(u64, u64)>, Label)], default: Label) {
        let ranges = || {
            arms.iter()
                .flat_map(|(r, l)| r.iter().map(move |&(lo, hi)| (lo, hi, *l)))
        };
        let (Some(min), Some(max)) = (ranges().map(|r| r.0).min(), ranges().map(|r| r.1).max())
        else {
            self.push(Op::Jump(default));
            return;
        };
        let count: u64 = ranges()
            .map(|(lo, hi, _)| hi - lo + 1)
            .fold(0, u64::saturating_add);
        let base = if min <= LOW_BASE { 0 } else { min };
        let size = max - base + 1;
        if max - min >= MAX_TABLE || size > MAX_TABLE || size > 4 * count + 8 {
            return self.chain(value, ranges().collect(), default);
        }
        let table: Vec<Label> = (base..=max)
            .map(|v| {
                ranges()
                    .find(|&(lo, hi, _)| lo <= v && v <= hi)
                    .map_or(default, |r| r.2)
            })
            .collect();
        let index = if base == 0 {
            value
        } else {
            // Values below `base` wrap to huge indexes: the default.
            let t = self.temp(proc_macro2::Span::call_site());
            self.push(Op::Alu {
                method: "sub",
                dst: t,
                a: value,
                b: imm(base),
            });
            Operand::Reg(t)
        };
        self.push(Op::Switch(index, table, default));
    }

    /// One branch per value (two per range), then the default.
    fn chain(&mut self, value: Operand, ranges: Vec<(u64, u64, Label)>, default: Label) {
        for (lo, hi, label) in ranges {
            if lo == hi {
                self.push(Op::Branch(Cmp::Eq, value.clone(), imm(lo), label));
            } else {
                let skip = self.new_label();
                self.push(Op::Branch(Cmp::LtU, value.clone(), imm(lo), skip));
                self.push(Op::Branch(Cmp::LeU, value.clone(), imm(hi), label));
                self.push(Op::Bind(skip));
            }
        }
        self.push(Op::Jump(default));
    }
}

/// What an arm's pattern matches.
fn pick(pat: &Pat) -> syn::Result<Pick> {
    match pat {
        Pat::Wild(_) => Ok(Pick::Rest),
        Pat::Lit(l) => Ok(Pick::Values(vec![(int(&l.lit, pat)?, int(&l.lit, pat)?)])),
        Pat::Range(r) => {
            let bound = |e: &Option<Box<Expr>>| match e.as_deref() {
                Some(Expr::Lit(l)) => int(&l.lit, pat),
                _ => Err(err(
                    pat,
                    "a range arm needs two integer literals",
                    "write `a..=b` or `a..b`",
                )),
            };
            let (lo, hi) = (bound(&r.start)?, bound(&r.end)?);
            let hi = match r.limits {
                RangeLimits::Closed(_) => Some(hi),
                RangeLimits::HalfOpen(_) => hi.checked_sub(1),
            };
            Ok(Pick::Values(match hi {
                Some(hi) if lo <= hi => vec![(lo, hi)],
                _ => Vec::new(),
            }))
        }
        Pat::Or(o) => {
            let mut all = Vec::new();
            for case in &o.cases {
                match pick(case)? {
                    Pick::Values(v) => all.extend(v),
                    Pick::Rest => return Ok(Pick::Rest),
                }
            }
            Ok(Pick::Values(all))
        }
        Pat::Paren(p) => pick(&p.pat),
        Pat::Ident(i) => Err(err(
            i,
            "a binding arm isn't supported",
            "write `_ =>` and use the matched variable itself",
        )),
        other => Err(err(
            other,
            "a match arm must be integer literals",
            "write `3 =>`, `4 | 5 =>`, `6..=9 =>` or `_ =>`",
        )),
    }
}

fn int(lit: &Lit, pat: &Pat) -> syn::Result<u64> {
    match lit {
        Lit::Int(i) => i.base10_parse(),
        _ => Err(err(
            pat,
            "a match arm must be integer literals",
            "write `3 =>`, `4 | 5 =>`, `6..=9 =>` or `_ =>`",
        )),
    }
}
