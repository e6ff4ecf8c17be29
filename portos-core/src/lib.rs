//! The PortOS unified tool contract and its governed registry.
//!
//! One attribute, [`portos_tool`], on an async adapter function is the whole
//! definition of a tool: its JSON Schemas, its policy, its OpenAI / Anthropic
//! / MCP projections and its registration in a link-time list. The
//! [`Registry`] is built once from that list and is the one path every caller
//! (HTTP, MCP, Persistent Mind, voice) takes to a tool.
//!
//! ```
//! use portos_core::{portos_tool, AdapterError, ToolContext};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! // The application's words: what its tools may require, and who calls.
//! portos_core::vocabulary! {
//!     capabilities {
//!         /// Read the shelf.
//!         READ_BOOKS = "readBooks",
//!     }
//!     scopes {
//!         /// Coding agents over MCP, with the grants the owner gives them.
//!         #[grants]
//!         #[transport(mcp)]
//!         ASSISTANT = "assistant",
//!         /// People over HTTP: writes need a signed-in caller.
//!         #[signed_in]
//!         #[transport(http)]
//!         READER = "reader",
//!     }
//! }
//!
//! #[derive(Deserialize, Serialize, JsonSchema)]
//! #[serde(deny_unknown_fields)]
//! struct EchoArgs {
//!     text: String,
//! }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Echoed {
//!     ok: bool,
//!     summary: String,
//! }
//!
//! /// Repeat the text back.
//! #[portos_tool(
//!     name = "demo.echo",
//!     scopes = ["assistant", "reader"],
//!     capabilities = ["readBooks"],
//!     side_effect = "read",
//! )]
//! async fn echo(ctx: &ToolContext, args: EchoArgs) -> Result<Echoed, AdapterError> {
//!     Ok(Echoed { ok: true, summary: format!("{} said {}", ctx.request_id(), args.text) })
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use portos_core::{Authority, Registry, ToolCall};
//! let registry = Registry::builder().build().expect("tools are valid");
//! let call = ToolCall::parse(&serde_json::json!({
//!     "requestId": "doc-1", "name": "demo_echo", "arguments": {"text": "hi"}
//! })).expect("a valid envelope");
//! let result = registry.call(&Authority::of(READER), call).await.expect("allowed");
//! assert_eq!(result.name, "demo.echo");
//! assert_eq!(result.result.unwrap()["summary"], "doc-1 said hi");
//! # }
//! ```
//!
//! # Keys of `#[portos_tool]`
//!
//! | key | meaning | default |
//! |---|---|---|
//! | `name` | canonical name, `[A-Za-z0-9._-]{1,100}` | required |
//! | `version` | contract schema version | `1` (the only one) |
//! | `description` | catalog description | the doc comment |
//! | `provider_name` | name in OpenAI/Anthropic/MCP, `[a-zA-Z0-9_-]{1,64}` | `.` and `-` → `_` |
//! | `aliases` | extra callable names | `[provider_name]` |
//! | `scopes` | who may call it: scopes of the application's vocabulary | required |
//! | `capabilities` | the grants it requires: capabilities of the application's vocabulary | none (a tool that is not a read must name one, or `unguarded`) |
//! | `side_effect` | `read`, `write`, `supervised-write`, `destructive` | required |
//! | `idempotent` | replays are harmless | `true` for reads |
//! | `async` | the call queues work | `false` |
//! | `confirmation` | `none`, `capability-grant` | `none` for reads, else `capability-grant` |
//! | `open_world` | reaches outside this machine (MCP `openWorldHint`) | `false` (always on when it requires an `#[open_world]` capability) |
//! | `intent_group` | the application's intent group that lists it (`[a-z0-9_-]{1,64}`; see [`catalog::IntentConfig`]) | none: always listed |
//! | `suppress_on_form_fill` | hidden when the intent fills a form | `false` |
//! | `not_strict` | why the input cannot be projected to the strict provider formats (`openai-strict`, `anthropic-strict`, `gemini`) without losing a rule that matters; they then offer it unconstrained (see [`schema::strict`]) | none: the registry build refuses such a tool |
//! | `unguarded` | why a tool that is not a read requires no capability, so any principal of its scopes may run it (shown in the catalog's policy) | none: such a tool is a compile error |
//! | `requires_client` | what the caller must be able to answer (`"elicitation"`, `"sampling"`, `"roots"`) or do (`"tasks"`: follow a `long_running` tool's job): MCP refuses a client that did not declare it (-32021) | none |
//! | `ask_first` | on a `long_running` tool, `async fn(&ToolContext[, &Input]) -> Result<(), InputError>`: the questions asked in the call before its job begins | none |
//! | `crate` | the path of portos-core, for a crate that re-exports it (`crate = my_sdk::portos_core`) | `::portos_core` |
//!
//! The adapter takes, in any order, an optional `&ToolContext`, at most one
//! input type (a struct or enum that is a JSON object, `Deserialize +
//! Serialize + JsonSchema`) and the server state it needs, each as a
//! [`Shared<T>`](Shared) parameter (`store: Shared<Store>`; `T: Send + Sync +
//! 'static`; the registry refuses to build without a value of each), and
//! returns `Result<Output, Error>` where `Output: Serialize + JsonSchema`
//! and `Error: Display`. An `Err` becomes a failed result.
//!
//! # The vocabulary
//!
//! The framework names no capability and no scope: an application declares
//! its own once with [`vocabulary!`], each word a typed constant
//! (`READ_BOOKS: Capability`, `READER: Scope`) with a doc comment. A
//! capability may be `#[open_world]` (holding it means reaching other
//! machines). Each scope says how its principal is guarded: `#[grants]`
//! (every capability) or `#[grants(A, B)]` (a principal holding grants;
//! the list is its grants object's keys, in order), `#[signed_in]` (a
//! person: writes need a signed-in caller) or `#[trusted]` (an in-process
//! caller the application trusts), and at most one scope each speaks for
//! the serving runtime's `#[transport(http)]` and `#[transport(mcp)]`.
//! An optional third section, `context { ... }`, names the kinds of
//! context item the application's Agent Tools context tools serve (typed
//! `ContextScope` constants; `#[default]` on those an agent reads until the
//! owner chooses). A crate that re-exports portos-core starts the
//! declaration with `crate = my_sdk::portos_core;`.
//!
//! Tools name these words as strings, the words of the contract's wire
//! format (`capabilities = ["readBooks"]`), and the compiler checks each
//! against the vocabulary at the root of the tool's crate: a word it does
//! not declare is a compile error under the word, listing the declared
//! ones. A crate whose vocabulary another crate declares names it once at
//! its root with [`use_vocabulary!`]. The registry build checks again that
//! the vocabulary linked into the binary declares every word, for tools
//! compiled against another one.
//!
//! # Resources and prompts
//!
//! MCP's other primitives are declared the same way and governed by the
//! same words: [`portos_resource`] on an adapter that reads a resource
//! (`uri = "notes://today"`) or a family of them (`uri_template =
//! "notes://day/{day}"`, its variables read into the input struct, one
//! `String` field each), and [`portos_prompt`] on an adapter that renders a
//! prompt's messages from its arguments (the input struct's fields, each a
//! string). A caller lists, reads and gets only what its scope and grants
//! would let it call; anything else is not found. Both take `name`
//! (default: the function's name), `title`, `description` (default: the
//! doc comment), `scopes` (required), `capabilities`, `complete(argument =
//! function)` (an `async fn(&ToolContext, CompletionRequest) -> Vec<String>`
//! suggesting values) and `crate`; a resource also takes `mime_type`. A
//! resource answers a `String`, a [`ResourceBody`], a [`ResourceContents`]
//! or a `Vec` of them; a prompt a `Vec<`[`PromptMessage`]`>` or
//! [`PromptMessages`]. A tool whose output is [`ToolContent`] answers its
//! content items (images, audio, embedded resources, links) as MCP
//! content. See [`primitives`].
//!
//! ```standalone_crate
//! use portos_core::{portos_prompt, portos_resource, AdapterError, Content, PromptMessage};
//! # portos_core::vocabulary! {
//! #     capabilities { /// Read notes.
//! #         READ_NOTES = "readNotes", }
//! #     scopes { /// Agents.
//! #         #[grants] #[transport(mcp)] AGENT = "agent", }
//! # }
//!
//! /// Today's note.
//! #[portos_resource(uri = "notes://today", mime_type = "text/markdown",
//!     scopes = ["agent"], capabilities = ["readNotes"])]
//! async fn today() -> Result<String, AdapterError> {
//!     Ok("# Today".to_owned())
//! }
//!
//! #[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
//! struct Topic {
//!     /// What to summarize.
//!     topic: String,
//! }
//!
//! /// Summarize a topic.
//! #[portos_prompt(scopes = ["agent"], capabilities = ["readNotes"])]
//! async fn summarize(args: Topic) -> Result<Vec<PromptMessage>, AdapterError> {
//!     Ok(vec![PromptMessage::user(Content::text(format!("Summarize {}.", args.topic)))])
//! }
//! # fn main() {}
//! ```
//!
//! # Linking tool crates
//!
//! A crate that is only a Cargo dependency contributes nothing to the
//! link-time list: name it from the binary (and from each integration test)
//! with [`link_tools!`]. The lists are read through [`linked`]; by default
//! they are linkme's link sections, and the `inventory-collector` feature
//! collects them with the `inventory` crate instead, for targets linkme
//! does not support.
//!
//! # Layers
//!
//! `contract` (the wire vocabulary) → `descriptor` and `registry` (build,
//! resolve, authorize, call) → `catalog` (filtering, formats, the rendered
//! entries and ETag memo, above the registry) → `inventory` (routes, events
//! and their documents). Facts of one application (its tool order, its
//! intent groups, its paths, its document titles) are configuration:
//! [`RegistryBuilder::order`], [`catalog::IntentConfig`],
//! [`inventory::Classifier`], [`inventory::OpenApiOptions`],
//! [`inventory::AsyncApiOptions`].

