use cosy_macro::cosy;

fn main() {
    let _ = cosy!(cosy_abi::memfs::OPS |x| { x });
}
