//! The governed list of resources, resource templates and prompts: built
//! with the tool registry (the same vocabulary, the same server state), and
//! answering only what the caller's authority may see, exactly as a tool
//! call is authorized (its scope, its grants, its credential).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::ResourceContents;
use super::descriptor::{
    Completer, CompletionRequest, PromptDescriptor, PromptMessages, ResourceDescriptor,
    ResourceOutcome,
};
use super::uri_template::UriTemplate;
use crate::context::{Authority, CallChannel, StateMap, ToolContext};
use crate::contract::{Capability, Guard, Scope};
use crate::declared::{check_state, resolve_words};
use crate::schema;

/// At most this many completion values are answered (the protocol's cap).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// Why a read, a prompt or a completion was not answered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrimitiveError {
    /// Nothing of that URI or name, or nothing the caller may see (the two
    /// are not told apart).
    #[error("{0}")]
    NotFound(String),
    /// The arguments (or a template's variables) break their schema.
    #[error("{0}")]
    InvalidArguments(String),
    /// The adapter failed.
    #[error("{0}")]
    Failed(String),
}

/// Who may see a primitive: as for a tool, its scopes and the grants it
/// requires.
#[derive(Clone, Debug)]
pub struct Visibility {
    /// The scopes that may see it.
    pub scopes: Vec<Scope>,
    /// The capabilities a principal that holds grants must hold to see it.
    pub required_capabilities: Vec<Capability>,
}

impl Visibility {
    /// Whether `authority` may see the primitive: its scope is listed, a
    /// principal that holds grants holds every required capability, and the
    /// caller's credential carries them.
    pub fn allows(&self, authority: &Authority) -> bool {
        let granted = match authority.scope.guard() {
            Guard::Grants(_) => authority.capabilities.has_all(&self.required_capabilities),
            _ => true,
        };
        self.scopes.contains(&authority.scope)
            && granted
            && authority.credential_allows(&self.required_capabilities)
    }
}

/// One resource or template, checked.
pub struct RegisteredResource {
    /// The declaration.
    pub descriptor: &'static ResourceDescriptor,
    /// Who may list and read it.
    pub visibility: Visibility,
    template: Option<UriTemplate>,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for RegisteredResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredResource")
            .field("uri", &self.descriptor.uri)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for RegisteredPrompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredPrompt")
            .field("name", &self.descriptor.name)
            .finish_non_exhaustive()
    }
}

impl RegisteredResource {
    /// Its `resources/list` entry (or `resources/templates/list` entry).
    pub fn listing(&self) -> Value {
        let d = self.descriptor;
        let mut entry = Map::new();
        let key = if self.template.is_some() {
            "uriTemplate"
        } else {
            "uri"
        };
        entry.insert(key.to_owned(), json!(d.uri));
        entry.insert("name".to_owned(), json!(d.name));
        if let Some(title) = d.title {
            entry.insert("title".to_owned(), json!(title));
        }
        entry.insert("description".to_owned(), json!(d.description));
        if let Some(mime_type) = d.mime_type {
            entry.insert("mimeType".to_owned(), json!(mime_type));
        }
        Value::Object(entry)
    }

    /// Whether it is a resource template (`uri_template`).
    pub fn is_template(&self) -> bool {
        self.template.is_some()
    }
}

/// One prompt, checked, with its arguments read from its input schema.
pub struct RegisteredPrompt {
    /// The declaration.
    pub descriptor: &'static PromptDescriptor,
    /// Who may list and get it.
    pub visibility: Visibility,
    /// Its arguments, in the input schema's order.
    pub arguments: Vec<PromptArgument>,
    validator: jsonschema::Validator,
}

/// One argument of a prompt, as `prompts/list` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptArgument {
    /// The argument's name: a property of the prompt's input.
    pub name: String,
    /// The property's description, when it has one.
    pub description: Option<String>,
    /// Whether the argument must be given.
    pub required: bool,
}