#![warn(missing_docs, unreachable_pub)]

mod adapter;
pub mod canonical_json;
pub mod catalog;
mod context;
pub mod contract;
mod declared;
mod descriptor;
pub mod inventory;
pub mod linked;
pub mod primitives;
pub mod registry;
pub mod schema;
pub mod telemetry;

pub use adapter::{AdapterError, AdapterReturn, ToolInput, ToolOutput};
pub use catalog::{
    Catalog, CatalogBuildError, CatalogFormat, CatalogQuery, Catalogs, IntentConfig, IntentFilter,
    IntentGroup, IntentGroups,
};
pub use context::{
    Authority, CallChannel, Elicited, InputError, InputKind, InputRequest, InputSource, LogLevel,
    LogSink, MissingState, Progress, ProgressSink, ServerState, Shared, StateMap, StateNeed,
    ToolContext,
};
pub use contract::{
    CallAnswer, Capabilities, Capability, CapabilityTerm, CatalogScope, Confirmation, ContextScope,
    ContextTerm, ErrorCode, Guard, OutputJson, Policy, Scope, ScopeTerm, SideEffect, ToolCall,
    ToolError, ToolResult, ToolState, Transport, Vocabulary,
};
pub use descriptor::{
    AdapterOutcome, ArgumentError, BoundCall, IntentRule, PolicyDecl, SourceLocation,
    ToolDescriptor,
};
/// The linkme slice of every tool; prefer [`linked::tools`], which every
/// registration back end has.
#[cfg(not(feature = "inventory-collector"))]
pub use linked::TOOLS;
pub use portos_macros::{portos_event, portos_prompt, portos_resource, portos_tool, vocabulary};
pub use primitives::{
    Content, PromptMessage, PromptMessages, ResourceBody, ResourceContents, Role, ToolContent,
};
pub use registry::{
    CallBudget, CallEnd, CallLedger, CallMeter, CallReport, Claim, Claimed, ClaimedCall,
    MeteredTool, PreparedCall, PreparedRun, Registry, RegistryBuildError, RegistryBuilder,
    RegistryLimits, ResultObserver,
};

