//! The compiled program as Rust: a block that makes a
//! `cosy_abi::Builder`, makes the registers and labels, calls the builder
//! once per op, and evaluates to the builder.
//!
//! Registers are numbered here, parameters first, then in the order the
//! ops first mention them. Each service call also gets a `const` that
//! checks it against the op table, so a call with the wrong number or kind
//! of operands fails to compile at the call, not at the server's verifier.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};

use crate::compile::Program;
use crate::error::err_at;
use crate::input::Input;
use crate::ir::{Call, Kind, Label, Op, Operand, Place, Var};

/// Registers a compound has (`r0`..`r31`).
const NREGS: usize = 32;

/// See the module docs.
pub(crate) fn emit(input: &Input, program: &Program) -> syn::Result<TokenStream> {
    let numbers = number_registers(program)?;
    let b = builder();
    let regs = (0..numbers.count).map(reg_ident);
    let labels = (0..program.labels).map(|l| label_ident(Label(l)));
    let mut body = TokenStream::new();
    let e = Emitter {
        numbers: &numbers,
        table: &input.table,
    };
    for op in &program.ops {
        body.extend(e.op(op));
    }
    let fail_fast = input.fail_fast.then(|| quote!(#b.fail_fast(true);));
    let budget = input.budget.as_ref().map(|n| quote!(#b.step_budget(#n);));
    Ok(quote! {{
        let mut #b = ::cosy_abi::Builder::new();
        #fail_fast
        #budget
        #( let #regs = #b.reg(); )*
        #( let #labels = #b.label(); )*
        #body
        #b
    }})
}

/// Register numbers by var, and how many there are.
struct Numbers {
    of: Vec<Option<usize>>,
    count: usize,
}

fn number_registers(program: &Program) -> syn::Result<Numbers> {
    let mut n = Numbers {
        of: vec![None; program.vars.len()],
        count: 0,
    };
    for p in 0..program.params {
        n.take(Var(p));
    }
    for op in &program.ops {
        for var in mentions(op) {
            n.take(var);
        }
    }
    if n.count > NREGS {
        let over = n.of.iter().position(|&r| r == Some(NREGS)).unwrap_or(0);
        let span = program.vars.get(over).map_or(Span::call_site(), |v| v.span);
        return Err(err_at(
            span,
            format!("this compound needs {} registers, more than the {NREGS} a compound has", n.count),
            "reuse variables (`x = ...;` instead of a new `let`) or split the work into two compounds",
        ));
    }
    Ok(n)
}

impl Numbers {
    fn take(&mut self, var: Var) {
        if self.of[var.0].is_none() {
            self.of[var.0] = Some(self.count);
            self.count += 1;
        }
    }

    fn get(&self, var: Var) -> usize {
        self.of[var.0].unwrap_or(0)
    }
}

/// The registers an op names, destination first.
fn mentions(op: &Op) -> Vec<Var> {
    fn reg(o: &Operand) -> Option<Var> {
        match o {
            Operand::Reg(v) => Some(*v),
            _ => None,
        }
    }
    match op {
        Op::DeclBuf(_, place) => match &**place {
            Place::At { base, .. } | Place::TupleAt { base, .. } => vec![*base],
            _ => vec![],
        },
        Op::Jump(_) | Op::Bind(_) => vec![],
        Op::Call(c) => c
            .dst
            .into_iter()
            .chain(c.args.iter().filter_map(|a| reg(&a.0)))
            .collect(),
        Op::Alu { dst, a, b, .. } => [Some(*dst), reg(a), reg(b)].into_iter().flatten().collect(),
        Op::Mov(dst, a) => [Some(*dst), reg(a)].into_iter().flatten().collect(),
        Op::Data { dst, args, .. } => std::iter::once(*dst)
            .chain(args.iter().filter_map(reg))
            .collect(),
        Op::Branch(_, a, b, _) => [reg(a), reg(b)].into_iter().flatten().collect(),
        Op::LoopBack {
            counter,
            step,
            limit,
            ..
        } => [Some(*counter), reg(step), reg(limit)]
            .into_iter()
            .flatten()
            .collect(),
        Op::Switch(v, ..) | Op::Exit(v) => reg(v).into_iter().collect(),
    }
}

fn builder() -> Ident {
    Ident::new("__cosy_builder", Span::mixed_site())
}

fn reg_ident(n: usize) -> Ident {
    format_ident!("__cosy_r{}", n, span = Span::mixed_site())
}

fn label_ident(l: Label) -> Ident {
    format_ident!("__cosy_l{}", l.0, span = Span::mixed_site())
}

fn buf_ident(b: crate::ir::BufId) -> Ident {
    format_ident!("__cosy_b{}", b.0, span = Span::mixed_site())
}

struct Emitter<'a> {
    numbers: &'a Numbers,
    table: &'a syn::Path,
}

impl Emitter<'_> {
    fn reg(&self, v: Var) -> Ident {
        reg_ident(self.numbers.get(v))
    }

    fn operand(&self, o: &Operand) -> TokenStream {
        match o {
            Operand::Reg(v) => {
                let r = self.reg(*v);
                quote!(#r)
            }
            Operand::Imm(tokens) => tokens.clone(),
            Operand::Buf(id) => {
                let b = buf_ident(*id);
                quote!(#b)
            }
        }
    }

    fn op(&self, op: &Op) -> TokenStream {
        let b = builder();
        match op {
            Op::DeclBuf(id, place) => {
                let name = buf_ident(*id);
                let make = match &**place {
                    Place::Parts {
                        region,
                        offset,
                        len,
                    } => quote!(#b.buf(#region, #offset, #len)),
                    Place::Tuple(place) => quote!({
                        let (region, offset, len): (u8, u32, u32) =
                            ::core::convert::Into::into(#place);
                        #b.buf(region, offset, len)
                    }),
                    Place::TupleAt { place, base } => {
                        let base = self.reg(*base);
                        quote!({
                            let (region, offset, len): (u8, u32, u32) =
                                ::core::convert::Into::into(#place);
                            #b.buf_at(region, #base, offset, len)
                        })
                    }
                    Place::At {
                        region,
                        base,
                        offset,
                        len,
                    } => {
                        let base = self.reg(*base);
                        quote!(#b.buf_at(#region, #base, #offset, #len))
                    }
                };
                quote!(let #name = #make;)
            }
            Op::Call(call) => self.call(call),
            Op::Alu {
                method,
                dst,
                a,
                b: second,
            } => {
                let (m, d) = (Ident::new(method, Span::call_site()), self.reg(*dst));
                let (a, c) = (self.operand(a), self.operand(second));
                quote!(#b.#m(#d, #a, #c);)
            }
            Op::Mov(dst, v) => {
                let (d, v) = (self.reg(*dst), self.operand(v));
                quote!(#b.mov(#d, #v);)
            }
            Op::Data { method, dst, args } => {
                let (m, d) = (Ident::new(method, Span::call_site()), self.reg(*dst));
                let args = args.iter().map(|a| self.operand(a));
                quote!(#b.#m(#d, #(#args),*);)
            }
            Op::Branch(cmp, x, y, to) => {
                let cmp = Ident::new(cmp.name(), Span::call_site());
                let (x, y, to) = (self.operand(x), self.operand(y), label_ident(*to));
                quote!(#b.branch(::cosy_abi::Cmp::#cmp, #x, #y, #to);)
            }
            Op::Jump(to) => {
                let to = label_ident(*to);
                quote!(#b.jump(#to);)
            }
            Op::LoopBack {
                counter,
                step,
                cmp,
                limit,
                to,
            } => {
                let cmp = Ident::new(cmp.name(), Span::call_site());
                let (c, s, l) = (self.reg(*counter), self.operand(step), self.operand(limit));
                let to = label_ident(*to);
                quote!(#b.loop_back(#c, #s, ::cosy_abi::Cmp::#cmp, #l, #to);)
            }
            Op::Switch(v, cases, default) => {
                let v = self.operand(v);
                let cases = cases.iter().map(|l| label_ident(*l));
                let default = label_ident(*default);
                quote!(#b.switch(#v, &[#(#cases),*], #default);)
            }
            Op::Bind(l) => {
                let l = label_ident(*l);
                quote!(#b.bind(#l);)
            }
            Op::Exit(v) => {
                let v = self.operand(v);
                quote!(#b.exit(#v);)
            }
        }
    }

    fn call(&self, call: &Call) -> TokenStream {
        let b = builder();
        let opcode = &call.opcode;
        let args = call.args.iter().map(|(o, _)| self.operand(o));
        let args = quote!(&[#(::cosy_abi::Operand::from(#args)),*] as &[::cosy_abi::Operand]);
        let check = self.check(call);
        match call.dst {
            Some(dst) => {
                let d = self.reg(dst);
                quote!(#check #b.call(#d, #opcode, #args);)
            }
            None => quote!(#check #b.call_void(#opcode, #args);),
        }
    }

    /// A `const` that fails to compile, at the call, if the call does not
    /// fit the operation's spec in the table.
    fn check(&self, call: &Call) -> TokenStream {
        let (table, opcode, name) = (self.table, &call.opcode, &call.name);
        let table_text = quote!(#table).to_string().replace(' ', "");
        let given = call.args.len();
        let kinds = call.args.iter().map(|(_, k)| match k {
            Kind::Value => quote!(::cosy_abi::ArgKind::Value),
            Kind::Buf => quote!(::cosy_abi::ArgKind::Buf),
        });
        let unknown = format!(
            "cosy!: `{table_text}` has no operation `{name}`; call one of the operations its table lists"
        );
        let arity = (0..=6usize).map(|expected| {
            let msg = format!(
                "cosy!: `{name}` of `{table_text}` takes {expected} operand(s), but this call passes {given}; \
                 pass exactly {expected}"
            );
            quote!(::cosy_abi::CallShape::Arity { expected: #expected } => ::core::panic!(#msg),)
        });
        let kind = call.args.iter().zip(&call.arg_names).enumerate().map(|(i, ((_, k), n))| {
            let nth = i + 1;
            let msg = match (k, n) {
                (Kind::Value, _) => format!(
                    "cosy!: operand {nth} of `{name}` must be a buffer in `{table_text}`, but this call \
                     passes a value; declare one with `let b = buf(region, offset, len);` and pass `b`"
                ),
                (Kind::Buf, n) => format!(
                    "cosy!: operand {nth} of `{name}` must be a value in `{table_text}`, but this call \
                     passes the buffer `{}`; pass a number or a variable",
                    n.as_deref().unwrap_or("?")
                ),
            };
            quote!(::cosy_abi::CallShape::Kind { operand: #i } => ::core::panic!(#msg),)
        });
        // Every token of the check carries the call's span, so a failed
        // check is reported at the call.
        let span = name.span();
        let check = quote! {
            const _: () = match #table.check_call(#opcode, &[#(#kinds),*]) {
                ::cosy_abi::CallShape::Fits => (),
                ::cosy_abi::CallShape::UnknownOp => ::core::panic!(#unknown),
                #(#arity)*
                #(#kind)*
                _ => ::core::panic!("cosy!: this call does not fit the operation's spec"),
            };
        };
        respan(check, span)
    }
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(g) = &tree {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tree = TokenTree::Group(group);
            }
            tree.set_span(span);
            tree
        })
        .collect()
}
