//! Fuzz target: arbitrary bytes as a request head, then every decision
//! httpd takes from it.
//!
//! Whatever the bytes, parsing must not panic and must consume no more
//! than it was given; a request that parses must then be decided (304,
//! 206, 416, 200) for files of several lengths without a panic, and a
//! part it selects must lie inside the file.
#![no_main]

use conflux_http::cond::Decision;
use conflux_http::date::HttpDate;
use conflux_http::{parse, Parsed};
use libfuzzer_sys::fuzz_target;

const LENGTHS: [u64; 5] = [0, 1, 100, 4096, u64::MAX];
const TIMES: [u64; 3] = [0, 784_111_777, u64::MAX];

fuzz_target!(|data: &[u8]| {
    let Parsed::Complete { request, consumed } = parse(data) else {
        return;
    };
    assert!(consumed <= data.len());
    for len in LENGTHS {
        for modified in TIMES {
            for now in TIMES {
                let d = request.conditions.decide(
                    request.method,
                    HttpDate::from_unix(modified),
                    len,
                    HttpDate::from_unix(now),
                );
                if let Decision::Part { first, last } = d {
                    assert!(first <= last && last < len);
                }
            }
        }
    }
});
