//! Everything outside the subset fails to compile, at its span, saying
//! what to write instead: one small program per construct under
//! `tests/ui/`, each with the exact compiler output it must give
//! (`*.stderr`). After changing a message, regenerate them with
//! `TRYBUILD=overwrite cargo test -p cosy-macro --test compile_fail` and
//! read the diff.

#[test]
fn unsupported_constructs_are_compile_errors() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
