//! A client task of the Cosy benchmark's multi-process dbsim runs: the
//! loop is `cosybench_core::client`'s (the manifest builds one task per
//! crate, so each client process is a crate of its own, this file alone).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use cosybench_core::client::{main as serve, ClientCaps};

conflux_userlib::entry!(main);

fn main() {
    serve(ClientCaps {
        fs: conflux_fs_client::manifest_caps!(),
        data: (config::caps::FS_DATA, config::caps::FS_DATA_ADDR),
        coord: config::caps::COORD,
    })
}
