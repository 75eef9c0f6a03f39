//! The macro's input: `TABLE, |params| { #![settings] body }`.
//!
//! The comma makes the input look like two arguments to rustfmt, which
//! then formats the compound's body as the ordinary Rust it is; settings
//! written as inner attributes at the top of the body keep the closure the
//! last argument, so rustfmt leaves it on the macro's line. The first
//! form, `TABLE => #[settings] |params| { body }`, is still read.
//!
//! Parsed once into [`Input`], so the compiler sees only a table path,
//! the two header settings, plain parameter names and a block; anything
//! else in the header is an error here, at its span.

use syn::parse::{Parse, ParseStream};
use syn::{
    AttrStyle, Attribute, Block, Expr, ExprClosure, Ident, Pat, Path, ReturnType, Token, Type,
};

use crate::error::err;

/// One run-time parameter: a register the server fills before each run.
pub(crate) struct Param {
    pub name: Ident,
    pub mutable: bool,
}

/// See the module docs.
pub(crate) struct Input {
    /// The service's op table, a `const` (e.g. `memfs::OPS`). Its
    /// operations are the constants beside it, named in upper case.
    pub table: Path,
    /// `#![fail_fast]`: stop at the first failing op.
    pub fail_fast: bool,
    /// `#![step_budget(n)]`: the step budget to ask for.
    pub budget: Option<Expr>,
    /// `r0`, `r1`, ... in order.
    pub params: Vec<Param>,
    pub body: Block,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let table: Path = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "cosy!: expected the service's op table first, as a path to a const: \
                 `cosy!(memfs::OPS, |params| { ... })`",
            )
        })?;
        if input.peek(Token![=>]) {
            input.parse::<Token![=>]>()?;
        } else {
            input.parse::<Token![,]>().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "cosy!: expected `,` after the op table: `cosy!(memfs::OPS, |params| { ... })`",
                )
            })?;
        }
        let attrs = input.call(Attribute::parse_outer)?;
        let closure: ExprClosure = input.parse()?;
        if !input.is_empty() {
            return Err(input.error("cosy!: expected nothing after the closure's body"));
        }
        check_closure_header(&closure)?;
        let params = closure
            .inputs
            .iter()
            .map(param)
            .collect::<syn::Result<_>>()?;
        let (inner, body) = match ungroup(*closure.body) {
            Expr::Block(b)
                if b.label.is_none()
                    && b.attrs
                        .iter()
                        .all(|a| matches!(a.style, AttrStyle::Inner(_))) =>
            {
                (b.attrs, b.block)
            }
            other => {
                return Err(err(
                    other,
                    "the compound's body must be a block",
                    "write `|params| { ... }`",
                ))
            }
        };
        let (fail_fast, budget) = settings(attrs.iter().chain(&inner))?;
        Ok(Input {
            table,
            fail_fast,
            budget,
            params,
            body,
        })
    }
}

/// The expression inside the invisible group a `macro_rules!` macro puts
/// around a forwarded fragment (`$body:block`).
fn ungroup(e: Expr) -> Expr {
    match e {
        Expr::Group(g) => ungroup(*g.expr),
        other => other,
    }
}

/// `#![fail_fast]` and `#![step_budget(n)]` (or the same as outer
/// attributes before the closure), the compound's header fields.
fn settings<'a>(attrs: impl Iterator<Item = &'a Attribute>) -> syn::Result<(bool, Option<Expr>)> {
    let (mut fail_fast, mut budget) = (false, None);
    for attr in attrs {
        if attr.path().is_ident("fail_fast") {
            attr.meta.require_path_only()?;
            fail_fast = true;
        } else if attr.path().is_ident("step_budget") {
            budget = Some(attr.parse_args::<Expr>()?);
        } else {
            return Err(err(
                attr,
                "this attribute is unknown",
                "the compound's settings are `#![fail_fast]` and `#![step_budget(steps)]`, first in its body",
            ));
        }
    }
    Ok((fail_fast, budget))
}

fn check_closure_header(c: &ExprClosure) -> syn::Result<()> {
    if let Some(m) = &c.capture {
        return Err(err(
            m,
            "`move` has no meaning here",
            "remove it: the compound reads the app's values when it is built",
        ));
    }
    if c.asyncness.is_some() || c.constness.is_some() || c.lifetimes.is_some() {
        return Err(err(
            c,
            "only a plain closure is accepted",
            "write `|params| { ... }`",
        ));
    }
    match &c.output {
        ReturnType::Default => Ok(()),
        ReturnType::Type(_, ty) if is_u64(ty) => Ok(()),
        ReturnType::Type(_, ty) => Err(err(
            ty,
            "a compound's exit value is a u64",
            "remove the return type or write `-> u64`",
        )),
    }
}

fn param(p: &Pat) -> syn::Result<Param> {
    match p {
        Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => Ok(Param {
            name: i.ident.clone(),
            mutable: i.mutability.is_some(),
        }),
        Pat::Type(t) if is_u64(&t.ty) => param(&t.pat),
        Pat::Type(t) => Err(err(
            &t.ty,
            "parameters are u64 registers",
            "remove the type or write `: u64`",
        )),
        other => Err(err(
            other,
            "a parameter must be a plain name",
            "write `|count, mut seed| { ... }`; parameters arrive in r0, r1, ... in this order",
        )),
    }
}

/// Whether `ty` is `u64`, the only type a compound value has.
pub(crate) fn is_u64(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("u64"))
}
