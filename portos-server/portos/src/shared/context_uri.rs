//! The URIs of PortOS's context items as MCP resources. They live here,
//! below the domains, because more than the context domain names them: the
//! brain announces an update of its scope's resource when it captures.

use portos_server::mcp::ContextScope;

/// The prefix of a context scope's resource; the scope's name follows.
pub const SCOPE_PREFIX: &str = "portos-context://scope/";
/// The prefix of one context item's resource; its percent-encoded ref follows.
pub const ITEM_PREFIX: &str = "portos-context://item/";

/// The resource of one context scope.
pub fn scope_uri(scope: ContextScope) -> String {
    format!("{SCOPE_PREFIX}{}", scope.as_str())
}
