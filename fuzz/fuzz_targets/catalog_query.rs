//! The strict catalog query (docs/reference.md#catalog-query) on any query
//! string.
#![no_main]

use libfuzzer_sys::fuzz_target;
use portos_core::CatalogQuery;

fuzz_target!(|data: &[u8]| {
    let pairs: Vec<_> = form_urlencoded::parse(data).collect();
    let _ = CatalogQuery::parse(pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref())));
});
