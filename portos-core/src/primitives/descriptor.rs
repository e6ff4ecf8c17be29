//! What `#[portos_resource]` and `#[portos_prompt]` emit: const data and
//! function pointers in the link-time lists, like a tool's descriptor.

use std::collections::BTreeMap;
use std::fmt;

use futures::future::BoxFuture;
use serde_json::Value;

use super::content::{Content, ResourceBody, ResourceContents, Role};
use crate::context::{StateNeed, ToolContext};
use crate::contract::SourceLocation;
use crate::descriptor::ArgumentError;

/// One resource (`uri`) or resource template (`uri` with `{variables}`),
/// as declared.
pub struct ResourceDescriptor {
    /// The resource's URI, or its RFC 6570 level-1 template.
    pub uri: &'static str,
    /// `uri` is a template (`uri_template = "..."`).
    pub template: bool,
    /// The resource's name (`name`; by default the adapter's function name).
    pub name: &'static str,
    /// A title for people (`title`), when declared.
    pub title: Option<&'static str>,
    /// `description`, else the adapter's doc comment.
    pub description: &'static str,
    /// `mime_type`: the type of what a read answers, when declared.
    pub mime_type: Option<&'static str>,
    /// The application's scopes and capabilities, by name (resolved when
    /// the registry is built).
    pub scopes: &'static [&'static str],
    /// The names of the capabilities a caller needs to see the resource.
    pub capabilities: &'static [&'static str],
    /// A template's variables as an object schema (an empty object's for a
    /// fixed resource).
    pub input_schema: fn() -> Value,
    /// Turns the variables (schema-valid) into a ready-to-run read.
    pub bind: fn(Value) -> Result<Bound<ResourceOutcome>, ArgumentError>,
    /// `complete(variable = function)`: the template variables with suggested
    /// values.
    pub completions: &'static [Completer],
    /// The server state the adapter takes (its `Shared<T>` parameters): the
    /// registry refuses to build without each.
    pub state: &'static [StateNeed],
    /// Where the `#[portos_resource]` attribute was written.
    pub location: SourceLocation,
}

/// One prompt, as declared.
pub struct PromptDescriptor {
    /// The prompt's name (`name`; by default the adapter's function name).
    pub name: &'static str,
    /// A title for people (`title`), when declared.
    pub title: Option<&'static str>,
    /// `description`, else the adapter's doc comment.
    pub description: &'static str,
    /// The names of the scopes that may get the prompt (resolved when the
    /// registry is built).
    pub scopes: &'static [&'static str],
    /// The names of the capabilities a caller needs to see the prompt.
    pub capabilities: &'static [&'static str],
    /// The arguments as an object schema of strings: each property is an
    /// argument, its description the argument's, `required` the required.
    pub input_schema: fn() -> Value,
    /// Turns the arguments (schema-valid) into a ready-to-render prompt.
    pub bind: fn(Value) -> Result<Bound<PromptMessages>, ArgumentError>,
    /// `complete(argument = function)`: the arguments with suggested values.
    pub completions: &'static [Completer],
    /// The server state the adapter takes (its `Shared<T>` parameters): the
    /// registry refuses to build without each.
    pub state: &'static [StateNeed],
    /// Where the `#[portos_prompt]` attribute was written.
    pub location: SourceLocation,
}

impl fmt::Debug for ResourceDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceDescriptor")
            .field("uri", &self.uri)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for PromptDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptDescriptor")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Suggests values for one argument of a prompt or variable of a template
/// (`complete(argument = function)` in the attribute).
#[derive(Clone, Copy)]
pub struct Completer {
    /// The argument or variable it completes.
    pub argument: &'static str,
    /// The completer: `async fn(&ToolContext, CompletionRequest) -> Vec<String>`,
    /// wrapped.
    pub complete: fn(ToolContext, CompletionRequest) -> BoxFuture<'static, Vec<String>>,
}

impl fmt::Debug for Completer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Completer")
            .field("argument", &self.argument)
            .finish_non_exhaustive()
    }
}

/// What a completer is asked: the argument, what the person typed so far,
/// and the arguments already chosen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompletionRequest {
    /// The argument being completed.
    pub argument: String,
    /// What has been typed for it so far.
    pub value: String,
    /// The other arguments already chosen, by name.
    pub context: BTreeMap<String, String>,
}

type Runner<T> = Box<dyn FnOnce(ToolContext) -> BoxFuture<'static, Result<T, String>> + Send>;

/// Arguments read into the adapter's input type, ready to run.
pub struct Bound<T> {
    run: Runner<T>,
}

impl<T> Bound<T> {
    /// A read or rendering that hands `run` the context.
    pub fn new<F>(run: F) -> Bound<T>
    where
        F: FnOnce(ToolContext) -> BoxFuture<'static, Result<T, String>> + Send + 'static,
    {
        Bound { run: Box::new(run) }
    }

    /// Runs the adapter with `ctx`.
    pub fn run(self, ctx: ToolContext) -> BoxFuture<'static, Result<T, String>> {
        (self.run)(ctx)
    }
}

impl<T> fmt::Debug for Bound<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bound").finish_non_exhaustive()
    }
}

/// What a resource adapter answers: one body (the registry gives it the
/// URI read and the declared MIME type), or contents it wrote whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceOutcome {
    /// One body at the URI read, with the declared MIME type.
    Body(ResourceBody),
    /// Contents the adapter wrote whole, each with its own URI.
    Contents(Vec<ResourceContents>),
}

impl From<ResourceBody> for ResourceOutcome {
    fn from(body: ResourceBody) -> ResourceOutcome {
        ResourceOutcome::Body(body)
    }
}

/// Text.
impl From<String> for ResourceOutcome {
    fn from(text: String) -> ResourceOutcome {
        ResourceOutcome::Body(ResourceBody::Text(text))
    }
}

impl From<ResourceContents> for ResourceOutcome {
    fn from(contents: ResourceContents) -> ResourceOutcome {
        ResourceOutcome::Contents(vec![contents])
    }
}

impl From<Vec<ResourceContents>> for ResourceOutcome {
    fn from(contents: Vec<ResourceContents>) -> ResourceOutcome {
        ResourceOutcome::Contents(contents)
    }
}

/// What `prompts/get` answers: the messages, and optionally a description
/// of this rendering.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptMessages {
    /// `description` of this rendering, when the adapter gives one.
    pub description: Option<String>,
    /// `messages`, in order.
    pub messages: Vec<PromptMessage>,
}

impl From<Vec<PromptMessage>> for PromptMessages {
    fn from(messages: Vec<PromptMessage>) -> PromptMessages {
        PromptMessages {
            description: None,
            messages,
        }
    }
}

/// One message of a prompt: who speaks it and what it says.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PromptMessage {
    /// `role`: `user` or `assistant`.
    pub role: Role,
    /// `content`: one content item.
    pub content: Content,
}

impl PromptMessage {
    /// A message the user speaks.
    pub fn user(content: Content) -> PromptMessage {
        PromptMessage {
            role: Role::User,
            content,
        }
    }

    /// A message the assistant speaks.
    pub fn assistant(content: Content) -> PromptMessage {
        PromptMessage {
            role: Role::Assistant,
            content,
        }
    }
}
