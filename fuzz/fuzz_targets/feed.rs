//! RSS/Atom parsing of any document a feed URL may return.
#![no_main]

use libfuzzer_sys::fuzz_target;
use portos::domains::feeds::parse;

fuzz_target!(|data: &[u8]| {
    let _ = parse::parse(data);
});
