//! iCalendar parsing (events, dates, recurrence rules) of any text a
//! calendar source may hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use portos::domains::calendar::{ics, recurrence};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = ics::parse(text);
    let _ = recurrence::Rule::parse(text);
    let _ = recurrence::parse_basic_date(text);
    let _ = recurrence::parse_basic_datetime(text);
});
