use cosy_macro::cosy;

fn main() {
    let _ = cosy!(cosy_abi::memfs::OPS => |x| {
        let mut s = 0;
        for i in (0..x).step_by(0) {
            s += i;
        }
        s
    });
}
