//! PortOS's context tools on the runtime's Agent Tools MCP.

pub use portos_server::mcp::*;

pub mod context;
