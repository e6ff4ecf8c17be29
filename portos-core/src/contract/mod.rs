//! The wire types of the contract: the application's words (capabilities
//! and scopes), policy, the call and result envelopes, and the error
//! vocabulary.

mod call;
mod capability;
mod context_scope;
mod error;
mod location;
mod names;
mod output;
mod output_watch;
mod policy;
mod result;
mod scope;
pub(crate) mod vocabulary;
pub mod words;

pub use call::{
    BodyRefusal, FieldIssue, REQUEST_ID_MAX_CHARS, ToolCall, ValidationFailure, check_request_id,
    json_type,
};
pub use capability::{Capabilities, Capability};
pub use context_scope::ContextScope;
pub use error::{ErrorCode, ToolError};
pub use location::SourceLocation;
pub use names::{is_callable_name, is_provider_name, provider_name_for};
pub use output::OutputJson;
pub use policy::{Confirmation, Policy, SideEffect};
pub use result::{CallAnswer, ToolResult, ToolState};
pub use scope::{CatalogScope, Scope};
pub(crate) use vocabulary::contract_enum;
pub use words::{CapabilityTerm, ContextTerm, Guard, ScopeTerm, Transport, Vocabulary};

/// `COS_TOOL_SCHEMA_VERSION`: the only call/result/catalog version there is.
pub const SCHEMA_VERSION: u32 = 1;
