//! A saved recipe's definition (docs/reference.md#recipe-definition) on any
//! bytes: the size guard and the parser, then the checks against the live
//! catalog of every PortOS tool in both scopes, accept or refuse and never
//! panic; what is stored of an accepted definition reads back to the same
//! definition.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use portos::domains::recipes::{definition, validate};
use portos_core::Registry;

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Arc<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let store = portos::store::open_in_memory().expect("store");
        let config = portos_server::Config {
            data_dir: std::env::temp_dir(),
            ..portos::config()
        };
        portos::build_registry(config, &portos::Options::default(), &store).expect("registry")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(parsed) = definition::parse(&value) {
        for scope in [portos_words::MIND, portos_words::AGENT] {
            let _ = validate::validate(&parsed, scope, registry());
        }
        let stored = parsed.to_json();
        assert_eq!(definition::parse(&stored).ok().as_ref(), Some(&parsed));
    }
});
