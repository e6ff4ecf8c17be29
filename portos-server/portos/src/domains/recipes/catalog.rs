//! The saved recipes as run-time tools of the registry
//! (docs/reference.md#recipe-catalog and docs/reference.md#recipe-execution
//! steps 1–4): listed in every mind and agent catalog after the linked tools,
//! and resolved by name for a call with the caller's live authority. The
//! registry then runs its own checks, the idempotency store with the recipe's
//! id and revision in the fingerprint, and [`super::run`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::registry::{DynamicListing, DynamicTool, DynamicToolSpec, DynamicTools, Resolved};
use portos_core::{
    Authority, Capabilities, Capability, Confirmation, ErrorCode, Policy, Registry, Scope,
    SideEffect, ToolError,
};
use portos_server::mcp::AgentContextConfig;
use portos_server::store::{Store, StoreError};
use serde_json::{Map, Value, json};

use super::definition::RecipeDefinition;
use super::error::RecipeError;
use super::model::StoredRecipe;
use super::run::RecipeRun;
use super::validate::{provider_name, validate};
use super::{ops, store};
use crate::domains::mind::live_settings;

/// Recipes a catalog lists at most, and the characters their input schemas
/// and descriptions may take together (docs/reference.md#recipe-catalog).
pub const MAX_LISTED: usize = 20;
pub const MAX_LISTED_CHARS: usize = 24_000;
/// The native description is the purpose's first 280 characters; a
/// provider description at most 500.
const DESCRIPTION_CHARS: usize = 280;
const PROVIDER_DESCRIPTION_CHARS: usize = 500;
const REASON_CHARS: usize = 500;
const UNAVAILABLE: &str = "Unavailable saved recipe";
const SOURCE: &str = "persistent-mind-library";

/// The saved recipe library, as the registry's run-time tool source.
#[derive(Debug)]
pub struct RecipeTools {
    store: Store,
    /// The listing of each scope at the library generation it was built at.
    listings: Mutex<HashMap<Scope, (i64, Arc<DynamicListing>)>>,
}

impl RecipeTools {
    pub fn new(store: Store) -> RecipeTools {
        RecipeTools {
            store,
            listings: Mutex::new(HashMap::new()),
        }
    }

    fn build_listing(&self, registry: &Registry, scope: Scope, generation: i64) -> DynamicListing {
        let stored = self
            .store
            .run_waiting(|connection| ops::active_in(connection))
            .unwrap_or_else(|error| {
                tracing::warn!(%error, "cannot read the saved recipes: none listed");
                Vec::new()
            });
        let mut tools = Vec::new();
        let mut chars = 0;
        for recipe in stored.into_iter().take(MAX_LISTED) {
            let tool = self.describe(registry, scope, recipe);
            let size = tool.spec.input_schema.to_string().chars().count()
                + tool.spec.description.chars().count();
            if chars + size > MAX_LISTED_CHARS {
                continue;
            }
            chars += size;
            tools.push(Arc::new(tool));
        }
        DynamicListing {
            revision: u64::try_from(generation).unwrap_or_default(),
            tools,
        }
    }

    /// A recipe's descriptor in `scope`: callable when its definition reads
    /// and passes against the live catalog, else a stub saying why.
    fn describe(&self, registry: &Registry, scope: Scope, recipe: StoredRecipe) -> DynamicTool {
        let checked = recipe
            .definition
            .map_err(RecipeError::from)
            .and_then(|definition| {
                let checked = validate(&definition, scope, registry)?;
                Ok((definition, checked))
            });
        match checked {
            Ok((definition, checked)) => self.tool(
                scope,
                &recipe.id,
                recipe.revision,
                Arc::new(definition),
                required_capabilities(scope, &checked.required_capabilities),
                &checked.underlying_tools,
            ),
            Err(error) => stub(
                scope,
                &recipe.id,
                &recipe.name,
                recipe.revision,
                &error.to_string(),
            ),
        }
    }

    fn tool(
        &self,
        scope: Scope,
        recipe_id: &str,
        revision: i64,
        definition: Arc<RecipeDefinition>,
        required: Vec<Capability>,
        underlying_tools: &[String],
    ) -> DynamicTool {
        let purpose = definition.purpose.clone();
        let provider_description: String =
            format!("{purpose} Saved local Persistent Mind recipe revision {revision}.")
                .chars()
                .take(PROVIDER_DESCRIPTION_CHARS)
                .collect();
        DynamicTool::new(DynamicToolSpec {
            name: definition.name.clone(),
            provider_name: provider_name(&definition.name),
            version: portos_core::contract::SCHEMA_VERSION,
            description: purpose.chars().take(DESCRIPTION_CHARS).collect(),
            provider_description,
            input_schema: definition.parameters.to_json(),
            output_schema: json!({ "type": "object", "additionalProperties": true }),
            policy: policy(scope, required),
            available: true,
            fingerprint_extra: fingerprint_extra(recipe_id, revision),
            details: json!({
                "id": recipe_id,
                "revision": revision,
                "underlyingTools": underlying_tools,
            }),
            runner: Arc::new(RecipeRun {
                store: self.store.clone(),
                recipe_id: recipe_id.to_owned(),
                revision,
                definition,
                scope,
            }),
        })
    }

