//! Agent Tools MCP (docs/reference.md#agent-tools): the settings, strict
//! JSON-RPC, the MCP methods, the granted semantic tools and the application's
//! context tools, served over Streamable HTTP (`http/agent_context.rs`) and
//! over stdio (`--mcp-stdio`).

pub mod input;
pub mod jsonrpc;
pub mod listen;
pub mod modern;
pub mod notify;
pub mod primitives;
mod reply;
pub mod request_meta;
pub mod server;
pub mod tasks;
pub mod tasks_2025;
pub mod telemetry;

// The settings, the context tools and the 2025 sessions live below the
// transport (the application state holds them); here under
// the names MCP code and applications use.
pub use crate::agent_tools::context_tools::{self, cap};
pub use crate::agent_tools::session;
pub use crate::agent_tools::{
    AgentContextCache, AgentContextConfig, ContextTools, NoContextTools, Outcome, OutcomeFuture,
    config,
};
pub use server::{CallMeta, CallOutcome, ConfigReads, McpServer};
