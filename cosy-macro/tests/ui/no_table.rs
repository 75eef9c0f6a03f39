use cosy_macro::cosy;

fn main() {
    let _ = cosy!(|x| { x });
}