impl RegisteredPrompt {
    /// Its `prompts/list` entry.
    pub fn listing(&self) -> Value {
        let d = self.descriptor;
        let mut entry = Map::new();
        entry.insert("name".to_owned(), json!(d.name));
        if let Some(title) = d.title {
            entry.insert("title".to_owned(), json!(title));
        }
        entry.insert("description".to_owned(), json!(d.description));
        let arguments: Vec<Value> = self
            .arguments
            .iter()
            .map(|argument| {
                let mut entry = Map::new();
                entry.insert("name".to_owned(), json!(argument.name));
                if let Some(description) = &argument.description {
                    entry.insert("description".to_owned(), json!(description));
                }
                entry.insert("required".to_owned(), json!(argument.required));
                Value::Object(entry)
            })
            .collect();
        entry.insert("arguments".to_owned(), Value::Array(arguments));
        Value::Object(entry)
    }
}

/// What `completion/complete` refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompletionRef {
    /// A prompt, by its name.
    Prompt(String),
    /// A resource template, by its template text.
    Resource(String),
}

/// Suggested values, at most [`MAX_COMPLETION_VALUES`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// `values`: the first suggestions, at most [`MAX_COMPLETION_VALUES`].
    pub values: Vec<String>,
    /// `total`: how many suggestions the completer made.
    pub total: usize,
    /// `hasMore`: some suggestions were left out.
    pub has_more: bool,
}

/// Every resource, template and prompt linked in, in a stable order
/// (URIs, then names).
pub struct Primitives {
    resources: Vec<RegisteredResource>,
    prompts: Vec<RegisteredPrompt>,
    by_uri: HashMap<&'static str, usize>,
    by_prompt: HashMap<&'static str, usize>,
    state: Arc<StateMap>,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for Primitives {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Primitives")
            .field("resources", &self.resources.len())
            .field("prompts", &self.prompts.len())
            .finish_non_exhaustive()
    }
}

impl Primitives {
    /// Checks every declaration; each problem is pushed, naming where it
    /// was declared.
    pub(crate) fn build(
        mut resources: Vec<&'static ResourceDescriptor>,
        mut prompts: Vec<&'static PromptDescriptor>,
        state: Arc<StateMap>,
        shutdown: CancellationToken,
        problems: &mut Vec<String>,
    ) -> Primitives {
        resources.sort_by_key(|d| (d.template, d.uri));
        prompts.sort_by_key(|d| d.name);
        let mut checked = Primitives {
            resources: Vec::with_capacity(resources.len()),
            prompts: Vec::with_capacity(prompts.len()),
            by_uri: HashMap::new(),
            by_prompt: HashMap::new(),
            state,
            shutdown,
        };
        for d in resources {
            let what = if d.template {
                "resource template"
            } else {
                "resource"
            };
            let at = d.location;
            if let Some(&other) = checked.by_uri.get(d.uri) {
                let other = checked.resources[other].descriptor.location;
                problems.push(format!(
                    "{what} `{}` ({at}) is already declared ({other})",
                    d.uri
                ));
                continue;
            }
            let Some((visibility, validator)) = common(
                what,
                d.uri,
                at,
                d.scopes,
                d.capabilities,
                d.input_schema,
                d.state,
                &checked.state,
                problems,
            ) else {
                continue;
            };
            let template = if d.template {
                match UriTemplate::parse(d.uri) {
                    Ok(template) => {
                        check_variables(what, d.uri, at, &template, &(d.input_schema)(), problems);
                        Some(template)
                    }
                    Err(error) => {
                        problems.push(format!("{what} ({at}): {error}"));
                        continue;
                    }
                }
            } else {
                None
            };
            let names: Vec<&str> = template
                .as_ref()
                .map(|template| template.variables().collect())
                .unwrap_or_default();
            check_completers(what, d.uri, at, d.completions, &names, problems);
            checked.by_uri.insert(d.uri, checked.resources.len());
            checked.resources.push(RegisteredResource {
                descriptor: d,
                visibility,
                template,
                validator,
            });
        }
        for d in prompts {
            let at = d.location;
            if let Some(&other) = checked.by_prompt.get(d.name) {
                let other = checked.prompts[other].descriptor.location;
                problems.push(format!(
                    "prompt `{}` ({at}) is already declared ({other})",
                    d.name
                ));
                continue;
            }
            let Some((visibility, validator)) = common(
                "prompt",
                d.name,
                at,
                d.scopes,
                d.capabilities,
                d.input_schema,
                d.state,
                &checked.state,
                problems,
            ) else {
                continue;
            };
            let arguments = prompt_arguments(&(d.input_schema)());
            let names: Vec<&str> = arguments.iter().map(|a| a.name.as_str()).collect();
            check_completers("prompt", d.name, at, d.completions, &names, problems);
            checked.by_prompt.insert(d.name, checked.prompts.len());
            checked.prompts.push(RegisteredPrompt {
                descriptor: d,
                visibility,
                arguments,
                validator,
            });
        }
        checked
    }

