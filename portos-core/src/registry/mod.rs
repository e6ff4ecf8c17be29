//! The governed registry: built once from the link-time slice, then every
//! caller's path to a tool (BEHAVIOUR §1).
//!
//! ```text
//! resolve (name | providerName | alias) -> authorize (scope, capabilities, auth)
//!   -> validate (compiled schema, typed input) -> idempotency -> adapter -> normalize
//! ```

mod build;
mod call;
mod fingerprint;
mod idempotency;
mod order;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use build::{RegistryBuildError, RegistryBuilder};
pub use fingerprint::Fingerprint;

use crate::context::StateMap;
use crate::contract::Policy;
use crate::descriptor::ToolDescriptor;
use idempotency::CallStore;

/// Bounds of the process-local idempotency stores (BEHAVIOUR §1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegistryLimits {
    /// Results retained for replay and `GET /calls/:requestId` (FIFO).
    pub max_results: usize,
    /// Fingerprints remembered after their result was evicted.
    pub max_tombstones: usize,
    /// How long a fingerprint is remembered.
    pub retention: Duration,
}

impl Default for RegistryLimits {
    fn default() -> Self {
        RegistryLimits {
            max_results: 500,
            max_tombstones: 10_000,
            retention: Duration::from_secs(24 * 60 * 60),
        }
    }
}

/// One tool, checked and with its schemas computed and its validator compiled.
pub struct RegisteredTool {
    pub descriptor: &'static ToolDescriptor,
    pub policy: Policy,
    /// The closed input schema every projection carries.
    pub input_schema: Value,
    /// The contract's output schema: an open object, because callers receive
    /// the normalized envelope around whatever the adapter returned.
    pub output_schema: Value,
    /// The adapter's own typed output schema, for documentation.
    pub result_schema: Value,
    validator: jsonschema::Validator,
}

impl RegisteredTool {
    pub fn name(&self) -> &'static str {
        self.descriptor.name
    }
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.descriptor.name)
            .finish_non_exhaustive()
    }
}

/// The registry. Cheap to share behind an `Arc`; all methods take `&self`.
pub struct Registry {
    tools: Vec<RegisteredTool>,
    /// Canonical names, provider names and aliases → index in `tools`.
    index: HashMap<&'static str, usize>,
    calls: CallStore,
    state: Arc<StateMap>,
    shutdown: CancellationToken,
}

impl Registry {
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// Every tool, in catalog order.
    pub fn tools(&self) -> &[RegisteredTool] {
        &self.tools
    }

    /// Resolves a canonical name, provider name or alias.
    pub fn resolve(&self, name: &str) -> Option<&RegisteredTool> {
        self.index.get(name).map(|&index| &self.tools[index])
    }

    /// Shared server state handed to adapters.
    pub fn state(&self) -> &Arc<StateMap> {
        &self.state
    }

    /// Signals running adapters that the server is stopping.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.shutdown
    }

    pub fn limits(&self) -> RegistryLimits {
        self.calls.limits()
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}
