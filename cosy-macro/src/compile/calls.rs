//! Calls: the service's operations (`CALL`), the builtin data ops, and
//! the buffer declarations `buf(..)` / `buf_at(..)`.
//!
//! A call by a bare name is an operation: a builtin if it is one of
//! [`BUILTINS`], otherwise the service's operation of that name, whose
//! number is the constant of the same name in upper case beside the op
//! table (`read` -> `memfs::READ` for `memfs::OPS`). Its operand kinds
//! are checked against the table when the app compiles (see `emit`).

use quote::{format_ident, quote, ToTokens};
use syn::{Expr, ExprCall};

use super::Compiler;
use crate::error::err;
use crate::ir::{Call, Kind, Op, Operand, Place, Var};
use crate::scope::{bare_name, Binding};

/// The builtin data ops: name, builder method, operand kinds, and how
/// the operands read in messages.
const BUILTINS: &[(&str, &[Kind], &str)] = &[
    (
        "copy",
        &[Kind::Buf, Kind::Buf, Kind::Value],
        "copy(to, from, n)",
    ),
    (
        "fill",
        &[Kind::Buf, Kind::Value, Kind::Value],
        "fill(buf, byte, n)",
    ),
    (
        "memcmp",
        &[Kind::Buf, Kind::Buf, Kind::Value],
        "memcmp(a, b, n)",
    ),
    (
        "search",
        &[Kind::Buf, Kind::Buf, Kind::Value],
        "search(hay, needle, n)",
    ),
    (
        "crc32c",
        &[Kind::Buf, Kind::Value, Kind::Value],
        "crc32c(buf, n, seed)",
    ),
];

/// Operands one op takes at most.
const MAX_OPERANDS: usize = 6;

impl Compiler {
    /// A call; its result into `dst`, or dropped.
    pub(super) fn call(&mut self, c: &ExprCall, dst: Option<Var>) -> syn::Result<()> {
        let Some(name) = bare_name(&c.func) else {
            return Err(err(
                c,
                "only the service's operations and the builtins can be called with compound values",
                "call an operation by its bare name (`read(fd, buf, n)`); a path call like \
                 `f::g(x)` is the app's code, run when the compound is built, so it can't see \
                 compound variables",
            ));
        };
        let text = name.to_string();
        if text == "buf" || text == "buf_at" {
            return Err(err(
                c,
                "buffers are declared, not computed",
                "declare one with `let name = buf(region, offset, len);` and pass `name`",
            ));
        }
        if super::failure::is_test(&text) {
            return Err(err(
                c,
                format!("`{text}` is a condition, not a value"),
                format!("use it in `if` or `while`: `if {text}(x) {{ ... }}`"),
            ));
        }
        if let Some(&(method, kinds, shape)) = BUILTINS.iter().find(|b| b.0 == text) {
            return self.builtin(c, method, kinds, shape, dst);
        }
        self.service_call(c, name, dst)
    }

    fn builtin(
        &mut self,
        c: &ExprCall,
        method: &'static str,
        kinds: &[Kind],
        shape: &str,
        dst: Option<Var>,
    ) -> syn::Result<()> {
        if c.args.len() != kinds.len() {
            return Err(err(
                c,
                format!("`{method}` takes {} operands", kinds.len()),
                format!("write `{shape}`"),
            ));
        }
        let mut args = Vec::new();
        for (arg, kind) in c.args.iter().zip(kinds) {
            args.push(match kind {
                Kind::Buf => Operand::Buf(self.buffer_arg(arg, method, shape)?),
                Kind::Value => self.operand(arg)?,
            });
        }
        // The op always writes a register; a dropped result goes to a
        // temporary.
        let dst = match dst {
            Some(dst) => dst,
            None => self.temp(name_span(c)),
        };
        self.push(Op::Data { method, dst, args });
        Ok(())
    }

    fn buffer_arg(&self, arg: &Expr, method: &str, shape: &str) -> syn::Result<crate::ir::BufId> {
        match self.scopes.lookup_expr(arg) {
            Some(Binding::Buf(id)) => Ok(id),
            _ => Err(err(
                arg,
                format!("this operand of `{method}` must be a buffer (`{shape}`)"),
                "declare one with `let name = buf(region, offset, len);` and pass `name`",
            )),
        }
    }