    /// Every resource and template, in the order they are listed.
    pub(super) fn every_resource(&self) -> &[RegisteredResource] {
        &self.resources
    }

    /// Every prompt, in the order they are listed.
    pub(super) fn every_prompt(&self) -> &[RegisteredPrompt] {
        &self.prompts
    }

    /// Whether anything at all is declared for `scope` (a server offers
    /// the capability only then).
    pub fn offers_resources(&self, scope: Scope) -> bool {
        self.resources
            .iter()
            .any(|r| r.visibility.scopes.contains(&scope))
    }

    /// Whether any prompt is declared for `scope` (a server offers the
    /// capability only then).
    pub fn offers_prompts(&self, scope: Scope) -> bool {
        self.prompts
            .iter()
            .any(|p| p.visibility.scopes.contains(&scope))
    }

    /// Whether any prompt or template of `scope` completes an argument.
    pub fn offers_completions(&self, scope: Scope) -> bool {
        let completes = |scopes: &[Scope], completers: &[Completer]| {
            scopes.contains(&scope) && !completers.is_empty()
        };
        self.resources
            .iter()
            .any(|r| completes(&r.visibility.scopes, r.descriptor.completions))
            || self
                .prompts
                .iter()
                .any(|p| completes(&p.visibility.scopes, p.descriptor.completions))
    }