    /// The caller's authority as stored now (docs/reference.md#recipe-execution
    /// step 2): the Mind's persisted grants; an agent's stored action grants
    /// (none while Agent Tools is off or invalid) intersected with the
    /// caller's.
    async fn live_authority(&self, authority: Authority) -> Result<Authority, ToolError> {
        let live = live_authority(&self.store, authority).await;
        live.map_err(|error| {
            tracing::error!(%error, "cannot read the recipe caller's grants");
            ToolError::new(
                ErrorCode::ToolUnavailable,
                "Recipe grants cannot be read now",
            )
        })
    }
}

impl DynamicTools for RecipeTools {
    fn claims(&self, name: &str) -> bool {
        name.starts_with("recipe.") || name.starts_with("recipe_")
    }

    fn canonical_name(&self, name: &str) -> String {
        match name.strip_prefix("recipe_") {
            // Recipe names have no `_`, so the provider form maps back.
            Some(slug) => format!("recipe.{}", slug.replace('_', "-")),
            None => name.to_owned(),
        }
    }

    fn listing(&self, registry: &Registry, scope: Scope) -> Arc<DynamicListing> {
        if !scope.holds_grants() {
            return Arc::default();
        }
        let generation = self
            .store
            .run_waiting(|connection| store::generation(connection))
            .unwrap_or(-1);
        let mut listings = self.listings.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((built_at, listing)) = listings.get(&scope)
            && *built_at == generation
        {
            return listing.clone();
        }
        let listing = Arc::new(self.build_listing(registry, scope, generation));
        listings.insert(scope, (generation, listing.clone()));
        listing
    }

    fn resolve<'a>(
        &'a self,
        registry: &'a Registry,
        authority: Authority,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Resolved, ToolError>> {
        async move {
            let scope = authority.scope;
            if !scope.holds_grants() {
                return Err(ToolError::new(
                    ErrorCode::ToolScopeDenied,
                    "Recipes require mind or agent scope",
                ));
            }
            let authority = self.live_authority(authority).await?;
            if !authority.capabilities.has(access_capability(scope)) {
                return Err(ToolError::new(
                    ErrorCode::ToolCapabilityDenied,
                    "Recipe access is not granted",
                ));
            }
            let canonical = self.canonical_name(name);
            let recipe =
                ops::callable(&self.store, canonical)
                    .await
                    .map_err(|error| match error {
                        RecipeError::NotFound(_) => ToolError::new(
                            ErrorCode::ToolNotFound,
                            format!("Unknown tool '{name}'"),
                        ),
                        other => recipe_refusal(&other),
                    })?;
            // A definition the live catalog no longer takes still resolves:
            // the run re-checks it before the first child and fails at
            // `definition` with guidance (docs/reference.md#fail-closed-rules),
            // instead of vanishing.
            let (required, underlying) = match validate(&recipe.definition, scope, registry) {
                Ok(checked) => (
                    required_capabilities(scope, &checked.required_capabilities),
                    checked.underlying_tools,
                ),
                Err(_) => (
                    required_capabilities(scope, &[]),
                    recipe.definition.underlying_tools(),
                ),
            };
            let tool = self.tool(
                scope,
                &recipe.id,
                recipe.revision,
                Arc::new(recipe.definition),
                required,
                &underlying,
            );
            Ok(Resolved {
                tool: Arc::new(tool),
                authority,
            })
        }
        .boxed()
    }

    fn native_fields(
        &self,
        tool: &DynamicTool,
        grants: Capabilities,
    ) -> Vec<(&'static str, Value)> {
        let spec = &tool.spec;
        let scope = spec
            .policy
            .scopes
            .first()
            .copied()
            .unwrap_or(portos_words::MIND);
        let mut block = Map::new();
        block.insert("id".into(), spec.details["id"].clone());
        block.insert("source".into(), json!(SOURCE));
        block.insert("revision".into(), spec.details["revision"].clone());
        block.insert("scope".into(), json!(scope.as_str()));
        block.insert("available".into(), json!(spec.available));
        block.insert(
            "underlyingTools".into(),
            spec.details["underlyingTools"].clone(),
        );
        if let Some(reason) = disabled_reason(tool, scope, grants) {
            block.insert("disabledReason".into(), json!(reason));
        }
        vec![("recipe", Value::Object(block))]
    }
}

