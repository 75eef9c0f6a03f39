//! Through a driver restart (system `crypto-restart`): the driver faults
//! on purpose with one of this client's requests taken and not answered,
//! and init restarts it.

use crate::{fill, session, soft_apply, DST, SRC};
use conflux_crypto_client::{Algorithm, Connection, Direction, Error, Status, IV_LEN};
use conflux_userlib::hostile::Rng;
use conflux_userlib::testing::Checks;

/// Encrypt requests sent, at most; the driver dies at its 12th request.
const REQUESTS: u32 = 40;

pub fn run(link: &mut Connection, c: &mut Checks) {
    let mut rng = Rng(0x5151_7e57);
    let mut key = [0u8; 16];
    fill(&mut key, &mut rng);
    let before = session(link, Algorithm::Cbc, Direction::Encrypt, &key).expect("a session");
    let mut s = session(link, Algorithm::Ctr, Direction::Encrypt, &key).expect("a session");
    let (mut restarted, mut lost, mut wrong, mut good) = (0, 0, 0, 0);
    for n in 0..REQUESTS {
        let iv: [u8; IV_LEN] = core::array::from_fn(|i| n as u8 ^ i as u8);
        fill(&mut link.data()[SRC as usize..][..1024], &mut rng);
        match link.encrypt(s, &iv, SRC, DST, 1024) {
            Ok(()) => {
                let data = link.data();
                let mut want = alloc::vec::Vec::from(&data[SRC as usize..][..1024]);
                soft_apply(Algorithm::Ctr, Direction::Encrypt, &key, &iv, &mut want);
                if data[DST as usize..][..1024] == want[..] {
                    good += 1;
                } else {
                    wrong += 1;
                }
            }
            Err(Error::Refused {
                status: Status::Restarted,
                ..
            }) => restarted += 1,
            Err(Error::Refused {
                status: Status::SessionLost,
                ..
            }) => {
                lost += 1;
                s = session(link, Algorithm::Ctr, Direction::Encrypt, &key).expect("a new session");
            }
            Err(e) => {
                c.that("an encrypt request across the restart", false, e);
                return;
            }
        }
    }
    c.eq(
        "the request in flight when the driver died came back Restarted",
        restarted,
        1,
    );
    c.eq(
        "the session made before the restart answered SessionLost, and was made again",
        lost,
        1,
    );
    c.that(
        "every other request matched the software AES",
        wrong == 0 && good == REQUESTS - 2,
        (good, wrong),
    );
    c.eq(
        "destroying a session made before the restart is SessionLost",
        link.destroy_session(before),
        Err(Error::Refused {
            status: Status::SessionLost,
            detail: 0,
        }),
    );
    c.eq(
        "destroying the new session",
        link.destroy_session(s),
        Ok(()),
    );
}