    /// The fixed resources `authority` may read, by URI.
    pub fn resources<'a>(
        &'a self,
        authority: &'a Authority,
    ) -> impl Iterator<Item = &'a RegisteredResource> + 'a {
        self.resources
            .iter()
            .filter(move |r| !r.is_template() && r.visibility.allows(authority))
    }

    /// The templates `authority` may read through, by template.
    pub fn templates<'a>(
        &'a self,
        authority: &'a Authority,
    ) -> impl Iterator<Item = &'a RegisteredResource> + 'a {
        self.resources
            .iter()
            .filter(move |r| r.is_template() && r.visibility.allows(authority))
    }

    /// The prompts `authority` may get, by name.
    pub fn prompts<'a>(
        &'a self,
        authority: &'a Authority,
    ) -> impl Iterator<Item = &'a RegisteredPrompt> + 'a {
        self.prompts
            .iter()
            .filter(move |p| p.visibility.allows(authority))
    }

    fn context(&self, authority: &Authority, request_id: &str) -> ToolContext {
        ToolContext::new(
            authority.clone(),
            Arc::from(request_id),
            self.shutdown.child_token(),
            Arc::clone(&self.state),
        )
    }

    /// [`Primitives::get_prompt`] for a caller that follows it on
    /// `channel` (its log messages, the questions it can answer).
    pub async fn get_prompt_on(
        &self,
        authority: &Authority,
        name: &str,
        arguments: Map<String, Value>,
        request_id: &str,
        channel: CallChannel,
    ) -> Result<PromptMessages, PrimitiveError> {
        self.render(authority, name, arguments, request_id, channel)
            .await
    }

    /// Reads `uri`: a fixed resource of that URI, else the first template
    /// (in order) that matches it.
    pub async fn read(
        &self,
        authority: &Authority,
        uri: &str,
        request_id: &str,
    ) -> Result<Vec<ResourceContents>, PrimitiveError> {
        let not_found = || PrimitiveError::NotFound(format!("Resource not found: {}", cut(uri)));
        let (resource, variables) = match self.by_uri.get(uri) {
            Some(&index) if !self.resources[index].is_template() => {
                (&self.resources[index], Map::new())
            }
            _ => self
                .resources
                .iter()
                .filter(|r| r.visibility.allows(authority))
                .find_map(|r| {
                    let values = r.template.as_ref()?.matches(uri)?;
                    Some((
                        r,
                        values
                            .into_iter()
                            .map(|(k, v)| (k, Value::String(v)))
                            .collect(),
                    ))
                })
                .ok_or_else(not_found)?,
        };
        if !resource.visibility.allows(authority) {
            return Err(not_found());
        }
        let variables = Value::Object(variables);
        if let Some(error) = resource.validator.iter_errors(&variables).next() {
            return Err(PrimitiveError::InvalidArguments(format!(
                "Invalid URI for {}: {error}",
                resource.descriptor.uri
            )));
        }
        let bound = (resource.descriptor.bind)(variables)
            .map_err(|error| PrimitiveError::InvalidArguments(error.0))?;
        let outcome = bound
            .run(self.context(authority, request_id))
            .await
            .map_err(PrimitiveError::Failed)?;
        let mime_type = resource.descriptor.mime_type.map(str::to_owned);
        Ok(match outcome {
            ResourceOutcome::Body(body) => vec![ResourceContents {
                uri: uri.to_owned(),
                mime_type,
                body,
            }],
            ResourceOutcome::Contents(contents) => contents,
        })
    }

    /// The prompt `name` rendered with `arguments` (strings).
    pub async fn get_prompt(
        &self,
        authority: &Authority,
        name: &str,
        arguments: Map<String, Value>,
        request_id: &str,
    ) -> Result<PromptMessages, PrimitiveError> {
        self.render(
            authority,
            name,
            arguments,
            request_id,
            CallChannel::default(),
        )
        .await
    }

    async fn render(
        &self,
        authority: &Authority,
        name: &str,
        arguments: Map<String, Value>,
        request_id: &str,
        channel: CallChannel,
    ) -> Result<PromptMessages, PrimitiveError> {
        let prompt = self
            .by_prompt
            .get(name)
            .map(|&index| &self.prompts[index])
            .filter(|p| p.visibility.allows(authority))
            .ok_or_else(|| PrimitiveError::NotFound(format!("Unknown prompt: {}", cut(name))))?;
        let arguments = Value::Object(arguments);
        if let Some(error) = prompt.validator.iter_errors(&arguments).next() {
            let at = error.instance_path().to_string();
            let at = if at.is_empty() {
                String::new()
            } else {
                format!(" at {at}")
            };
            return Err(PrimitiveError::InvalidArguments(format!(
                "Invalid arguments for prompt {name}{at}: {error}"
            )));
        }
        let bound = (prompt.descriptor.bind)(arguments)
            .map_err(|error| PrimitiveError::InvalidArguments(error.0))?;
        bound
            .run(self.context(authority, request_id).with_channel(channel))
            .await
            .map_err(PrimitiveError::Failed)
    }

    /// Values for one argument of a prompt or variable of a template: what
    /// its completer suggests, at most [`MAX_COMPLETION_VALUES`]; none when
    /// the argument has no completer.
    pub async fn complete(
        &self,
        authority: &Authority,
        reference: &CompletionRef,
        request: CompletionRequest,
        request_id: &str,
    ) -> Result<Completion, PrimitiveError> {
        let (completers, arguments): (&[Completer], Vec<&str>) = match reference {
            CompletionRef::Prompt(name) => {
                let prompt = self
                    .by_prompt
                    .get(name.as_str())
                    .map(|&index| &self.prompts[index])
                    .filter(|p| p.visibility.allows(authority))
                    .ok_or_else(|| {
                        PrimitiveError::NotFound(format!("Unknown prompt: {}", cut(name)))
                    })?;
                let names = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
                (prompt.descriptor.completions, names)
            }
            CompletionRef::Resource(uri) => {
                let resource = self
                    .by_uri
                    .get(uri.as_str())
                    .map(|&index| &self.resources[index])
                    .filter(|r| r.visibility.allows(authority))
                    .ok_or_else(|| {
                        PrimitiveError::NotFound(format!("Unknown resource: {}", cut(uri)))
                    })?;
                let names = resource
                    .template
                    .as_ref()
                    .map(|t| t.variables().collect())
                    .unwrap_or_default();
                (resource.descriptor.completions, names)
            }
        };
        if !arguments.contains(&request.argument.as_str()) {
            return Err(PrimitiveError::InvalidArguments(format!(
                "No argument named {}",
                cut(&request.argument)
            )));
        }
        let Some(completer) = completers.iter().find(|c| c.argument == request.argument) else {
            return Ok(Completion::default());
        };
        let mut values = (completer.complete)(self.context(authority, request_id), request).await;
        let total = values.len();
        values.truncate(MAX_COMPLETION_VALUES);
        Ok(Completion {
            has_more: total > values.len(),
            values,
            total,
        })
    }
}

