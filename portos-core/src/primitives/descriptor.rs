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
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub mime_type: Option<&'static str>,
    /// The application's scopes and capabilities, by name (resolved when
    /// the registry is built).
    pub scopes: &'static [&'static str],
    pub capabilities: &'static [&'static str],
    /// A template's variables as an object schema (an empty object's for a
    /// fixed resource).
    pub input_schema: fn() -> Value,
    /// Turns the variables (schema-valid) into a ready-to-run read.
    pub bind: fn(Value) -> Result<Bound<ResourceOutcome>, ArgumentError>,
    pub completions: &'static [Completer],
    pub state: &'static [StateNeed],
    pub location: SourceLocation,
}

/// One prompt, as declared.
pub struct PromptDescriptor {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub scopes: &'static [&'static str],
    pub capabilities: &'static [&'static str],
    /// The arguments as an object schema of strings: each property is an
    /// argument, its description the argument's, `required` the required.
    pub input_schema: fn() -> Value,
    pub bind: fn(Value) -> Result<Bound<PromptMessages>, ArgumentError>,
    pub completions: &'static [Completer],
    pub state: &'static [StateNeed],
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
    pub argument: &'static str,
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
    pub argument: String,
    pub value: String,
    pub context: BTreeMap<String, String>,
}

type Runner<T> = Box<dyn FnOnce(ToolContext) -> BoxFuture<'static, Result<T, String>> + Send>;

/// Arguments read into the adapter's input type, ready to run.
pub struct Bound<T> {
    run: Runner<T>,
}

impl<T> Bound<T> {
    pub fn new<F>(run: F) -> Bound<T>
    where
        F: FnOnce(ToolContext) -> BoxFuture<'static, Result<T, String>> + Send + 'static,
    {
        Bound { run: Box::new(run) }
    }

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
    Body(ResourceBody),
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
    pub description: Option<String>,
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

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PromptMessage {
    pub role: Role,
    pub content: Content,
}

impl PromptMessage {
    pub fn user(content: Content) -> PromptMessage {
        PromptMessage {
            role: Role::User,
            content,
        }
    }

    pub fn assistant(content: Content) -> PromptMessage {
        PromptMessage {
            role: Role::Assistant,
            content,
        }
    }
}
