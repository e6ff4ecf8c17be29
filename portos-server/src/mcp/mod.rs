//! Agent Tools MCP (BEHAVIOUR §5): the settings, strict JSON-RPC, the MCP
//! methods and the five context tools, served over Streamable HTTP
//! (`http/agent_context.rs`) and over stdio (`portos --mcp-stdio`).

pub mod config;
pub mod context;
pub mod jsonrpc;
pub mod server;
pub mod stdio;

pub use config::{AgentContextCache, AgentContextConfig};
pub use server::{CallMeta, ConfigReads, McpServer};
