//! `docs/net.md` quotes the socket limits `limits.rs` sets (the
//! one place they are set); this keeps the document from drifting when a
//! number changes.

use conflux_netcore::limits::{CLIENT_QUOTA, CLIENT_SHARE};

#[test]
fn the_network_document_quotes_the_limits() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../docs/net.md");
    let doc = std::fs::read_to_string(path).expect("docs/net.md is readable");
    // Lines are wrapped anywhere: compare with runs of whitespace as one space.
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    for quoted in [
        format!("`CLIENT_QUOTA` = {CLIENT_QUOTA} sockets"),
        format!("`CLIENT_SHARE` = {CLIENT_SHARE} sockets"),
    ] {
        assert!(
            doc.contains(&quoted),
            "docs/net.md (The network core, Quotas) should say {quoted:?}: update it with limits.rs"
        );
    }
}
