use cosy_macro::cosy;

fn main() {
    let outside = 1u64;
    let _ = (outside, cosy!(cosy_abi::memfs::OPS => |x| {
        let name = buf(0, 0, 8);
        let t = (x, 1);
        x
    }));
}
