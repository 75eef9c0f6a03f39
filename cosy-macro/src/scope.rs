//! Which names are compound variables, block by block.
//!
//! A name bound here (a parameter, a `let`, a `for` counter) is a
//! register or a buffer of the compound; any other name is the app's, and
//! an expression made only of the app's names is ordinary Rust, evaluated
//! when the compound is built. Scopes follow Rust's blocks, so a `let`
//! inside a loop is gone after it and shadowing works as in Rust.

use std::collections::HashMap;

use syn::visit::{self, Visit};
use syn::{Expr, ExprCall, ExprMacro, ExprPath};

use crate::ir::{BufId, Var};

/// What a compound name stands for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Binding {
    Value {
        var: Var,
        mutable: bool,
        counter: bool,
    },
    Buf(BufId),
}

/// See the module docs.
#[derive(Default)]
pub(crate) struct Scopes(Vec<HashMap<String, Binding>>);

impl Scopes {
    pub fn push(&mut self) {
        self.0.push(HashMap::new());
    }

    pub fn pop(&mut self) {
        self.0.pop();
    }

    pub fn bind(&mut self, name: String, binding: Binding) {
        if let Some(top) = self.0.last_mut() {
            top.insert(name, binding);
        }
    }

    pub fn lookup(&self, name: &str) -> Option<Binding> {
        self.0.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// What a bare name (`x`, not `a::x` or `x.0`) stands for.
    pub fn lookup_expr(&self, e: &Expr) -> Option<Binding> {
        match e {
            Expr::Path(p) => self.lookup(&p.path.get_ident()?.to_string()),
            Expr::Paren(p) => self.lookup_expr(&p.expr),
            Expr::Group(g) => self.lookup_expr(&g.expr),
            _ => None,
        }
    }

    /// Whether `e` is the app's: it names no compound variable and calls
    /// no operation (a call by a bare name), so Rust can evaluate it when
    /// the compound is built.
    pub fn is_app_expr(&self, e: &Expr) -> bool {
        let mut finder = Finder {
            scopes: self,
            found: false,
        };
        finder.visit_expr(e);
        !finder.found
    }
}

/// Looks for a compound name or an operation call inside an expression.
struct Finder<'a> {
    scopes: &'a Scopes,
    found: bool,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr_path(&mut self, p: &'ast ExprPath) {
        if let Some(name) = p.path.get_ident() {
            self.found |= self.scopes.lookup(&name.to_string()).is_some();
        }
    }

    fn visit_expr_call(&mut self, c: &'ast ExprCall) {
        self.found |= bare_name(&c.func).is_some();
        visit::visit_expr_call(self, c);
    }

    // A macro's tokens can't be looked into, and a closure or an async
    // block is no value, so neither is ever the app's: the compiler then
    // rejects them with its own message.
    fn visit_expr_macro(&mut self, _: &'ast ExprMacro) {
        self.found = true;
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {
        self.found = true;
    }

    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {
        self.found = true;
    }
}

/// The name of a call by a bare name: `read(..)`, not `a::read(..)`.
pub(crate) fn bare_name(func: &Expr) -> Option<&syn::Ident> {
    match func {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// Calls `f` with every bare name `e` mentions.
pub(crate) fn for_each_name(e: &Expr, f: &mut dyn FnMut(&str)) {
    struct Names<'a>(&'a mut dyn FnMut(&str));
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_expr_path(&mut self, p: &'ast ExprPath) {
            if let Some(name) = p.path.get_ident() {
                (self.0)(&name.to_string());
            }
        }
    }
    Names(f).visit_expr(e);
}
