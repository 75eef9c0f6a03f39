use cosy_macro::cosy;

fn main() {
    let _ = cosy!(cosy_abi::memfs::OPS => |x| {
        if (x as u32) < 3 {
            return 1;
        }
        0
    });
}
