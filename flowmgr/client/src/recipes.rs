//! Flows an application asks for often, each one request: the paper's
//! "transfer file F to host H over an encrypted connection" is
//! [`file_to_host_encrypted`] and one CREATE.

use conflux_flow_protocol::api::{FlowRequest, RequestError};
use conflux_flow_protocol::stage::{
    Cipher, Direction, Engine, FilePath, Key, Mode, Peer, StageSpec,
};

/// A file, AES-CBC encrypted (on a crypto device where one is free, else
/// in software), sent on one TCP connection to `peer`: `file:PATH →
/// encrypt:cbc:KEY:IV:any → tcp:PEER`, in buffers of `buffer` bytes (a
/// multiple of 16: each buffer is ciphered on its own, so the receiver
/// decrypts the stream `buffer` bytes at a time; the file's last buffer
/// must be whole blocks too).
pub fn file_to_host_encrypted(
    path: FilePath,
    peer: Peer,
    key: Key,
    iv: [u8; 16],
    buffer: u32,
) -> Result<FlowRequest, RequestError> {
    let encrypt = StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction: Direction::Encrypt,
        engine: Engine::Any,
        key,
        iv,
    });
    FlowRequest::new(
        StageSpec::File {
            path,
            offset: 0,
            length: u64::MAX,
        },
        &[encrypt],
        StageSpec::Tcp { peer },
        0,
        0,
        buffer,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transfer_is_one_request_of_three_stages() {
        let peer = Peer {
            addr: [10, 0, 2, 100],
            port: 5800,
        };
        let key = Key::new(&[1; 16]).unwrap();
        let path = FilePath::new("/data/f").unwrap();
        let r = file_to_host_encrypted(path, peer, key, [2; 16], 4096).unwrap();
        let s = r.stages();
        assert_eq!(s.len(), 3);
        assert!(
            matches!(s[0], StageSpec::File { path: p, offset: 0, length: u64::MAX } if p == path)
        );
        assert!(
            matches!(s[1], StageSpec::Cipher(c) if c.direction == Direction::Encrypt && c.engine == Engine::Any)
        );
        assert_eq!(s[2], StageSpec::Tcp { peer });
        assert_eq!(r.buffer, 4096);
    }
}
