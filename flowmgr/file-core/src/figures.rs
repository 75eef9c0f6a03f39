//! The file stage's two STATS words (`conflux_flow_stage::Work::figures`).
//! `flowmgr` reads a source's to learn, once it finished, how many
//! buffers the flow carries in all: a file's length in buffers is known
//! only when the file has been read.

/// The source's: buffers made, then 1 once it has read its whole range
/// (every buffer made was sent before it says so).
pub fn source(made: u64, finished: bool) -> [u64; 2] {
    [made, u64::from(finished)]
}

/// The sink's: buffers written, then bytes written.
pub fn sink(buffers: u64, bytes: u64) -> [u64; 2] {
    [buffers, bytes]
}

#[cfg(test)]
mod tests {
    #[test]
    fn words() {
        assert_eq!(super::source(7, false), [7, 0]);
        assert_eq!(super::source(7, true), [7, 1]);
        assert_eq!(super::sink(3, 3072), [3, 3072]);
    }
}
