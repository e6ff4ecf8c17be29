//! [`ServerBuilder`]: what an application hands the runtime — its identity,
//! configuration, typed state, tables, exposable API groups and Agent Tools
//! context — and what it gets back: an [`App`] serving every linked tool,
//! route and event.
//!
//! ```no_run
//! use portos_server::{Config, ServerBuilder};
//!
//! #[derive(Debug)]
//! struct Greeting(String);
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let app = ServerBuilder::new("Hello", env!("CARGO_PKG_VERSION"), Config::default())
//!     .state(Greeting("hi".to_owned()))
//!     .build()?;
//! portos_server::serve(app).await?;
//! # Ok(()) }
//! ```

use std::sync::Arc;

use portos_core::catalog::IntentConfig;
use portos_core::inventory::Classifier;
use portos_core::registry::{DynamicTools, RegistryLimits};
use portos_core::{Catalogs, Registry, RegistryBuilder, StateMap};

use crate::agent_tools::request_state::RequestStateKey;
use crate::agent_tools::{AgentContextCache, ContextTools, NoContextTools};
use crate::api_access::{ApiAccessCache, ExposableApi, ExposableApis};
use crate::app::{App, AppState, Identity, Principals, StartError};
use crate::auth::Auth;
use crate::clock::UserClock;
use crate::config::Config;
use crate::documents::{DocumentWords, Documents};
use crate::events::Events;
use crate::grants::{GrantSources, GrantsCache};
use crate::live_registry::LiveRegistry;
use crate::mounts::{Mount, Mounts};
use crate::settings::{NoSettingsObserver, SettingsObserver};
use crate::store::{Schema, Store};
use crate::telemetry::tools::ToolMetrics;
use crate::telemetry::{MetricSource, Metrics};
use crate::{LiveCatalogs, McpNames};

/// Where every exposable API group must live (the route inventory's
/// externally-exposable class).
const PUBLIC_PREFIX: &str = "/api/public/";

type StateFromStore = Box<dyn FnOnce(&Store, &mut StateMap) + Send>;
type RegistryStep = Box<dyn FnOnce(RegistryBuilder) -> RegistryBuilder + Send>;
type DynamicFromStore = Box<dyn FnOnce(&Store) -> Arc<dyn DynamicTools> + Send>;
type StartJob = Box<dyn FnOnce(&Store) + Send>;