/// Why the recipe is not granted in this read, in the order of
/// docs/reference.md#recipe-catalog: its own reason, the access grant of the
/// scope, the grants of its steps.
fn disabled_reason(tool: &DynamicTool, scope: Scope, grants: Capabilities) -> Option<String> {
    if let Some(reason) = tool.spec.details["reason"].as_str() {
        return Some(reason.to_owned());
    }
    if scope == portos_words::AGENT && !grants.has(portos_words::CALL_TOOL_RECIPES) {
        return Some("Saved recipe access is disabled for CoS Agent MCP.".to_owned());
    }
    if scope == portos_words::MIND && !grants.has(portos_words::MANAGE_TOOL_RECIPES) {
        return Some("Saved recipe access is disabled for Persistent Mind.".to_owned());
    }
    let missing: Vec<&str> = tool
        .spec
        .policy
        .required_capabilities
        .iter()
        .filter(|capability| !grants.has(**capability))
        .map(|capability| capability.as_str())
        .collect();
    (!missing.is_empty()).then(|| format!("Requires {}.", missing.join(", ")))
}

/// A recipe listed only to say why it cannot be used
/// (docs/reference.md#recipe-catalog).
fn stub(scope: Scope, recipe_id: &str, name: &str, revision: i64, reason: &str) -> DynamicTool {
    DynamicTool::new(DynamicToolSpec {
        name: name.to_owned(),
        provider_name: provider_name(name),
        version: portos_core::contract::SCHEMA_VERSION,
        description: UNAVAILABLE.to_owned(),
        provider_description: format!(
            "{UNAVAILABLE}. Saved local Persistent Mind recipe revision {revision}."
        ),
        input_schema: json!({ "type": "object", "additionalProperties": true }),
        output_schema: json!({ "type": "object", "additionalProperties": true }),
        policy: policy(scope, required_capabilities(scope, &[])),
        available: false,
        fingerprint_extra: fingerprint_extra(recipe_id, revision),
        details: json!({
            "id": recipe_id,
            "revision": revision,
            "underlyingTools": [],
            "reason": reason.chars().take(REASON_CHARS).collect::<String>(),
        }),
        runner: Arc::new(super::run::NeverRuns),
    })
}

fn policy(scope: Scope, required_capabilities: Vec<Capability>) -> Policy {
    Policy {
        scopes: vec![scope],
        required_capabilities,
        side_effect: SideEffect::Read,
        idempotent: true,
        is_async: false,
        confirmation: Confirmation::CapabilityGrant,
        long_running: false,
        unguarded: None,
    }
}

fn fingerprint_extra(recipe_id: &str, revision: i64) -> Map<String, Value> {
    let mut extra = Map::new();
    extra.insert("recipeId".into(), json!(recipe_id));
    extra.insert("revision".into(), json!(revision));
    extra
}

/// A recipe's required capabilities: the scope's access grant, then every
/// step tool's (docs/reference.md#recipe-catalog).
fn required_capabilities(scope: Scope, steps: &[Capability]) -> Vec<Capability> {
    std::iter::once(access_capability(scope))
        .chain(steps.iter().copied())
        .collect()
}

/// The grant that opens recipes to a principal: the Mind authors and runs
/// them with `manageToolRecipes`, an agent only runs them with
/// `callToolRecipes` (it never inherits the Mind's authority).
pub fn access_capability(scope: Scope) -> Capability {
    if scope == portos_words::AGENT {
        portos_words::CALL_TOOL_RECIPES
    } else {
        portos_words::MANAGE_TOOL_RECIPES
    }
}

/// The caller's authority as stored now (see [`RecipeTools`]).
pub async fn live_authority(store: &Store, authority: Authority) -> Result<Authority, StoreError> {
    let scope = authority.scope;
    let stored = store
        .run(move |connection| {
            Ok(match scope {
                portos_words::AGENT => {
                    let config = AgentContextConfig::load(connection)?;
                    if config.active() {
                        config.grants()
                    } else {
                        Capabilities::NONE
                    }
                }
                _ => live_settings(connection)?.capabilities(),
            })
        })
        .await?;
    Ok(Authority {
        capabilities: match scope {
            portos_words::AGENT => stored.intersect(authority.capabilities),
            _ => stored,
        },
        ..authority
    })
}

/// A library refusal as the contract's code (a store failure is the
/// server's: unavailable now).
fn recipe_refusal(error: &RecipeError) -> ToolError {
    match error.code() {
        Some(code) => ToolError::new(code, error.to_string()),
        None => ToolError::new(
            ErrorCode::ToolUnavailable,
            "Saved recipes cannot be read now",
        ),
    }
}
