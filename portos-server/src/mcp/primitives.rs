//! Resources, resource templates, prompts and completions over MCP: the
//! registry's governed primitives (`portos_core::primitives`), listed and
//! answered for the MCP principal with the grants Agent Tools gives it (and
//! a remote client's token), at both protocol eras. What the client may not
//! see is not found.

use portos_core::primitives::{
    CompletionRef, CompletionRequest, PrimitiveError, PromptMessages, RegisteredPrompt,
    RegisteredResource, ResourceContents,
};
use portos_core::{Authority, Scope};
use serde_json::{Map, Value, json};

use super::context_tools::ResourceMiss;
use super::jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS};
use super::server::{CallMeta, McpServer};

/// The 2025 revisions' code for a resource that does not exist (the 2026
/// revision answers `INVALID_PARAMS`, SEP-2164).
pub(crate) const RESOURCE_NOT_FOUND_2025: i64 = -32002;

/// The longest URI, name or argument value read (longer ones are refused).
const MAX_PARAM_CHARS: usize = 2048;
/// At most this many prompt arguments or completion context entries.
const MAX_ARGUMENTS: usize = 64;

/// A primitive request refused, as a JSON-RPC error.
#[derive(Debug)]
pub(crate) struct PrimitiveRefusal {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl PrimitiveRefusal {
    fn invalid(message: impl Into<String>) -> PrimitiveRefusal {
        PrimitiveRefusal {
            code: INVALID_PARAMS,
            message: message.into(),
            data: None,
        }
    }
}

/// Which era answers: it decides the not-found code of a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    Handshake,
    Modern,
}

impl McpServer {
    /// What the MCP principal may see now: its scope, the grants Agent
    /// Tools gives it, narrowed by a remote client's token; nothing while
    /// Agent Tools is disabled or invalid (as its tools are not callable).
    pub(super) async fn mcp_authority(&self) -> Option<Authority> {
        let config = self.config().await;
        config.active().then(|| self.authority_with(&config))
    }

    /// The primitives `authority` may see, of those `pick` chooses.
    fn listings<'a, I: Iterator<Item = Value> + 'a>(
        &'a self,
        authority: Option<&'a Authority>,
        pick: impl FnOnce(&'a portos_core::primitives::Primitives, &'a Authority) -> I,
    ) -> Vec<Value> {
        authority.map_or_else(Vec::new, |authority| {
            pick(self.app().registry.primitives(), authority).collect()
        })
    }

    /// Whether this server has resources, prompts or completions for its
    /// MCP principal at all (what `initialize` and `server/discover`
    /// declare).
    pub(super) fn primitive_capabilities(&self) -> Map<String, Value> {
        let primitives = self.app().registry.primitives();
        let scope: Scope = self.app().principals.mcp;
        let mut capabilities = Map::new();
        // Both lists change with grants and settings, and a resource can be
        // subscribed to (a listener hears of each: `super::listen`).
        if primitives.offers_resources(scope) || self.app().context_tools.offers_resources() {
            capabilities.insert(
                "resources".to_owned(),
                json!({ "listChanged": true, "subscribe": true }),
            );
        }
        if primitives.offers_prompts(scope) {
            capabilities.insert("prompts".to_owned(), json!({ "listChanged": true }));
        }
        if primitives.offers_completions(scope) {
            capabilities.insert("completions".to_owned(), json!({}));
        }
        capabilities
    }

    /// Whether `method` is a resource, prompt or completion method this
    /// server does not offer (it declares no such thing for its MCP scope):
    /// then the method does not exist here, as for a tools-only server.
    pub(super) fn withholds_primitive_method(&self, method: &str) -> bool {
        let primitives = self.app().registry.primitives();
        let scope: Scope = self.app().principals.mcp;
        match method {
            "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe" => {
                !primitives.offers_resources(scope) && !self.app().context_tools.offers_resources()
            }
            "prompts/list" | "prompts/get" => !primitives.offers_prompts(scope),
            "completion/complete" => !primitives.offers_completions(scope),
            _ => false,
        }
    }

    /// 2025's `resources/subscribe` and `resources/unsubscribe`: the
    /// session hears of the resource's updates on its event stream. Only a
    /// resource the client may read can be subscribed to (it is read once,
    /// as a read is governed); a client without a session has nowhere to
    /// hear of them.
    pub(super) async fn subscription_2025(
        &self,
        method: &str,
        params: Option<&Map<String, Value>>,
        id: &Value,
        session: Option<&crate::agent_tools::session::Session>,
    ) -> Result<Value, PrimitiveRefusal> {
        let checked = only(params, &["uri"], method)?;
        let uri = text(checked, "uri", true)?.unwrap_or_default();
        let Some(session) = session else {
            return Err(PrimitiveRefusal {
                code: super::jsonrpc::INVALID_REQUEST,
                message: format!("{method} needs a session: initialize first"),
                data: None,
            });
        };
        if method == "resources/unsubscribe" {
            session.unsubscribe(uri);
            return Ok(json!({}));
        }
        self.resources_read(params, id, Era::Handshake).await?;
        if !session.subscribe(uri) {
            return Err(PrimitiveRefusal {
                code: INVALID_PARAMS,
                message: format!(
                    "A session subscribes to at most {} resources",
                    crate::agent_tools::session::MAX_SUBSCRIPTIONS
                ),
                data: None,
            });
        }
        Ok(json!({}))
    }

