//! Compile errors: what is wrong, at its span, and what to write instead.
//!
//! Every rejection in the crate goes through [`err`], so all messages
//! share one shape: `cosy!: <what> ; <what to write instead>`.

use std::fmt::Display;

use quote::ToTokens;

/// An error spanning `node`.
pub(crate) fn err(node: impl ToTokens, what: impl Display, instead: impl Display) -> syn::Error {
    syn::Error::new_spanned(node, format!("cosy!: {what}; {instead}"))
}

/// An error at `span`.
pub(crate) fn err_at(
    span: proc_macro2::Span,
    what: impl Display,
    instead: impl Display,
) -> syn::Error {
    syn::Error::new(span, format!("cosy!: {what}; {instead}"))
}
