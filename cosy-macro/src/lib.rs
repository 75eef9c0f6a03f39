//! `cosy!`: a block of ordinary Rust compiled into a Cosy compound when the
//! app is compiled, as Cosy-GCC compiled marked C code (FSL-02-01 §2.5).
//!
//! ```
//! use cosy_abi::memfs::{self, O_RDONLY};
//! use cosy_macro::cosy;
//!
//! let len = 32u32;
//! let compound: cosy_abi::Builder = cosy!(memfs::OPS, || {
//!     let name = buf(0, 0, 16);          // bytes 0..16 of region 0
//!     let data = buf(0, 64, len);
//!     let fd = open(name, O_RDONLY, 0);   // memfs::OPEN, checked against memfs::OPS
//!     let mut total = 0;
//!     loop {
//!         let n = read(fd, data, len);
//!         total += n;
//!         if n != len {
//!             break;
//!         }
//!     }
//!     close(fd);
//!     total                              // the exit value
//! });
//! let bytes = compound.build().unwrap(); // ready for the shared compound buffer
//! # assert_eq!(bytes, cosy_abi::examples::read_loop((0, 0, 16), (0, 64, 32)).build().unwrap());
//! ```
//!
//! That is the papers' read loop, and exactly the compound
//! `cosy_abi::examples::read_loop` builds by hand (the tests compare them
//! op for op).
//!
//! # Input
//!
//! `cosy!(TABLE, |params| { #![settings] body })`:
//!
//! - `TABLE` is the service's op table, a path to a `const`
//!   (`memfs::OPS`, `fs_protocol::ops::TABLE`). An operation `read(..)`
//!   is the constant `READ` beside it (`fs_protocol::ops::READ`), as the
//!   `cosy_abi::operations!` list defines them.
//! - Settings: `#![fail_fast]` (stop at the first failing op) and
//!   `#![step_budget(n)]` (the budget to ask for; default 65,536).
//! - `params` are run-time parameters, `r0`, `r1`, ... in order: the server
//!   sets them for each run of a prepared compound
//!   (`Registers::with_params`). `|count, mut seed|`; a type, if written,
//!   is `u64`. Pass exactly that many: the registers after them start at
//!   zero, which `let x = 0` relies on.
//! - The macro evaluates to a `cosy_abi::Builder` holding the compound;
//!   `build()` / `build_into(buf)` give its bytes. Control flow, register
//!   allocation and labels are all done at compile time: the generated
//!   code is a straight list of builder calls. Wrap it in a function to
//!   build it where needed, or build once and keep the bytes.
//!
//! The crate using the macro depends on `cosy-abi` too (the generated code
//! names `::cosy_abi`).
//!
//! # The subset
//!
//! Every compound value is a `u64`; arithmetic wraps and comparisons are
//! unsigned, as the compound's ops are, unless a side is cast `as i64`.
//! A failed op leaves its code negated in its result (cosy-abi §8), so
//! test results with `is_err` / `is_ok`, never `x >= 0` (always true on
//! a `u64`, and refused with that hint).
//!
//! | Rust | becomes |
//! |---|---|
//! | `let x = e;`, `let mut x = e;`, `x = e;`, `x += e;` (all ten `op=`) | a register, computed in place (`x = x * A + B` is `MUL x, x, A; ADD x, x, B`); temporaries are reused |
//! | `let x = 0;` outside any loop | no op: registers start at zero |
//! | `+ - * / % & \| ^ << >>`, `!x` | `ADD`..`SHR`, `XOR x, !0` |
//! | `if c { } else if c { } else { }` | branches; `==` `!=` `<` `<=` `>` `>=`, `&&`, `\|\|`, `!` short-circuit as in Rust |
//! | `if is_err(fd) { }`, `is_ok(fd)`, `is_err(fd, NOT_FOUND)` | whether the op that wrote `fd` failed (a signed `BR` against 0), or failed with that error (`BR EQ` against the code negated); the name is a constant in the `errors` module beside the op table (`fs_protocol::ops::errors::NOT_FOUND`) or one of the executor's (`DIVIDE_BY_ZERO`, `REF_OUT_OF_BOUNDS`, `COUNT_TOO_LARGE`, `NOT_A_BUFFER`, `UNKNOWN_SERVICE_OP_AT_RUN`, `SERVICE_BAD_ERROR`) |
//! | `match open(..) { Ok(fd) => .., Err(NOT_FOUND \| EXISTS) => .., Err(_) => .. }` | branches in arm order: `Ok` a signed test, `Err(NAME)` equalities; `Ok(fd)` binds the result for the arm; the arms must cover every result (`Ok` and `Err(_)`, or `_`) |
//! | `(x as i64) < 0`, `(a as i64) >= (b as i64)` | a signed comparison (`LTS` .. `GES`) |
//! | `while c { }` | a test on entry and one branch back per iteration |
//! | `loop { ...; if c { break; } }` | a do-while: one branch back per iteration |
//! | `loop { }` | a jump back |
//! | `for i in a..b`, `a..=b`, `(a..b).step_by(k)` | Cosy's counted loop: `MOV`, an entry check, one `LOOP` per iteration; the range is read once (a limit the body could change is copied) |
//! | `break`, `continue`, with `'label`s | jumps |
//! | `match x { 1 => .., 2 \| 3 => .., 4..=9 => .., _ => .. }` | `SWITCH` when the values are dense (subtracting the lowest first if it is above 16), else a chain of branches |
//! | `return e;`, the body's last expression | `EXIT` |
//! | `open(name, flags, 0)` | `CALL` of the table's `OPEN`; a statement call drops the result |
//! | `copy(to, from, n)`, `fill(buf, byte, n)`, `memcmp(a, b, n)`, `search(hay, needle, n)`, `crc32c(buf, n, seed)` | the builtin data ops |
//! | `let b = buf(region, offset, len);` or `buf(place)` | a buffer ref into a shared region (`place` a `(u8, u32, u32)` or a `cosy_abi::Place` from an `Arena`) |
//! | `let w = buf_at(region, base, offset, len);` or `buf_at(place, base)` | a ref whose offset moves with the variable `base` (`buf_at(table.first, at)` walks an arena's `Table`, `at += table.stride`) |
//!
//! A name the block does not bind is the app's: an expression made only of
//! the app's names and literals (`O_WRONLY | O_CREAT`, `chunk.2`,
//! `LCG_MUL`) is ordinary Rust, evaluated when the compound is built, and
//! becomes an immediate (literal-only arithmetic is folded as `u64`, so
//! `1 << 40` is not an overflowing `i32`). A buffer's place is always the
//! app's. Builtin names take precedence over a service operation of the
//! same name.
//!
//! # Checked when the app compiles
//!
//! Anything outside the subset is a compile error at its span, saying what
//! to write instead: method calls, closures, macros, `?`,
//! references, indexing, tuples and structs, casts outside comparisons, `if`/`match` as values,
//! comparisons as values, an unsigned comparison with 0 that cannot
//! change its answer (`x >= 0`, `x < 0`), `is_err`/`is_ok` as values,
//! `if let`/`while let`, `for` over anything but a
//! range, match guards and bindings, a match without `_`, `break` with a
//! value, assigning an immutable variable, a `for` counter or the app's
//! variables, a buffer used as a value (and the reverse), more than 32
//! registers. Every service call is checked against the op table by a
//! `const` (`OpTable::check_call`): the wrong number of operands, or a
//! value where the operation takes a buffer, fails to compile at the call;
//! an unknown operation is an unresolved constant at the call. The tests
//! in `tests/ui/` show each message.
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
