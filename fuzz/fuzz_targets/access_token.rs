//! Remote mode's access-token validator (docs/remote.md) on any text: every
//! input is refused, never a panic. The keys are the fixed RSA test key's,
//! whose tokens only the tests sign, so an accepted input would be a
//! forgery; the corpus starts from tokens it signed (and mangled ones).
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use portos_server::remote::jwt::{self, Expectations};
use portos_server::remote::keys::KeySet;
use portos_server::testing::issuer::TestKey;

static KEYS: LazyLock<KeySet> = LazyLock::new(|| TestKey::rs256("fuzz").set());

fuzz_target!(|data: &[u8]| {
    let Ok(token) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(unverified) = jwt::parse(token) else {
        return;
    };
    let Ok(payload) = unverified.verify(&KEYS) else {
        return;
    };
    let expect = Expectations {
        issuer: "https://as.example",
        audience: "https://tools.example/mcp",
        now: 1_800_000_000,
        leeway: 60,
    };
    // Only a token the RSA test key signed gets here; the seeds are such
    // tokens with claims that fail, so any accepted one is a finding.
    assert!(jwt::check_claims(&payload, &expect).is_err(), "accepted {token}");
});
