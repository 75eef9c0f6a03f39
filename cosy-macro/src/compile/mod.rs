//! The compiler: the body's statements, in order, into [`Op`]s.
//!
//! It walks the block once. Values go into registers with
//! [`Compiler::value_into`]; conditions become branches
//! ([`cond`](self::cond)); loops, `if` and `match` become labels, jumps,
//! `LOOP` and `SWITCH` ([`flow`](self::flow), [`switch`](self::switch));
//! calls become `CALL` or a builtin data op ([`calls`](self::calls)).
//! Whatever the subset lacks is rejected where it is written
//! ([`reject`](self::reject)).

mod calls;
mod cond;
mod failure;
mod flow;
mod reject;
mod result_match;
mod switch;
mod value;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{Block, Expr, Local, Pat, Stmt};

use crate::error::err;
use crate::input::{is_u64, Input};
use crate::ir::{BufId, Label, Op, Operand, Var, VarInfo};
use crate::scope::{Binding, Scopes};

pub(crate) use reject::reject;

/// The compiled body.
pub(crate) struct Program {
    pub ops: Vec<Op>,
    pub vars: Vec<VarInfo>,
    /// Vars `0..params` are the parameters, `r0..`.
    pub params: usize,
    pub labels: usize,
}

/// Compiles the macro's input; see the module docs.
pub(crate) fn compile(input: &Input) -> syn::Result<Program> {
    let mut c = Compiler {
        table_module: module_of(&input.table),
        ops: Vec::new(),
        vars: Vec::new(),
        labels: 0,
        bufs: 0,
        scopes: Scopes::default(),
        loops: Vec::new(),
        temps_free: Vec::new(),
        temps_busy: Vec::new(),
    };
    c.scopes.push();
    for p in &input.params {
        let var = c.new_var(p.name.span(), p.mutable);
        let binding = Binding::Value {
            var,
            mutable: p.mutable,
            counter: false,
        };
        c.scopes.bind(p.name.to_string(), binding);
    }
    c.body(&input.body)?;
    Ok(Program {
        ops: c.ops,
        params: input.params.len(),
        vars: c.vars,
        labels: c.labels,
    })
}