    /// `resources/list`: the context resources the settings show, then
    /// the linked resources the client may read.
    pub(super) async fn resources_list(&self) -> Value {
        let config = self.config().await;
        let authority = config.active().then(|| self.authority_with(&config));
        let mut resources = match &authority {
            Some(_) => self.app().context_tools.resources(&config),
            None => Vec::new(),
        };
        resources.extend(self.listings(authority.as_ref(), |primitives, authority| {
            primitives
                .resources(authority)
                .map(RegisteredResource::listing)
        }));
        json!({ "resources": resources })
    }

    /// `resources/templates/list`: the context templates, then the linked.
    pub(super) async fn resource_templates_list(&self) -> Value {
        let config = self.config().await;
        let authority = config.active().then(|| self.authority_with(&config));
        let mut templates = match &authority {
            Some(_) => self.app().context_tools.resource_templates(&config),
            None => Vec::new(),
        };
        templates.extend(self.listings(authority.as_ref(), |primitives, authority| {
            primitives
                .templates(authority)
                .map(RegisteredResource::listing)
        }));
        json!({ "resourceTemplates": templates })
    }

    /// `prompts/list`.
    pub(super) async fn prompts_list(&self) -> Value {
        let authority = self.mcp_authority().await;
        let prompts = self.listings(authority.as_ref(), |primitives, authority| {
            primitives.prompts(authority).map(RegisteredPrompt::listing)
        });
        json!({ "prompts": prompts })
    }

    /// `resources/read {uri}`.
    pub(super) async fn resources_read(
        &self,
        params: Option<&Map<String, Value>>,
        id: &Value,
        era: Era,
    ) -> Result<Value, PrimitiveRefusal> {
        let params = only(params, &["uri"], "resources/read")?;
        let uri = text(params, "uri", true)?.unwrap_or_default();
        let config = self.config().await;
        // A context resource is read through the context tools, with their
        // settings and redaction; any other through the registry.
        let context = config
            .active()
            .then(|| {
                self.app()
                    .context_tools
                    .read_resource(&self.app().store, uri, &config)
            })
            .flatten();
        let read = match context {
            Some(read) => read.await.map_err(|miss| match miss {
                ResourceMiss::NotFound => {
                    PrimitiveError::NotFound(format!("Resource not found: {}", cut(uri)))
                }
                ResourceMiss::Unavailable(reason) => PrimitiveError::Failed(reason),
            }),
            None if !config.active() => Err(PrimitiveError::NotFound(format!(
                "Resource not found: {}",
                cut(uri)
            ))),
            None => {
                let authority = self.authority_with(&config);
                self.app()
                    .registry
                    .primitives()
                    .read(&authority, uri, &request_id(id))
                    .await
            }
        };
        match read {
            Ok(contents) => Ok(json!({ "contents": contents_json(&contents) })),
            Err(PrimitiveError::NotFound(message)) => Err(PrimitiveRefusal {
                code: match era {
                    Era::Handshake => RESOURCE_NOT_FOUND_2025,
                    Era::Modern => INVALID_PARAMS,
                },
                message,
                data: Some(json!({ "uri": uri })),
            }),
            Err(other) => Err(refusal(other)),
        }
    }