    fn service_call(
        &mut self,
        c: &ExprCall,
        name: &syn::Ident,
        dst: Option<Var>,
    ) -> syn::Result<()> {
        if c.args.len() > MAX_OPERANDS {
            return Err(err(
                c,
                format!("an operation takes at most {MAX_OPERANDS} operands"),
                "pass fewer; put more data in a buffer",
            ));
        }
        let (mut args, mut arg_names) = (Vec::new(), Vec::new());
        for arg in &c.args {
            if let Some(Binding::Buf(id)) = self.scopes.lookup_expr(arg) {
                args.push((Operand::Buf(id), Kind::Buf));
                arg_names.push(Some(arg.to_token_stream().to_string()));
            } else {
                args.push((self.operand(arg)?, Kind::Value));
                arg_names.push(None);
            }
        }
        let constant = format_ident!("{}", name.to_string().to_uppercase(), span = name.span());
        let module = &self.table_module;
        self.push(Op::Call(Call {
            dst,
            name: name.clone(),
            opcode: quote!(#module #constant),
            args,
            arg_names,
        }));
        Ok(())
    }

    /// `buf(region, offset, len)`, `buf(place)` or
    /// `buf_at(region, base, offset, len)`: where the buffer is. `None`
    /// if `e` is not a buffer declaration.
    pub(super) fn buffer_decl(&self, e: &Expr) -> syn::Result<Option<Place>> {
        let Expr::Call(c) = e else { return Ok(None) };
        let Some(name) = bare_name(&c.func) else {
            return Ok(None);
        };
        if name != "buf" && name != "buf_at" {
            return Ok(None);
        }
        let args: Vec<&Expr> = c.args.iter().collect();
        for (i, arg) in args.iter().enumerate() {
            let is_base = name == "buf_at" && i == 1;
            if !is_base && !self.scopes.is_app_expr(arg) {
                return Err(err(
                    arg,
                    "a buffer's place is fixed when the compound is built",
                    "use the app's values here, or `buf_at(region, base, offset, len)` for a \
                     buffer that moves with a variable `base`",
                ));
            }
        }
        let place = match (name.to_string().as_str(), args.as_slice()) {
            ("buf", [region, offset, len]) => Place::Parts {
                region: (*region).clone(),
                offset: (*offset).clone(),
                len: (*len).clone(),
            },
            ("buf", [place]) => Place::Tuple((*place).clone()),
            ("buf_at", [place, base]) => Place::TupleAt {
                place: (*place).clone(),
                base: self.base_reg(base)?,
            },
            ("buf_at", [region, base, offset, len]) => Place::At {
                region: (*region).clone(),
                base: self.base_reg(base)?,
                offset: (*offset).clone(),
                len: (*len).clone(),
            },
            ("buf", _) => return Err(err(
                c,
                "`buf` takes a region, an offset and a length",
                "write `buf(region, offset, len)` or `buf(place)` with a `(u8, u32, u32)` tuple \
                 or a `cosy_abi::Place`",
            )),
            ("buf_at", _) => {
                return Err(err(
                    c,
                    "`buf_at` takes a region, a base variable, an offset and a length",
                    "write `buf_at(region, base, offset, len)`, or `buf_at(place, base)` with a \
                     place from an arena (`table.first`)",
                ))
            }
            _ => return Ok(None),
        };
        Ok(Some(place))
    }

    /// `buf_at`'s base: a compound variable.
    fn base_reg(&self, base: &Expr) -> syn::Result<Var> {
        match self.scopes.lookup_expr(base) {
            Some(Binding::Value { var, .. }) => Ok(var),
            _ => Err(err(
                base,
                "`buf_at`'s base must be a compound variable",
                "pass a variable whose value is added to the offset when an op uses the buffer; \
                 for a fixed place use `buf(region, offset, len)`",
            )),
        }
    }
}

fn name_span(c: &ExprCall) -> proc_macro2::Span {
    syn::spanned::Spanned::span(&c.func)
}
