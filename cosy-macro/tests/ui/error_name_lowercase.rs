use cosy_macro::cosy;

fn main() {
    let _ = cosy!(cosy_abi::memfs::OPS => || {
        let name = buf(0, 0, 8);
        let fd = open(name, 0, 0);
        if is_err(fd, 2) {
            return 1;
        }
        0
    });
}
