//! The shared setup of the adapter tests: the registry of every linked tool
//! on a real SQLite store in a temporary directory, in a chosen time zone.
//! A test file includes it with `mod support;`.

// Each test file is its own crate and uses only part of this module.
#![allow(dead_code)]

use std::cell::Cell;

use portos::build_registry;
use portos_core::{Authority, Capabilities, Registry, ToolCall, ToolError, ToolResult};
use portos_server::Config;
use portos_server::store::Store;
use serde_json::Value;

pub struct RegistryFixture {
    pub registry: std::sync::Arc<Registry>,
    /// The registry's store (clones share its connection): to seed rows or
    /// look at what a call stored.
    pub store: Store,
    /// The user's time zone the registry was built with.
    pub zone: String,
    /// Kept so the store's directory lives as long as the registry.
    pub dir: tempfile::TempDir,
    /// The authority of [`RegistryFixture::call`].
    authority: Authority,
    /// How many calls were made; each gets the next requestId.
    pub calls: Cell<u32>,
}

impl RegistryFixture {
    pub fn new(zone: &str, authority: Authority) -> RegistryFixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = Config {
            data_dir: dir.path().to_owned(),
            timezone: Some(zone.to_owned()),
            // As every test server: loopback, and nothing off this machine.
            outbound: portos_server::outbound::OutboundPolicy::loopback_only(),
            ..portos::config()
        };
        let store = portos::store::open(dir.path()).expect("store");
        let registry =
            build_registry(config.clone(), &portos::Options::default(), &store).expect("registry");
        RegistryFixture {
            registry,
            store,
            zone: zone.to_owned(),
            dir,
            authority,
            calls: Cell::new(0),
        }
    }

    /// One call with a fresh requestId.
    pub async fn call_as(
        &self,
        authority: Authority,
        name: &str,
        arguments: Value,
    ) -> Result<ToolResult, ToolError> {
        let id = self.calls.get() + 1;
        self.calls.set(id);
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        self.registry
            .call(
                &authority,
                ToolCall::new(format!("t-{id}"), name, arguments),
            )
            .await
    }

    /// One call as the fixture's authority, which must be allowed.
    pub async fn call(&self, name: &str, arguments: Value) -> ToolResult {
        self.call_as(self.authority.clone(), name, arguments)
            .await
            .expect("the call is allowed")
    }
}

/// An agent granted both `readPortos` and `writePortos`.
pub fn read_write() -> Authority {
    portos_words::principal::agent(
        Capabilities::NONE
            .with(portos_words::READ_PORTOS)
            .with(portos_words::WRITE_PORTOS),
    )
}

/// The result object of a call.
pub fn result(r: &ToolResult) -> &Value {
    r.result.as_ref().expect("a result object")
}
