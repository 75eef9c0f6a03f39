//! PLACEHOLDER DOCS
#![forbid(unsafe_code)]

mod compile;
mod emit;
mod error;
mod input;
mod ir;
mod scope;

use proc_macro::TokenStream;

/// Compiles a block of ordinary Rust into a Cosy compound; see the crate
/// docs.
#[proc_macro]
pub fn cosy(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as input::Input);
    compile::compile(&input)
        .and_then(|program| emit::emit(&input, &program))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