/// Names the vocabulary a crate's tools use when another crate declares it:
/// `portos_core::use_vocabulary!(my_words);` at the crate's root.
///
/// The compiler checks every capability and scope a `#[portos_tool]`,
/// `#[portos_resource]` or `#[portos_prompt]` names against the vocabulary
/// at the root of its crate: the crate that invokes [`vocabulary!`] has it
/// there already; any other crate with tools names it once with this macro
/// (which also links the vocabulary's crate). The argument is the path of
/// the module that invoked `vocabulary!` (a crate's name, or
/// `crate::words` for a module of this crate).
///
/// ```
/// mod words {
///     portos_core::vocabulary! {
///         capabilities {
///             /// Read the shelf.
///             READ_BOOKS = "readBooks",
///         }
///         scopes {
///             /// People over HTTP.
///             #[signed_in]
///             #[transport(http)]
///             READER = "reader",
///         }
///     }
/// }
/// portos_core::use_vocabulary!(crate::words);
///
/// /// Count the shelf.
/// #[portos_core::portos_tool(name = "shelf.count", scopes = ["reader"],
///     capabilities = ["readBooks"], side_effect = "read")]
/// async fn count() -> Result<u32, portos_core::AdapterError> {
///     Ok(3)
/// }
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! use_vocabulary {
    ($($path:tt)+) => {
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use $($path)+::__portos_vocabulary;
    };
}