/// What resources and prompts check alike: their words, their state, their
/// input schema (compiled).
#[allow(clippy::too_many_arguments)]
fn common(
    what: &str,
    name: &str,
    at: crate::contract::SourceLocation,
    scopes: &'static [&'static str],
    capabilities: &'static [&'static str],
    input_schema: fn() -> Value,
    state: &'static [crate::context::StateNeed],
    provided: &StateMap,
    problems: &mut Vec<String>,
) -> Option<(Visibility, jsonschema::Validator)> {
    let before = problems.len();
    if scopes.is_empty() {
        problems.push(format!("{what} `{name}` ({at}) has no scope"));
    }
    let (scopes, required_capabilities) =
        resolve_words(what, name, at, scopes, capabilities, problems);
    check_state(what, name, at, state, provided, problems);
    let schema = match schema::project_input(&input_schema()) {
        Ok(schema) => schema,
        Err(error) => {
            problems.push(format!("{what} `{name}` ({at}): {error}"));
            return None;
        }
    };
    let validator = match jsonschema::validator_for(&schema) {
        Ok(validator) => validator,
        Err(error) => {
            problems.push(format!("{what} `{name}` ({at}): {error}"));
            return None;
        }
    };
    (problems.len() == before).then_some((
        Visibility {
            scopes,
            required_capabilities,
        },
        validator,
    ))
}

/// A template's variables are its input's properties, all required
/// strings: a read binds every one from the URI.
fn check_variables(
    what: &str,
    uri: &str,
    at: crate::contract::SourceLocation,
    template: &UriTemplate,
    schema: &Value,
    problems: &mut Vec<String>,
) {
    let mut variables: Vec<&str> = template.variables().collect();
    variables.sort_unstable();
    let mut properties: Vec<&str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    properties.sort_unstable();
    if variables != properties {
        problems.push(format!(
            "{what} `{uri}` ({at}) names the variables [{}] but its input has the fields [{}]: give the input one `String` field per variable",
            variables.join(", "),
            properties.join(", ")
        ));
    }
}

fn check_completers(
    what: &str,
    name: &str,
    at: crate::contract::SourceLocation,
    completers: &[Completer],
    arguments: &[&str],
    problems: &mut Vec<String>,
) {
    for completer in completers {
        if !arguments.contains(&completer.argument) {
            problems.push(format!(
                "{what} `{name}` ({at}) completes `{}`, which is not one of its arguments [{}]",
                completer.argument,
                arguments.join(", ")
            ));
        }
    }
}

/// A prompt's arguments, read from its input schema: each property (in
/// the schema's order), with its description, and whether it is required.
fn prompt_arguments(schema: &Value) -> Vec<PromptArgument> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| PromptArgument {
            name: name.clone(),
            description: property
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            required: required.contains(&name.as_str()),
        })
        .collect()
}

/// Echoed names and URIs are cut so an error stays small.
fn cut(text: &str) -> String {
    text.chars().take(200).collect()
}