/// Builds a server around the tools, routes and events linked into the
/// binary. Nothing of any particular application is built in: PortOS's
/// domains come through this same builder (`portos::install`).
pub struct ServerBuilder {
    identity: Identity,
    config: Config,
    schemas: Vec<Schema>,
    state: StateMap,
    state_from_store: Vec<StateFromStore>,
    exposable_apis: Vec<ExposableApi>,
    context_tools: Arc<dyn ContextTools>,
    settings_observer: Arc<dyn SettingsObserver>,
    registry_steps: Vec<RegistryStep>,
    dynamic_tools: Option<DynamicFromStore>,
    intents: IntentConfig,
    always_public_prefixes: &'static [&'static str],
    store: Option<Store>,
    start_jobs: Vec<StartJob>,
    stored_grants: Vec<(portos_core::Scope, &'static str)>,
    mounts: Mounts,
    mcp_names: McpNames,
    metric_sources: Vec<Arc<dyn MetricSource>>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("identity", &self.identity)
            .field("config", &self.config)
            .field("schemas", &self.schemas)
            .field("exposable_apis", &self.exposable_apis)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// A server named `name` (document titles, the MCP server name) at
    /// `version` (the documents' version).
    pub fn new(name: &str, version: &str, config: Config) -> ServerBuilder {
        ServerBuilder {
            identity: Identity::new(name, version),
            config,
            schemas: crate::store::linked_schemas(),
            state: StateMap::new(),
            state_from_store: Vec::new(),
            exposable_apis: Vec::new(),
            context_tools: Arc::new(NoContextTools),
            settings_observer: Arc::new(NoSettingsObserver),
            registry_steps: Vec::new(),
            dynamic_tools: None,
            intents: IntentConfig::default(),
            always_public_prefixes: &[],
            store: None,
            start_jobs: Vec::new(),
            stored_grants: Vec::new(),
            mounts: Mounts::default(),
            mcp_names: McpNames::default(),
            metric_sources: Vec::new(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The tables of one component of the application, migrated when the
    /// store opens (after the runtime's own). Schemas declared with
    /// [`store_schema!`](crate::store_schema) in a linked crate are added
    /// without this.
    #[must_use]
    pub fn schema(mut self, schema: Schema) -> Self {
        if !self.schemas.contains(&schema) {
            self.schemas.push(schema);
        }
        self
    }

    /// State of the application, by type: what tools and routes take as
    /// `Shared<T>` parameters (the server refuses to start when one of them
    /// names a type it was not given).
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// State built from the opened store (a repository over its tables).
    #[must_use]
    pub fn state_from_store<T, F>(mut self, make: F) -> Self
    where
        T: Send + Sync + 'static,
        F: FnOnce(&Store) -> T + Send + 'static,
    {
        self.state_from_store.push(Box::new(move |store, state| {
            state.insert(make(store));
        }));
        self
    }

    /// Work to do once when the server starts, on its store, before it
    /// serves or runs a command (e.g. settle what a crash left half done).
    /// [`build`](Self::build) runs it; the registry and catalog dumps,
    /// which may read a store they must not change, do not.
    #[must_use]
    pub fn on_start(mut self, job: impl FnOnce(&Store) + Send + 'static) -> Self {
        self.start_jobs.push(Box::new(job));
        self
    }

    /// Places the mount `name`: the routes declared under it live under
    /// `mount.path`, its events under `mount.events`. The runtime's own
    /// routes are mounts too, each with a neutral default
    /// ([`crate::mounts::DEFAULTS`]): the tool endpoints and events
    /// (`tools`, at `/api/tools` and `tools`), the MCP endpoint (`mcp`, at
    /// `/mcp`), its manifest and settings, the settings of API access, the
    /// password gate's routes (`auth`) and the documents (`docs`).
    ///
    /// ```
    /// use portos_server::mounts::{MCP, TOOLS};
    /// use portos_server::{Config, Mount, ServerBuilder};
    ///
    /// let builder = ServerBuilder::new("pantry", "1.0.0", Config::default())
    ///     .mount(MCP, Mount::at("/api/pantry/mcp"))
    ///     .mount(TOOLS, Mount::at("/api/pantry/tools").with_events("pantry:tools"));
    /// assert_eq!(builder.mounts().path_of(MCP), "/api/pantry/mcp");
    /// ```
    #[must_use]
    pub fn mount(mut self, name: &'static str, mount: Mount) -> Self {
        self.mounts = self.mounts.with(name, mount);
        self
    }

    /// How the MCP endpoint names itself where a client reads a name: its
    /// refusals' codes and messages and its manifest's kind (by default
    /// `MCP_DISABLED`, "MCP is disabled", `mcp-endpoint`).
    ///
    /// ```
    /// use portos_server::{Config, McpNames, ServerBuilder};
    ///
    /// let builder = ServerBuilder::new("pantry", "1.0.0", Config::default()).mcp_names(McpNames {
    ///     codes: "PANTRY_AGENTS",
    ///     title: "Pantry agents",
    ///     manifest_kind: "pantry-agents",
    /// });
    /// # drop(builder);
    /// ```
    #[must_use]
    pub fn mcp_names(mut self, names: McpNames) -> Self {
        self.mcp_names = names;
        self
    }

    /// Where the mounted routes and events are.
    pub fn mounts(&self) -> &Mounts {
        &self.mounts
    }

    /// Where the grants of `scope`, an in-process principal that holds
    /// grants (`#[grants]` in the vocabulary), are kept: the settings value
    /// under `key`, an object of booleans the application's own routes
    /// write (refreshing `App::grants` after the commit). The catalog's
    /// `granted` and a parked job's re-check read them. The MCP transport's
    /// principal keeps its grants in the Agent Tools settings instead.
    #[must_use]
    pub fn stored_grants(mut self, scope: portos_core::Scope, key: &'static str) -> Self {
        self.stored_grants.push((scope, key));
        self
    }

    /// Where each principal's grants are kept.
    pub fn grant_sources(&self) -> GrantSources {
        GrantSources {
            mcp: portos_core::Scope::of_transport(portos_core::Transport::Mcp),
            stored: self.stored_grants.clone(),
        }
    }

    /// An API group Settings → API Access may expose to other devices; its
    /// operations live under `prefix` (inside `/api/public/`).
    #[must_use]
    pub fn exposable_api(mut self, api: ExposableApi) -> Self {
        self.exposable_apis.push(api);
        self
    }

    /// The application's read-only context tools on Agent Tools MCP.
    #[must_use]
    pub fn context_tools(mut self, tools: impl ContextTools) -> Self {
        self.context_tools = Arc::new(tools);
        self
    }

    /// Series of the application's own that `/metrics` serves after the
    /// runtime's (docs/observability.md); their family names must not be
    /// the runtime's.
    #[must_use]
    pub fn metric_source(mut self, source: Arc<dyn MetricSource>) -> Self {
        self.metric_sources.push(source);
        self
    }

    /// Tells `observer` of each change the runtime's settings routes (Agent
    /// Tools, API Access) make, in the transaction that makes it, e.g. to
    /// keep an audit trail that commits with the change.
    #[must_use]
    pub fn on_settings_change(mut self, observer: impl SettingsObserver) -> Self {
        self.settings_observer = Arc::new(observer);
        self
    }

    /// A change to the registry before it is built (its order, limits,
    /// observers).
    #[must_use]
    pub fn configure_registry(
        mut self,
        step: impl FnOnce(RegistryBuilder) -> RegistryBuilder + Send + 'static,
    ) -> Self {
        self.registry_steps.push(Box::new(step));
        self
    }

    /// The source of tools found at run time (saved recipes), built over
    /// the opened store: listed in the catalogs of the scopes it serves and
    /// called through the registry like a linked tool.
    #[must_use]
    pub fn dynamic_tools_from_store<F>(mut self, make: F) -> Self
    where
        F: FnOnce(&Store) -> Arc<dyn DynamicTools> + Send + 'static,
    {
        self.dynamic_tools = Some(Box::new(make));
        self
    }

    /// The catalog order: these canonical names first, in this order; every
    /// other tool after them by name.
    #[must_use]
    pub fn tool_order(self, order: &'static [&'static str]) -> Self {
        self.configure_registry(move |registry| registry.order(order))
    }

    /// The intent groups a catalog's `intent` filter switches on
    /// (docs/reference.md#intent-filtering); a tool's `intent_group` must name
    /// one of them. None by default.
    #[must_use]
    pub fn intents(mut self, intents: IntentConfig) -> Self {
        self.intents = intents;
        self
    }

    /// Path prefixes of the application's routes that pass the password
    /// gate without credentials (each route must then check its caller).
    #[must_use]
    pub fn always_public_prefixes(mut self, prefixes: &'static [&'static str]) -> Self {
        self.always_public_prefixes = prefixes;
        self
    }

    /// The access classes of paths: the runtime's, with the application's
    /// always-public prefixes.
    pub fn classifier(&self) -> Classifier {
        crate::http::access::classifier(&self.mounts, &self.mcp_names, self.always_public_prefixes)
    }

    /// The documents of this server (before it is built: the CLI's dumps).
    pub fn documents(&self) -> Documents {
        self.documents_with(self.classifier())
    }

    /// The documents under `classifier` (made once per server: its path
    /// lists are kept for the process's life).
    fn documents_with(&self, classifier: Classifier) -> Documents {
        let keys: Vec<&str> = self.stored_grants.iter().map(|(_, key)| *key).collect();
        let words = DocumentWords::new(
            portos_core::Scope::of_transport(portos_core::Transport::Http),
            self.mounts.tools().path,
            &keys,
        );
        let documents = Documents::new(
            &self.identity.name,
            &self.identity.version,
            words,
            self.config.bind,
            classifier,
            self.mounts.clone(),
        );
        match &self.config.remote {
            Some(remote) => documents.with_remote(remote),
            None => documents,
        }
    }

    /// Serve from an already opened store instead of the configured data
    /// directory (tests, read-only dumps). It must hold this builder's
    /// schemas: open it with [`ServerBuilder::open_store`].
    #[must_use]
    pub fn with_store(mut self, store: Store) -> Self {
        self.store = Some(store);
        self
    }

    /// The application's schemas, for opening a store elsewhere.
    pub fn schemas(&self) -> &[Schema] {
        &self.schemas
    }

    /// Opens (creating and migrating) the store: the PostgreSQL database
    /// of the configured URL, else the SQLite one in the data directory.
    pub fn open_store(&self) -> Result<Store, StartError> {
        Ok(match &self.config.database_url {
            Some(url) => Store::connect(url, &self.schemas)?,
            None => Store::open(&self.config.database_path(), &self.schemas)?,
        })
    }

    /// The exposable API groups, checked: each under `/api/public/`, ending
    /// in `/`, ids and prefixes unique.
    pub fn exposable_apis(&self) -> Result<ExposableApis, StartError> {
        let mut problems = Vec::new();
        for (index, api) in self.exposable_apis.iter().enumerate() {
            if !api.prefix.starts_with(PUBLIC_PREFIX) || !api.prefix.ends_with('/') {
                problems.push(format!(
                    "API group `{}`: prefix `{}` must start with `{PUBLIC_PREFIX}` and end with `/`",
                    api.id, api.prefix
                ));
            }
            if self.exposable_apis[..index]
                .iter()
                .any(|other| other.id == api.id || other.prefix == api.prefix)
            {
                problems.push(format!("API group `{}` is declared twice", api.id));
            }
        }
        if problems.is_empty() {
            Ok(self.exposable_apis.clone().into())
        } else {
            Err(StartError::Application(problems.join("; ")))
        }
    }

    /// The registry alone, over `store` (benchmarks, tests, the catalog
    /// dump), with the state a served registry has: a tool that declares
    /// `Events` builds here too, and its events reach no one.
    pub fn build_registry(mut self, store: &Store) -> Result<Arc<Registry>, StartError> {
        let (_, events) = Events::new(&self.mounts);
        let registry = self.registry_builder(store, events)?;
        let registry = registry.build()?;
        LiveRegistry::bind(&registry);
        Ok(registry)
    }

    /// The catalogs alone, over `store` (the catalog dump).
    pub fn build_catalogs(self, store: &Store) -> Result<Catalogs, StartError> {
        let intents = self.intents;
        let registry = self.build_registry(store)?;
        Ok(Catalogs::new(registry, &intents)?)
    }

    /// The registry's state is the application's plus what the runtime
    /// provides to every tool: the store, the user's clock, the events,
    /// the outbound policy, and [`LiveRegistry`] and [`LiveCatalogs`]
    /// handles (bound by `build`; [`crate::LiveGrants`] is added there).
    fn registry_builder(
        &mut self,
        store: &Store,
        events: Events,
    ) -> Result<RegistryBuilder, StartError> {
        let clock = UserClock::new(self.config.timezone.as_deref())?;
        let mut state = std::mem::take(&mut self.state);
        state.insert(store.clone());
        state.insert(clock);
        state.insert(events);
        state.insert(LiveRegistry::default());
        state.insert(LiveCatalogs::default());
        // What tools and routes that fetch take as `Shared<OutboundPolicy>`.
        state.insert(self.config.outbound.clone());
        for make in self.state_from_store.drain(..) {
            make(store, &mut state);
        }
        let mut builder = Registry::builder()
            .state(state)
            .product(self.identity.name.clone());
        // Servers sharing a database share their calls' idempotency; a
        // server that owns its store keeps its writes' in it, and starts
        // from what it kept before.
        if let Some(ledger) = crate::store::SharedCalls::of(store) {
            builder = builder.ledger(ledger);
        } else if let Some(journal) = crate::store::LocalCalls::of(store) {
            let recalled = journal.recall(RegistryLimits::default())?;
            builder = builder.journal(journal, recalled);
        }
        if let Some(make) = self.dynamic_tools.take() {
            builder = builder.dynamic_tools(make(store));
        }
        for step in self.registry_steps.drain(..) {
            builder = step(builder);
        }
        Ok(builder)
    }

    /// Opens the store (unless one was given), builds the registry and
    /// loads the settings: the server, ready to be served.
    pub fn build(mut self) -> Result<App, StartError> {
        if let Some(problem) = self.config.app_name_problem() {
            return Err(StartError::Application(problem));
        }
        let name_problems = self.mcp_names.problems();
        if !name_problems.is_empty() {
            return Err(StartError::Application(name_problems.join("\n")));
        }
        let principals = Principals::of_vocabulary()?;
        let exposable_apis = self.exposable_apis()?;
        // Same check the documents rely on: one declaration per operation.
        let classifier = self.classifier();
        // Also where each mount is placed: a misplaced one stops start-up.
        crate::http::inventory(classifier, &self.mounts)?;
        let store = match self.store.take() {
            Some(store) => store,
            None => self.open_store()?,
        };
        for job in self.start_jobs.drain(..) {
            job(&store);
        }
        // Loaded before the registry: the routes that write a grants key
        // refresh the copy through the state.
        let sources = self.grant_sources();
        let grants =
            store.run_blocking(move |connection| GrantsCache::load(connection, sources))?;
        self.state.insert(crate::LiveGrants(grants.clone()));
        let (socket_layer, events) = Events::new(&self.mounts);
        // Tools emit the application's events through the same handle.
        let registry = self.registry_builder(&store, events.clone())?;
        // The routes' `Shared<T>` against the values the tools get (the
        // registry build checks the tools').
        crate::http::missing_state(&self.mounts, registry.state_map())?;
        let tool_metrics = Arc::new(ToolMetrics::new());
        let registry = registry
            .on_result(events.tool_observer())
            .meter(ToolMetrics::meter(tool_metrics.clone()))
            .build()?;
        tool_metrics.bind(&registry);
        LiveRegistry::bind(&registry);
        let catalogs = Arc::new(Catalogs::new(registry.clone(), &self.intents)?);
        LiveCatalogs::bind(&catalogs);
        let auth = Auth::load(
            store.clone(),
            self.config.session_ttl,
            &self.config.session_cookie(),
        )?;
        let apis = exposable_apis.clone();
        let api_access =
            store.run_blocking(move |connection| ApiAccessCache::load(connection, apis))?;
        let agent_context = store.run_blocking(|connection| AgentContextCache::load(connection))?;
        let request_state = store.run_blocking(RequestStateKey::load)?;
        let documents = self.documents_with(classifier);
        let remote = match &self.config.remote {
            Some(config) => Some(Arc::new(
                crate::remote::RemoteAuth::new(
                    config.clone(),
                    &self.config.outbound,
                    &self.identity.name,
                )
                .map_err(StartError::Application)?,
            )),
            None => None,
        };
        let jobs = crate::jobs::Jobs::new(
            registry.clone(),
            store.clone(),
            grants.clone(),
            events.clone(),
        );
        Ok(App(Arc::new(AppState {
            identity: self.identity,
            principals,
            mounts: self.mounts,
            mcp_names: self.mcp_names,
            mcp_refusals: self.mcp_names.refusal_codes(),
            jobs,
            grants,
            api_access,
            exposable_apis,
            catalogs,
            classifier,
            registry,
            store,
            auth,
            events,
            socket_layer,
            config: Arc::new(self.config),
            agent_context,
            context_tools: self.context_tools,
            settings_observer: self.settings_observer,
            documents,
            remote,
            metrics: Arc::new(Metrics::new(
                tool_metrics,
                crate::mcp::telemetry::operation_metrics(),
            )),
            metric_sources: self.metric_sources,
            mcp_sessions: crate::agent_tools::session::Sessions::default(),
            request_state,
        })))
    }
}

#[cfg(test)]
mod tests {
    use portos_core::__private::v1::{
        ArgumentError, BoundCall, IntentRule, PolicyDecl, SourceLocation, ToolDescriptor,
    };
    use portos_core::{Confirmation, SideEffect, StateNeed};
    use serde_json::{Value, json};

    use super::*;

    fn group(id: &'static str, prefix: &'static str) -> ExposableApi {
        ExposableApi {
            id,
            label: "A group",
            description: "For the test.",
            prefix,
        }
    }

    fn builder() -> ServerBuilder {
        ServerBuilder::new("Test", "0.0.0", Config::default())
    }

    #[test]
    fn api_groups_outside_the_public_prefix_or_declared_twice_are_refused() {
        let outside = builder().exposable_api(group("a", "/api/a/"));
        let error = outside.exposable_apis().expect_err("outside /api/public/");
        assert!(error.to_string().contains("`/api/a/`"), "{error}");

        let twice = builder()
            .exposable_api(group("a", "/api/public/a/"))
            .exposable_api(group("a", "/api/public/b/"));
        let error = twice.exposable_apis().expect_err("the same id twice");
        assert!(error.to_string().contains("declared twice"), "{error}");

        let good = builder()
            .exposable_api(group("a", "/api/public/a/"))
            .exposable_api(group("b", "/api/public/b/"));
        assert_eq!(good.exposable_apis().expect("valid").len(), 2);
    }

    #[test]
    fn a_built_server_serves_the_application_state_and_none_it_was_not_given() {
        let store = Store::open_in_memory(&[]).expect("store");
        let app = builder()
            .state(Site("lab"))
            .with_store(store)
            .build()
            .expect("built");
        let state = app.registry.state();
        assert_eq!(*state.shared::<Site>().expect("given"), Site("lab"));
        assert_eq!(
            state.shared::<String>().expect_err("not given"),
            portos_core::MissingState(std::any::type_name::<String>())
        );
        assert_eq!(app.identity.agent_tools_name, "Test Agent Tools");
    }

    #[test]
    fn start_jobs_run_once_on_the_built_servers_store_and_not_for_a_registry() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let ran = Arc::new(AtomicUsize::new(0));
        let counter = ran.clone();
        let job = move |store: &Store| {
            assert!(store.path().is_none(), "the store the server was given");
            counter.fetch_add(1, Ordering::SeqCst);
        };
        let store = Store::open_in_memory(&[]).expect("store");
        builder()
            .on_start(job.clone())
            .build_registry(&store)
            .expect("registry");
        assert_eq!(ran.load(Ordering::SeqCst), 0, "a dump changes nothing");
        builder()
            .on_start(job)
            .with_store(store)
            .build()
            .expect("built");
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }

    #[derive(Debug, PartialEq)]
    struct Site(&'static str);

    fn no_input() -> Value {
        json!({ "type": "object", "properties": {}, "additionalProperties": false })
    }

    fn any_output() -> Value {
        json!({ "type": "object" })
    }

    fn bind(arguments: Value) -> Result<BoundCall, ArgumentError> {
        Ok(BoundCall::new(arguments, |_| {
            Box::pin(async {
                portos_core::OutputJson::from_value(json!({})).map_err(|error| error.to_string())
            })
        }))
    }

    /// A tool that reads the runtime's state and the application's `Site`,
    /// written by hand so no other test's registry links it.
    static NEEDS_SITE: ToolDescriptor = ToolDescriptor {
        name: "lab.site",
        version: 1,
        not_strict: None,
        content_output: || false,
        requires_client: &[],
        requires_tasks: false,
        ask_first: None,
        description: "Reads the site.",
        provider_name: "lab_site",
        aliases: &[],
        policy: PolicyDecl {
            scopes: &["ui"],
            capabilities: &[],
            side_effect: SideEffect::Read,
            idempotent: true,
            is_async: false,
            long_running: false,
            confirmation: Confirmation::None,
            open_world: false,
            unguarded: None,
        },
        intent: IntentRule {
            group: None,
            suppress_on_form_fill: false,
        },
        input_schema: no_input,
        output_schema: any_output,
        bind,
        state: &[
            StateNeed::of::<Store>(),
            StateNeed::of::<UserClock>(),
            StateNeed::of::<Events>(),
            StateNeed::of::<Site>(),
        ],
        location: SourceLocation {
            file: file!(),
            line: line!(),
            column: column!(),
        },
    };

    fn builder_of_site_tool() -> ServerBuilder {
        builder().configure_registry(|registry| registry.descriptors([&NEEDS_SITE]))
    }

    #[test]
    fn a_server_without_the_state_a_tool_declares_does_not_start() {
        let store = Store::open_in_memory(&[]).expect("store");
        let error = builder_of_site_tool()
            .with_store(store)
            .build()
            .expect_err("no Site given");
        let StartError::Registry(error) = error else {
            panic!("a registry error, not {error}");
        };
        // Only `Site` is missing: the runtime provides the store, the clock
        // and the events to every tool.
        assert_eq!(
            error.problems,
            [format!(
                "tool `lab.site` ({}) needs state `{}`, which the server does not provide",
                NEEDS_SITE.location,
                std::any::type_name::<Site>()
            )]
        );
    }

    #[test]
    fn the_runtime_state_and_the_given_state_satisfy_a_tool() {
        let store = Store::open_in_memory(&[]).expect("store");
        let app = builder_of_site_tool()
            .state(Site("lab"))
            .with_store(store.clone())
            .build()
            .expect("every declared state is there");
        assert!(app.registry.resolve("lab.site").is_some());
        // The registry alone (the catalog dump, tests) has the same state.
        let registry = builder_of_site_tool()
            .state(Site("lab"))
            .build_registry(&store)
            .expect("built without a served socket");
        assert!(registry.resolve("lab.site").is_some());
    }
}
