use cosy_macro::cosy;

fn main() {
    let _ = cosy!(cosy_abi::memfs::OPS => || {
        let name = buf(0, 0, 8);
        match open(name, 0, 0) {
            Ok(fd) => {
                close(fd);
            }
            Err(ENOENT) => {}
        }
    });
}
