use cosy_macro::cosy;

fn main() {
    let _ = cosy!(cosy_abi::memfs::OPS => |x| {
        let v0 = x + 0;
        let v1 = x + 1;
        let v2 = x + 2;
        let v3 = x + 3;
        let v4 = x + 4;
        let v5 = x + 5;
        let v6 = x + 6;
        let v7 = x + 7;
        let v8 = x + 8;
        let v9 = x + 9;
        let v10 = x + 10;
        let v11 = x + 11;
        let v12 = x + 12;
        let v13 = x + 13;
        let v14 = x + 14;
        let v15 = x + 15;
        let v16 = x + 16;
        let v17 = x + 17;
        let v18 = x + 18;
        let v19 = x + 19;
        let v20 = x + 20;
        let v21 = x + 21;
        let v22 = x + 22;
        let v23 = x + 23;
        let v24 = x + 24;
        let v25 = x + 25;
        let v26 = x + 26;
        let v27 = x + 27;
        let v28 = x + 28;
        let v29 = x + 29;
        let v30 = x + 30;
        let v31 = x + 31;
        x
    });
}