/// Names tool crates so the linker keeps their tools:
/// `portos_core::link_tools!(my_tools, more_tools);`
#[macro_export]
macro_rules! link_tools {
    ($($krate:ident),+ $(,)?) => {
        $(
            #[allow(unused_imports)]
            use $krate as _;
        )+
    };
}

/// Used by the code the attributes generate; not a public API.
///
/// Versioned: the macros of one release emit only paths under `v1`, so a
/// later layout can live beside it (`v2`) while code generated by older
/// macros still compiles.
#[doc(hidden)]
pub mod __private {
    pub mod v1 {
        /// `register!(TOOLS, NAME: Type = value)`: one entry into a list,
        /// through the back end portos-core was built with.
        pub use crate::__portos_register as register;
        pub use crate::adapter::{
            InputFallback, InputProbe, Probe, ReturnFallback, ReturnProbe, StateFallback,
            StateProbe, assert_adapter_return, assert_tool_error, assert_tool_input,
            assert_tool_output, empty_input_schema, parse_empty_input,
        };
        pub use crate::context::{InputError, InputKind, StateNeed, ToolContext};
        #[cfg(not(feature = "inventory-collector"))]
        pub use crate::contract::words::VOCABULARIES;
        pub use crate::contract::{
            Capability, CapabilityTerm, Confirmation, ContextScope, ContextTerm, Guard, Scope,
            ScopeTerm, SideEffect, SourceLocation, Transport, Vocabulary,
        };
        pub use crate::descriptor::{
            Access, ArgumentError, BoundCall, Direction, ErrorSpec, EventSpec, HttpMethod,
            HttpToolEffect, HttpToolSpec, IntentRule, PolicyDecl, PortosEvent, RouteEffect,
            RouteEntry, RouteIo, RouteSpec, SchemaFn, ToolDescriptor, ToolPrivacy,
        };
        #[cfg(not(feature = "inventory-collector"))]
        pub use crate::linked::{EVENTS, PROMPTS, RESOURCES, ROUTES, TOOLS};
        pub use crate::primitives::__private::*;
        pub use crate::primitives::{
            Bound, Completer, CompletionRequest, PromptDescriptor, PromptMessages,
            ResourceDescriptor, ResourceOutcome,
        };
        pub use futures::future::BoxFuture;
        #[cfg(feature = "inventory-collector")]
        pub use inventory;
        pub use linkme;
        pub use schemars;
        pub use serde_json;
    }
}
