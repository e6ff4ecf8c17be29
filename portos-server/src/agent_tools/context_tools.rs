//! The application's read-only context tools on Agent Tools MCP. The runtime
//! serves the transport, the settings, the grants and the semantic tools;
//! what an agent may read about the application (its navigation, records,
//! workspaces) only the application knows, so it plugs that in here.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use super::config::AgentContextConfig;
use crate::store::Store;

/// How a context tool call ended, before it becomes an MCP result.
#[derive(Debug)]
pub enum Outcome {
    Output(Value),
    /// The text of an `isError` result.
    Refused(String),
}

/// A boxed future, so the trait stays object-safe.
pub type OutcomeFuture<'a> = Pin<Box<dyn Future<Output = Outcome> + Send + 'a>>;

/// The context tools an application adds to Agent Tools MCP
/// ([`crate::ServerBuilder::context_tools`]).
pub trait ContextTools: Send + Sync + fmt::Debug + 'static {
    /// The MCP tool definitions this configuration advertises, listed before
    /// the semantic tools.
    fn definitions(&self, config: &AgentContextConfig) -> Vec<Value>;

    /// Whether `name` is one of these tools (checked before the registry).
    fn is_context_tool(&self, name: &str) -> bool;

    /// Runs a context tool over the server's store; the runtime already
    /// checked that the name is one of these tools and that the
    /// configuration is active.
    fn call<'a>(
        &'a self,
        store: &'a Store,
        name: &'a str,
        arguments: Option<&'a Value>,
        config: &'a AgentContextConfig,
    ) -> OutcomeFuture<'a>;

    /// The manifest's `limits`.
    fn limits(&self) -> Value {
        Value::Object(serde_json::Map::new())
    }

    /// The manifest's `exclusions`: what these tools never return.
    fn exclusions(&self) -> &[&'static str] {
        &[]
    }

    /// `initialize`'s `instructions` for the agent.
    fn instructions(&self) -> &str {
        NO_CONTEXT_INSTRUCTIONS
    }
}

const NO_CONTEXT_INSTRUCTIONS: &str = "Agent Tools: a local-only MCP server (loopback \
connections only). Semantic tools are listed and callable only when the owner separately \
granted them in Settings → Agent Tools.";

/// The runtime's default: no context tools.
#[derive(Debug, Default)]
pub struct NoContextTools;

impl ContextTools for NoContextTools {
    fn definitions(&self, _config: &AgentContextConfig) -> Vec<Value> {
        Vec::new()
    }

    fn is_context_tool(&self, _name: &str) -> bool {
        false
    }

    fn call<'a>(
        &'a self,
        _store: &'a Store,
        _name: &'a str,
        _arguments: Option<&'a Value>,
        _config: &'a AgentContextConfig,
    ) -> OutcomeFuture<'a> {
        Box::pin(async { Outcome::Refused("Unknown context tool.".to_owned()) })
    }
}

/// The first `max` characters of `text`.
pub fn cap(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => text[..end].to_owned(),
        None => text.to_owned(),
    }
}
