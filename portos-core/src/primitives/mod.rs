//! MCP's other server primitives, declared and governed the way tools are:
//! resources and resource templates (`#[portos_resource]`), prompts
//! (`#[portos_prompt]`) and completions of their arguments, plus the
//! content items (text, image, audio, embedded resources, resource links)
//! that tool results, prompt messages and reads carry.
//!
//! Each declaration names the application's scopes and capabilities; the
//! registry resolves them against the linked vocabulary with the tools, and
//! a caller sees (lists, reads, gets, completes) only what its authority
//! would let it call: its scope, its grants, its credential. What it may
//! not see is answered as not found.

mod adapter;
mod catalog;
mod content;
mod descriptor;
mod registry;
pub mod uri_template;

pub use adapter::{PromptOutput, PromptReturn, ResourceOutput, ResourceReturn};
pub use catalog::{PRIMITIVE_CATALOG_TYPE, PrimitiveCatalog};
pub use content::{Content, ResourceBody, ResourceContents, Role, ToolContent};
pub use descriptor::{
    Bound, Completer, CompletionRequest, PromptDescriptor, PromptMessage, PromptMessages,
    ResourceDescriptor, ResourceOutcome,
};
pub use registry::{
    Completion, CompletionRef, MAX_COMPLETION_VALUES, PrimitiveError, Primitives, PromptArgument,
    RegisteredPrompt, RegisteredResource, Visibility,
};
pub use uri_template::UriTemplate;

/// Used by the code the attributes generate.
#[doc(hidden)]
pub mod __private {
    pub use super::adapter::{
        ContentFallback, ContentProbe, PromptReturnFallback, PromptReturnProbe,
        ResourceReturnFallback, ResourceReturnProbe, assert_prompt_return, assert_resource_return,
    };
}
