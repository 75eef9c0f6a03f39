//! The network server's constants from the manifest, and
//! `cfg(clients_apart)` when some other task runs on another CPU than the
//! network server: only then can a client fill a ring while the server
//! polls, so only then does the server spin over its rings before it
//! sleeps (`rings::SPIN`).

fn main() {
    conflux_manifest::build_script_main();
    conflux_manifest::cfg_when_apart("clients_apart", "net", None);
}
