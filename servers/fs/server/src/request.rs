//! One request, decoded: the shared Cosy request shape
//! (`conflux-cosy-ipc`: labels, words counted against the register file),
//! read from a message once, with the file server's op table. Words that
//! came in registers are read where they are; a long request is read
//! once from the IPC buffer. A request with more words than its kind
//! takes is refused whole (`TooManyWords`), never cut to fit.

use conflux_fs_protocol::ipc::BufArg;
pub use conflux_fs_protocol::ipc::{Request, Words};
use conflux_fs_protocol::{ops, FsError};
use conflux_userlib::ipc::{long_word, Message};

/// The words of `msg`: in place when its registers hold them all, else
/// read into `long` (registers, then the IPC buffer); `TooManyWords` past
/// what any request takes.
pub fn words<'m>(msg: &'m Message, long: &'m mut Option<Words>) -> Result<&'m [u64], FsError> {
    if let Some(held) = msg.words.get(..msg.len) {
        return Ok(held);
    }
    let read = Words::new(msg.len, |i| {
        msg.words.get(i).copied().unwrap_or_else(|| long_word(i))
    })
    .map_err(|_| FsError::TooManyWords)?;
    Ok(long.insert(read).from(0))
}

/// The words from `i` on (none past the end).
pub fn after(words: &[u64], i: usize) -> &[u64] {
    words.get(i..).unwrap_or(&[])
}

/// The most words `request` takes with the file server's op table.
pub fn max_words(request: &Request) -> usize {
    request.max_words(|op| ops::TABLE.get(op).map(|s| s.args.len()))
}

/// A buffer operand's word as (region, offset, length).
pub fn buf_operand(word: u64) -> (usize, usize, usize) {
    let b = BufArg::unpack(word);
    (usize::from(b.region), b.offset as usize, b.len as usize)
}
