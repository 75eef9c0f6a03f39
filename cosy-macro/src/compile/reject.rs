//! What the subset lacks, said where it is written, with what to write
//! instead.

use syn::{BinOp, Expr};

use crate::error::err;
use crate::scope::Scopes;

/// The error for an expression the compiler can't use where it stands.
pub(crate) fn reject(e: &Expr) -> syn::Error {
    let (what, instead): (&str, &str) = match e {
        Expr::MethodCall(_) => (
            "method calls aren't compiled into compounds",
            "call an operation of the service by its name, `read(fd, buf, n)`, or compute the \
             value before the cosy! block and use it as a constant",
        ),
        Expr::Closure(_) => (
            "closures can't run inside a compound",
            "write the code inline",
        ),
        Expr::Macro(_) => (
            "macros aren't expanded inside cosy!",
            "compute the value before the cosy! block and use it as a constant",
        ),
        Expr::Index(_) => (
            "indexing isn't supported: compound values are integers",
            "keep arrays in a buffer and reach an element with `buf_at(region, base, offset, len)`",
        ),
        Expr::Field(_) | Expr::Tuple(_) | Expr::Struct(_) | Expr::Array(_) | Expr::Repeat(_) => (
            "compound values are plain u64 integers, not tuples, structs or arrays",
            "use one variable per value; records live in buffers",
        ),
        Expr::Reference(_) | Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), .. }) => (
            "references and dereferences aren't needed",
            "pass buffers by name, e.g. `read(fd, data, n)`",
        ),
        Expr::Try(_) => (
            "`?` isn't supported",
            "a failing operation sets its status and, with `#![fail_fast]`, stops the run; test \
             results with `if`",
        ),
        Expr::Async(_) | Expr::Await(_) => (
            "async code can't run in a compound",
            "a compound is one synchronous run on the server",
        ),
        Expr::Unsafe(_) => ("`unsafe` has no meaning in a compound", "remove it"),
        Expr::Cast(_) => (
            "casts aren't needed: every compound value is a u64",
            "remove the `as`; only a comparison takes one, `(x as i64) < 0`, to compare signed",
        ),
        Expr::Range(_) => (
            "ranges only drive `for` loops",
            "write `for i in a..b { ... }`",
        ),
        Expr::Let(_) => (
            "`if let` and `while let` aren't supported",
            "compare integers instead, e.g. `if x == 0`",
        ),
        Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Loop(_) => (
            "`if`, `match`, blocks and loops can't produce a value here",
            "declare `let mut x = 0;` and assign `x` inside, e.g. `if c { x = 1; } else { x = 2; }`",
        ),
        Expr::While(_) | Expr::ForLoop(_) => (
            "a loop has no value",
            "write the loop as a statement and assign a `let mut` variable inside it",
        ),
        Expr::Binary(b) if is_logic(&b.op) => (
            "comparisons and `&&` / `||` make no value in a compound",
            "use them as the condition of `if` or `while`, e.g. `let mut b = 0; if x < y { b = 1; }`",
        ),
        Expr::Assign(_) => (
            "an assignment has no value",
            "assign as a statement, `x = value;`, then use `x`",
        ),
        Expr::Break(_) | Expr::Continue(_) | Expr::Return(_) => (
            "`break`, `continue` and `return` have no value",
            "use them as statements",
        ),
        _ => (
            "this expression isn't in the subset cosy! compiles",
            "use integers, variables, arithmetic, calls of the service's operations and builtins, \
             `if`, `while`, `loop`, `for i in a..b`, `match` on integers, `break`, `continue` and \
             `return`",
        ),
    };
    err(e, what, instead)
}

/// A statement-position expression that is a plain value (dropped), or
/// something unsupported.
pub(super) fn unused_or_unsupported(e: &Expr, scopes: &Scopes) -> syn::Error {
    let plain = matches!(e, Expr::Lit(_) | Expr::Path(_) | Expr::Unary(_))
        || matches!(e, Expr::Binary(b) if !is_logic(&b.op));
    if plain || (scopes.is_app_expr(e) && !matches!(e, Expr::MethodCall(_) | Expr::Macro(_))) {
        return err(
            e,
            "this value is computed and dropped",
            "assign it (`x = ...;`) or `return` it",
        );
    }
    reject(e)
}

fn is_logic(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_)
            | BinOp::And(_)
            | BinOp::Or(_)
    )
}
