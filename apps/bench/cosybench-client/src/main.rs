//! A client task of the Cosy benchmark's multi-process dbsim runs: the
//! loop is `cosybench_core::client`'s. The manifest runs this one crate as
//! every client process (`cosybench-client1`, `2`, `3`); their slots and
//! mappings are alike, so they are compiled in, and each task's own name
//! and index come from its configuration section.
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
