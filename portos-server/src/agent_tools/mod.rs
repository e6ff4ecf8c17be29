//! What Agent Tools MCP serves, below the transport: its settings (whether
//! it answers, its profile and scopes, the agent's grants) and the
//! application's context tools. The MCP server (`crate::mcp`) reads these;
//! the grants and the application state hold them without knowing MCP.

pub mod config;
pub mod context_tools;
pub(crate) mod request_state;
pub mod session;

pub use config::{AgentContextCache, AgentContextConfig};
pub use context_tools::{ContextTools, NoContextTools, Outcome, OutcomeFuture};
