//! What Agent Tools MCP serves, below the transport: its settings (whether
//! it answers, its profile and scopes, the agent's grants) and the
//! application's context tools. The MCP server (`crate::mcp`) reads these;
//! the grants and the application state hold them without knowing MCP.

pub(crate) mod config;
pub(crate) mod context_tools;
pub(crate) mod request_state;
pub(crate) mod session;

pub(crate) use config::AgentContextCache;
pub use config::AgentContextConfig;
pub use context_tools::{ContextTools, NoContextTools, Outcome, OutcomeFuture};
