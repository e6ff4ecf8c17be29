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

/// How reading a context resource ended: its contents, or why not (the
/// text of the JSON-RPC error; a resource this configuration does not show
/// is not found, like any other).
pub type ResourceFuture<'a> = Pin<
    Box<dyn Future<Output = Result<Vec<portos_core::ResourceContents>, ResourceMiss>> + Send + 'a>,
>;

/// Why a context resource was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceMiss {
    /// Nothing at that URI the configuration shows.
    NotFound,
    /// The source could not answer now.
    Unavailable(String),
}

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

    /// Whether these context items can be read as MCP resources (the
    /// server then declares the `resources` capability).
    fn offers_resources(&self) -> bool {
        false
    }

    /// The context resources this configuration shows (`resources/list`
    /// entries), listed before the linked ones.
    fn resources(&self, _config: &AgentContextConfig) -> Vec<Value> {
        Vec::new()
    }

    /// The resource templates context items are read through
    /// (`resources/templates/list` entries).
    fn resource_templates(&self, _config: &AgentContextConfig) -> Vec<Value> {
        Vec::new()
    }

    /// Reads `uri` when it is one of these resources (`None`: not theirs,
    /// the linked resources answer), with the same configuration,
    /// redaction and limits as the context tools.
    fn read_resource<'a>(
        &'a self,
        _store: &'a Store,
        _uri: &'a str,
        _config: &'a AgentContextConfig,
    ) -> Option<ResourceFuture<'a>> {
        None
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