    /// `prompts/get {name, arguments?}`.
    pub(super) async fn prompts_get(
        &self,
        params: Option<&Map<String, Value>>,
        id: &Value,
        meta: &CallMeta,
    ) -> Result<Value, PrimitiveRefusal> {
        let params = only(params, &["name", "arguments"], "prompts/get")?;
        let name = text(params, "name", true)?.unwrap_or_default();
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) if arguments.len() <= MAX_ARGUMENTS => arguments.clone(),
            Some(_) => {
                return Err(PrimitiveRefusal::invalid(format!(
                    "Invalid prompts/get params: arguments is an object of at most {MAX_ARGUMENTS} strings"
                )));
            }
        };
        let authority = self
            .mcp_authority()
            .await
            .ok_or_else(|| PrimitiveRefusal::invalid(format!("Unknown prompt: {}", cut(name))))?;
        let rendered = self
            .app()
            .registry
            .primitives()
            .get_prompt_on(&authority, name, arguments, &request_id(id), meta.channel())
            .await
            .map_err(refusal)?;
        Ok(prompt_json(rendered))
    }

    /// `completion/complete {ref, argument: {name, value}, context?}`.
    pub(super) async fn complete(
        &self,
        params: Option<&Map<String, Value>>,
        id: &Value,
    ) -> Result<Value, PrimitiveRefusal> {
        let invalid = || PrimitiveRefusal::invalid("Invalid completion/complete params");
        let params = only(
            params,
            &["ref", "argument", "context"],
            "completion/complete",
        )?;
        let reference = params
            .get("ref")
            .and_then(Value::as_object)
            .ok_or_else(invalid)?;
        let reference = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => CompletionRef::Prompt(
                text(reference, "name", true)?
                    .unwrap_or_default()
                    .to_owned(),
            ),
            Some("ref/resource") => CompletionRef::Resource(
                text(reference, "uri", true)?.unwrap_or_default().to_owned(),
            ),
            _ => return Err(invalid()),
        };
        let argument = params
            .get("argument")
            .and_then(Value::as_object)
            .ok_or_else(invalid)?;
        let mut request = CompletionRequest {
            argument: text(argument, "name", true)?.unwrap_or_default().to_owned(),
            value: text(argument, "value", false)?
                .unwrap_or_default()
                .to_owned(),
            ..CompletionRequest::default()
        };
        if let Some(context) = params.get("context") {
            let arguments = match context.get("arguments") {
                None => None,
                Some(Value::Object(arguments)) if arguments.len() <= MAX_ARGUMENTS => {
                    Some(arguments)
                }
                Some(_) => return Err(invalid()),
            };
            for (key, value) in arguments.into_iter().flatten() {
                let value = value.as_str().ok_or_else(invalid)?;
                request.context.insert(key.clone(), value.to_owned());
            }
        }
        let authority = self
            .mcp_authority()
            .await
            .ok_or_else(|| PrimitiveRefusal::invalid("Nothing to complete"))?;
        let completion = self
            .app()
            .registry
            .primitives()
            .complete(&authority, &reference, request, &request_id(id))
            .await
            .map_err(refusal)?;
        Ok(json!({
            "completion": {
                "values": completion.values,
                "total": completion.total,
                "hasMore": completion.has_more,
            }
        }))
    }
}

/// The params as an object of only `keys` (and `_meta`).
fn only<'a>(
    params: Option<&'a Map<String, Value>>,
    keys: &[&str],
    method: &str,
) -> Result<&'a Map<String, Value>, PrimitiveRefusal> {
    let params =
        params.ok_or_else(|| PrimitiveRefusal::invalid(format!("Invalid {method} params")))?;
    match params
        .keys()
        .find(|key| *key != "_meta" && !keys.contains(&key.as_str()))
    {
        Some(key) => Err(PrimitiveRefusal::invalid(format!(
            "Invalid {method} params: unknown key {}",
            key.chars().take(64).collect::<String>()
        ))),
        None => Ok(params),
    }
}

/// A string param of at most [`MAX_PARAM_CHARS`].
fn text<'a>(
    params: &'a Map<String, Value>,
    key: &str,
    required: bool,
) -> Result<Option<&'a str>, PrimitiveRefusal> {
    match params.get(key) {
        None if !required => Ok(None),
        Some(Value::String(text)) if text.chars().count() <= MAX_PARAM_CHARS => Ok(Some(text)),
        _ => Err(PrimitiveRefusal::invalid(format!(
            "Invalid params: {key} must be a string of at most {MAX_PARAM_CHARS} characters"
        ))),
    }
}

fn refusal(error: PrimitiveError) -> PrimitiveRefusal {
    match error {
        PrimitiveError::NotFound(message) | PrimitiveError::InvalidArguments(message) => {
            PrimitiveRefusal::invalid(message)
        }
        PrimitiveError::Failed(message) => PrimitiveRefusal {
            code: INTERNAL_ERROR,
            message,
            data: None,
        },
    }
}

/// Echoed URIs are cut so an error stays small.
fn cut(text: &str) -> String {
    text.chars().take(200).collect()
}

/// The JSON-RPC id, as the request id an adapter sees.
fn request_id(id: &Value) -> String {
    match id {
        Value::String(text) => format!("agent-mcp:{text}"),
        other => format!("agent-mcp:{other}"),
    }
}

fn contents_json(contents: &[ResourceContents]) -> Value {
    serde_json::to_value(contents).unwrap_or_else(|_| Value::Array(Vec::new()))
}

fn prompt_json(rendered: PromptMessages) -> Value {
    let mut result = Map::new();
    if let Some(description) = rendered.description {
        result.insert("description".to_owned(), Value::String(description));
    }
    result.insert(
        "messages".to_owned(),
        serde_json::to_value(rendered.messages).unwrap_or_else(|_| Value::Array(Vec::new())),
    );
    Value::Object(result)
}