/// `memfs::OPS` -> `memfs::`: where the operations' constants are.
fn module_of(table: &syn::Path) -> TokenStream {
    let mut module = table.clone();
    module.segments.pop();
    if module.segments.is_empty() {
        quote!()
    } else {
        quote!(#module)
    }
}

/// A loop `break` and `continue` can leave or restart.
struct LoopCtx {
    name: Option<String>,
    brk: Label,
    cont: Label,
}

pub(crate) struct Compiler {
    /// Path prefix of the operations' constants (`memfs::`).
    table_module: TokenStream,
    ops: Vec<Op>,
    vars: Vec<VarInfo>,
    labels: usize,
    bufs: usize,
    scopes: Scopes,
    loops: Vec<LoopCtx>,
    /// Temporaries not in use; reused before new ones are made, so a
    /// compound needs as few registers as its deepest expression.
    temps_free: Vec<Var>,
    temps_busy: Vec<Var>,
}

impl Compiler {
    fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    fn new_var(&mut self, span: Span, mutable: bool) -> Var {
        self.vars.push(VarInfo { span, mutable });
        Var(self.vars.len() - 1)
    }

    fn new_label(&mut self) -> Label {
        self.labels += 1;
        Label(self.labels - 1)
    }

    fn new_buf(&mut self) -> BufId {
        self.bufs += 1;
        BufId(self.bufs - 1)
    }

    /// A temporary register, busy until [`Compiler::release`] back to a
    /// mark taken before.
    fn temp(&mut self, span: Span) -> Var {
        let var = match self.temps_free.pop() {
            Some(var) => var,
            None => self.new_var(span, true),
        };
        self.temps_busy.push(var);
        var
    }

    fn mark(&self) -> usize {
        self.temps_busy.len()
    }

    fn release(&mut self, mark: usize) {
        while self.temps_busy.len() > mark {
            if let Some(var) = self.temps_busy.pop() {
                self.temps_free.push(var);
            }
        }
    }

    /// Whether code here may run more than once (inside a loop).
    fn in_loop(&self) -> bool {
        !self.loops.is_empty()
    }

    /// The closure's body: its statements, the last expression (if it is a
    /// value) being the exit value.
    fn body(&mut self, block: &Block) -> syn::Result<()> {
        let count = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Expr(e, None) if i + 1 == count && !is_statement(e) => {
                    let mark = self.mark();
                    let value = self.operand(e)?;
                    self.push(Op::Exit(value));
                    self.release(mark);
                }
                _ => self.stmt(stmt)?,
            }
        }
        Ok(())
    }

    /// A nested block: its own scope.
    fn block(&mut self, block: &Block) -> syn::Result<()> {
        self.scopes.push();
        let result = block.stmts.iter().try_for_each(|s| self.stmt(s));
        self.scopes.pop();
        result
    }

    fn stmt(&mut self, stmt: &Stmt) -> syn::Result<()> {
        let mark = self.mark();
        match stmt {
            Stmt::Local(local) => self.local(local)?,
            Stmt::Expr(e, _) => self.expr_stmt(e)?,
            Stmt::Item(item) => return Err(err(
                item,
                "items (fn, const, use, struct, ...) can't be declared in a compound",
                "declare them outside the cosy! block; the compound can use constants from there",
            )),
            Stmt::Macro(m) => {
                return Err(err(
                    m,
                    "macros aren't expanded inside cosy!",
                    "compute the value before the cosy! block and use it as a constant",
                ))
            }
        }
        self.release(mark);
        Ok(())
    }

    /// `let x = e;`, `let mut x = e;`, `let b = buf(..);`, `let _ = call(..);`.
    fn local(&mut self, local: &Local) -> syn::Result<()> {
        let Some(init) = &local.init else {
            return Err(err(
                local,
                "a variable needs a value where it is declared",
                "write `let mut x = 0;` (free outside loops: registers start at zero)",
            ));
        };
        if let Some((_, diverge)) = &init.diverge {
            return Err(err(
                diverge,
                "`let ... else` isn't supported",
                "bind the value, then test it with `if`",
            ));
        }
        let (name, mutable) = match &local.pat {
            Pat::Wild(_) => return self.expr_stmt(&init.expr),
            pat => let_name(pat)?,
        };
        if let Some(place) = self.buffer_decl(&init.expr)? {
            let id = self.new_buf();
            self.push(Op::DeclBuf(id, Box::new(place)));
            self.scopes.bind(name.to_string(), Binding::Buf(id));
            return Ok(());
        }
        let var = self.new_var(name.span(), mutable);
        // Registers start at zero and a `let` outside any loop runs once on
        // a register nothing wrote yet, so `= 0` there needs no op.
        if self.in_loop() || !is_zero(&init.expr) {
            self.value_into(&init.expr, var)?;
        }
        let binding = Binding::Value {
            var,
            mutable,
            counter: false,
        };
        self.scopes.bind(name.to_string(), binding);
        Ok(())
    }

    /// A statement that is an expression.
    fn expr_stmt(&mut self, e: &Expr) -> syn::Result<()> {
        match e {
            Expr::Assign(a) => self.assign(&a.left, &a.right, None),
            Expr::Binary(b) => match value::assign_op(&b.op) {
                Some(method) => self.assign(&b.left, &b.right, Some(method)),
                None => Err(reject::unused_or_unsupported(e, &self.scopes)),
            },
            Expr::Call(c) => self.call(c, None),
            Expr::If(i) => self.if_stmt(i),
            Expr::While(w) => self.while_loop(w),
            Expr::Loop(l) => self.loop_loop(l),
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::Match(m) => self.match_stmt(m),
            Expr::Block(b) if b.label.is_none() => self.block(&b.block),
            Expr::Break(b) => self.break_stmt(b),
            Expr::Continue(c) => self.continue_stmt(c),
            Expr::Return(r) => {
                let value = match &r.expr {
                    Some(v) => self.operand(v)?,
                    None => Operand::Imm(quote!(0u64)),
                };
                self.push(Op::Exit(value));
                Ok(())
            }
            Expr::Paren(p) => self.expr_stmt(&p.expr),
            Expr::Group(g) => self.expr_stmt(&g.expr),
            _ => Err(reject::unused_or_unsupported(e, &self.scopes)),
        }
    }

    /// `x = e` or `x op= e`.
    fn assign(&mut self, left: &Expr, right: &Expr, op: Option<&'static str>) -> syn::Result<()> {
        let var = match self.scopes.lookup_expr(left) {
            Some(Binding::Value {
                var, mutable: true, ..
            }) => var,
            Some(Binding::Value { counter: true, .. }) => {
                return Err(err(
                    left,
                    "a `for` counter can't be assigned",
                    "use a `while` loop with a `let mut` counter to change it in the body",
                ))
            }
            Some(Binding::Value { .. }) => {
                return Err(err(
                    left,
                    "this variable isn't mutable",
                    format!(
                        "declare it `let mut {} = ...;`",
                        quote::ToTokens::to_token_stream(left)
                    ),
                ))
            }
            Some(Binding::Buf(_)) => {
                return Err(err(
                    left,
                    "a buffer can't be reassigned",
                    "declare another one with `let other = buf(region, offset, len);`",
                ))
            }
            None => return Err(err(
                left,
                "only the compound's own variables can be assigned",
                "a compound can't change the app's variables; declare one inside with `let mut`",
            )),
        };
        match op {
            None => self.value_into(right, var),
            Some(method) => self.binary_into(method, left, right, var),
        }
    }
}

/// The name a `let` binds, and whether it is `mut`.
fn let_name(pat: &Pat) -> syn::Result<(&syn::Ident, bool)> {
    match pat {
        Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
            Ok((&i.ident, i.mutability.is_some()))
        }
        Pat::Type(t) if is_u64(&t.ty) => let_name(&t.pat),
        Pat::Type(t) => Err(err(
            &t.ty,
            "compound values are u64",
            "remove the type or write `: u64`",
        )),
        other => Err(err(
            other,
            "only one plain name can be bound per `let`",
            "write one `let name = value;` per variable",
        )),
    }
}

/// Whether `e` is the literal `0`.
fn is_zero(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => {
            matches!(&l.lit, syn::Lit::Int(i) if i.base10_parse::<u64>().ok() == Some(0))
        }
        Expr::Paren(p) => is_zero(&p.expr),
        Expr::Group(g) => is_zero(&g.expr),
        _ => false,
    }
}

/// Whether `e`, as a block's last expression, is a statement rather than
/// a value (the body's value is the exit value).
fn is_statement(e: &Expr) -> bool {
    match e {
        Expr::If(_)
        | Expr::While(_)
        | Expr::Loop(_)
        | Expr::ForLoop(_)
        | Expr::Match(_)
        | Expr::Block(_)
        | Expr::Assign(_)
        | Expr::Break(_)
        | Expr::Continue(_)
        | Expr::Return(_) => true,
        Expr::Binary(b) => value::assign_op(&b.op).is_some(),
        Expr::Paren(p) => is_statement(&p.expr),
        Expr::Group(g) => is_statement(&g.expr),
        _ => false,
    }
}

/// The span of `e`, for temporaries made for it.
fn span_of(e: &impl Spanned) -> Span {
    e.span()
}
