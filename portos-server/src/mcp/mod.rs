//! Agent Tools MCP (docs/reference.md#agent-tools): the settings, strict
//! JSON-RPC, the MCP methods, the granted semantic tools and the application's
//! context tools, served over Streamable HTTP (`http/agent_context.rs`) and
//! over stdio (`--mcp-stdio`).

pub(crate) mod input;
pub(crate) mod jsonrpc;
pub(crate) mod listen;
pub(crate) mod modern;
pub(crate) mod notify;
pub(crate) mod primitives;
mod reply;
pub(crate) mod request_meta;
pub(crate) mod server;
pub(crate) mod tasks;
pub(crate) mod tasks_2025;
pub(crate) mod telemetry;

// The settings, the context tools and the 2025 sessions live below the
// transport (the application state holds them); here under
// the names MCP code and applications use.
pub(crate) use crate::agent_tools::session;
pub use crate::agent_tools::{
    AgentContextConfig, ContextTools, NoContextTools, Outcome, OutcomeFuture,
    config::{ContextScope, Profile},
    context_tools::{ResourceFuture, ResourceMiss, cap},
};
pub(crate) use crate::agent_tools::{config, context_tools};
pub(crate) use server::{CallMeta, ConfigReads, McpServer};
