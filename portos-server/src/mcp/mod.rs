//! Agent Tools MCP (docs/reference.md#agent-tools): the settings, strict
//! JSON-RPC, the MCP methods, the granted semantic tools and the application's
//! context tools, served over Streamable HTTP (`http/agent_context.rs`) and
//! over stdio (`--mcp-stdio`).

pub mod config;
pub mod context_tools;
pub mod jsonrpc;
pub mod modern;
pub mod server;
pub mod stdio;
pub mod tasks;
pub mod tasks_2025;

pub use config::{AgentContextCache, AgentContextConfig};
pub use context_tools::{ContextTools, NoContextTools, Outcome, OutcomeFuture};
pub use server::{CallMeta, CallOutcome, ConfigReads, McpServer};
