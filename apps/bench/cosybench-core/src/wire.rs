//! Job messages ([`crate::job`]) on the wire: words past the fourth in
//! this task's IPC buffer.

use alloc::vec::Vec;

use conflux_abi::ipc::{MAX_WORDS, REG_WORDS};
use conflux_userlib::ipc::{long_word, set_long_word, Message};

/// A message of `label` carrying `words`: the first four in registers,
/// the rest written to this task's IPC buffer now (send it before the
/// buffer is used again). `None` if there are more than `MAX_WORDS`.
pub fn to_message(label: u32, words: &[u64]) -> Option<Message> {
    if words.len() > MAX_WORDS {
        return None;
    }
    for (i, w) in words.iter().enumerate().skip(REG_WORDS) {
        set_long_word(i, *w);
    }
    Some(Message::new(label, words).with_len(words.len()))
}

/// The words of a message just received (the long ones from this task's
/// IPC buffer, so read them before the next IPC).
pub fn words_of(msg: &Message) -> Vec<u64> {
    let len = msg.len.min(MAX_WORDS);
    (0..len)
        .map(|i| {
            if i < REG_WORDS {
                msg.words[i]
            } else {
                long_word(i)
            }
        })
        .collect()
}
