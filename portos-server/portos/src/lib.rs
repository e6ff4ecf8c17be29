//! PortOS: the personal operating system's own domains on the portos
//! serving runtime. Every `#[portos_tool]`, `#[portos_route]` and
//! `#[portos_event]` here is linked into the `portos` binary; [`install`]
//! gives the runtime what these domains need (their tables, state, the
//! exposable API groups, the Agent Tools context and the contract's facts).

// The words every tool here names, checked by the compiler against
// PortOS's vocabulary (its own crate, `portos-words`).
portos_core::use_vocabulary!(portos_words);

pub mod contract_facts;
pub mod domains;
pub mod ledger;
pub mod shared;
pub mod store;

// The runtime's modules the domains build on, under the names they use.
pub use portos_server::{app, auth, clock, redact, settings};

use std::path::PathBuf;

use portos_core::Registry;
use portos_server::cli::Application;
use portos_server::mounts;
use portos_server::{Config, ExposableApi, McpNames, Mount, ServerBuilder, StartError};
use serde::Deserialize;

/// The product name in documents and on Agent Tools MCP.
pub const NAME: &str = "PortOS";
/// The command's name, the root of the names the runtime derives for
/// PortOS: `PORTOS_*` variables, `./portos-data`, `portos.db`, the
/// `portos_session` cookie.
pub const COMMAND: &str = "portos";

/// PortOS's default configuration (what the command line starts from).
pub fn config() -> Config {
    Config::new(COMMAND)
}

/// PortOS's default configuration with its data in `data_dir`.
pub fn config_in(data_dir: &std::path::Path) -> Config {
    Config {
        data_dir: data_dir.to_owned(),
        ..config()
    }
}
/// Where the Persistent Mind's grants are kept: the settings value its
/// capabilities routes write (`state.config.persistentMindCapabilities` in
/// the contract), an object holding one boolean per capability.
pub const MIND_GRANTS_KEY: &str = "persistentMindCapabilities";

pub use shared::actor_of;
/// Base URL of the Open-Meteo forecast API (`weather.now`).
pub const DEFAULT_WEATHER_URL: &str = "https://api.open-meteo.com";

/// PortOS's settings beside the runtime's.
#[derive(Clone, Debug)]
pub struct Options {
    /// Base URL of the Open-Meteo forecast API (`weather.now`).
    pub weather_url: String,
    /// Service names `system.processes.status` reports on; empty = every
    /// process of this machine.
    pub watch_processes: Vec<String>,
    /// The GitHub and GitLab APIs and tokens `issues.list` and
    /// `issues.file` use (default: the public APIs, no tokens).
    pub forge: domains::forge::ForgeSettings,
    /// The Persistent Mind's model (an OpenAI-compatible endpoint); `None`:
    /// turns are refused until one is configured.
    pub mind_model: Option<domains::mind::turn::provider::ProviderConfig>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            weather_url: DEFAULT_WEATHER_URL.to_owned(),
            watch_processes: Vec::new(),
            forge: domains::forge::ForgeSettings::default(),
            mind_model: None,
        }
    }
}

/// The API groups Settings → API Access can expose (docs/reference.md#openapi).
pub const EXPOSABLE_APIS: [ExposableApi; 2] = [
    ExposableApi {
        id: "brain",
        label: "Brain inbox",
        description: "Capture thoughts into the brain inbox and read the latest ones from other devices.",
        prefix: "/api/public/brain/",
    },
    ExposableApi {
        id: "clock",
        label: "Clock",
        description: "The time and date in the user's timezone, for displays and automations.",
        prefix: "/api/public/clock/",
    },
];

/// Adds PortOS's domains to a runtime builder.
pub fn install(builder: ServerBuilder, options: &Options) -> Result<ServerBuilder, StartError> {
    let weather =
        domains::weather::OpenMeteo::new(&options.weather_url, &builder.config().outbound)
            .map_err(|error| {
                StartError::Application(format!("cannot build the outbound HTTP client: {error}"))
            })?;
    let forge =
        domains::forge::ForgeClient::with_policy(options.forge.clone(), &builder.config().outbound)
            .map_err(StartError::Application)?;
    // Peer worlds are reached under the server's outbound policy.
    let peers = domains::eidoverse::peer_client::PeerClient::new(builder.config().outbound.clone())
        .map_err(|error| {
            StartError::Application(format!(
                "cannot build the peer worlds' HTTP client: {error}"
            ))
        })?;
    // The Mind's model endpoint, as the owner configured it, is allowed
    // by that configuration.
    let mind_policy = match &options.mind_model {
        Some(provider) => builder
            .config()
            .outbound
            .also_allowing_url(&provider.base_url),
        None => builder.config().outbound.clone(),
    };
    let mind_client = portos_server::outbound::OutboundClient::new(
        shared::outbound::client_builder(),
        std::sync::Arc::new(mind_policy),
    )
    .map_err(|error| {
        StartError::Application(format!(
            "cannot build the Persistent Mind's HTTP client: {error}"
        ))
    })?;
    let mind_model = domains::mind::turn::MindModel::new(options.mind_model.clone(), mind_client);
    let mut builder = builder
        .metric_source(mind_model.metrics().clone())
        .state(peers)
        .state(weather)
        .state(forge)
        .state(domains::processes::ProcessWatch::new(
            options.watch_processes.clone(),
        ))
        .state(domains::apps::RemoteCache::default())
        .state(domains::mind::turn::wake::Wakes::default())
        .state(mind_model)
        // A turn a stopped process left running is ended before anything
        // else reads the turns.
        .on_start(domains::mind::turn::recovery::at_start)
        // Saved recipes: run-time tools of the mind and agent catalogs.
        .dynamic_tools_from_store(|store| {
            std::sync::Arc::new(domains::recipes::catalog::RecipeTools::new(store.clone()))
        })
        .context_tools(domains::agent_context::PortosContext::default())
        // The runtime's settings changes are the user's actions too.
        .on_settings_change(ledger::SettingsLedger)
        .stored_grants(portos_words::MIND, MIND_GRANTS_KEY)
        // The contract's paths and event names for the runtime's routes
        // and events (its own defaults name no application), and its words
        // for the MCP endpoint.
        .mount(
            mounts::TOOLS,
            Mount::at("/api/cos/tools").with_events("cos:tools"),
        )
        .mount(mounts::MCP, Mount::at("/api/agent-context/mcp"))
        .mount(
            mounts::MCP_MANIFEST,
            Mount::at("/api/agent-context/manifest"),
        )
        .mount(
            mounts::MCP_SETTINGS,
            Mount::at("/api/settings/agent-context"),
        )
        .mount(mounts::DOCS, Mount::at("/api/api-docs"))
        .mcp_names(McpNames {
            codes: "AGENT_CONTEXT",
            title: "Agent context",
            manifest_kind: "portos-agent-context",
        })
        .tool_order(contract_facts::TOOL_ORDER)
        .intents(contract_facts::INTENTS)
        .always_public_prefixes(contract_facts::ALWAYS_PUBLIC_PREFIXES);
    for api in EXPOSABLE_APIS {
        builder = builder.exposable_api(api);
    }
    Ok(builder)
}

/// The PortOS server for `config` and `options`.
pub fn builder(config: Config, options: &Options) -> Result<ServerBuilder, StartError> {
    install(
        ServerBuilder::new(NAME, env!("CARGO_PKG_VERSION"), config),
        options,
    )
}

/// The registry of every linked tool over `store`, with PortOS's state
/// (tests, benchmarks).
pub fn build_registry(
    config: Config,
    options: &Options,
    store: &store::Store,
) -> Result<std::sync::Arc<Registry>, StartError> {
    builder(config, options)?.build_registry(store)
}

/// The `portos` command line.
#[derive(Debug)]
pub struct Portos;

/// PortOS's flags.
#[derive(Debug, clap::Args)]
pub struct Flags {
    /// Base URL of the Open-Meteo API for weather.now (default https://api.open-meteo.com).
    #[arg(long, env = "PORTOS_WEATHER_URL", value_name = "URL")]
    pub weather_url: Option<String>,

    /// A service process system.processes.status watches (repeatable; the
    /// environment variable takes a comma-separated list). None: every process.
    #[arg(
        long = "watch-process",
        env = "PORTOS_WATCH_PROCESSES",
        value_name = "NAME",
        value_delimiter = ','
    )]
    pub watch_processes: Vec<String>,

    /// GitHub's REST API base for issues.list and issues.file (default
    /// https://api.github.com, or https://<host>/api/v3 for GitHub
    /// Enterprise). The token is read from GITHUB_TOKEN or GH_TOKEN only.
    #[arg(long, env = "PORTOS_GITHUB_API_URL", value_name = "URL")]
    pub github_api_url: Option<String>,

    /// GitLab's REST API base (default https://<host>/api/v4 of the app's
    /// remote). The token is read from GITLAB_TOKEN only.
    #[arg(long, env = "PORTOS_GITLAB_API_URL", value_name = "URL")]
    pub gitlab_api_url: Option<String>,
    /// The Persistent Mind's model endpoint: the base URL of an
    /// OpenAI-compatible chat-completions API, e.g. http://127.0.0.1:8080/v1
    /// (llama.cpp), http://127.0.0.1:11434/v1 (Ollama), https://api.openai.com/v1.
    #[arg(long, env = "PORTOS_MIND_PROVIDER_URL", value_name = "URL")]
    pub mind_provider_url: Option<String>,

    /// The model the Persistent Mind asks (required with --mind-provider-url).
    #[arg(long, env = "PORTOS_MIND_MODEL", value_name = "NAME")]
    pub mind_model: Option<String>,

    /// Seconds to wait for each answer of the model (default 120, at most 600).
    #[arg(long, env = "PORTOS_MIND_TIMEOUT", value_name = "SECONDS")]
    pub mind_timeout: Option<u64>,

    /// The model provider's API key. From the environment only: a flag
    /// would show in the process list.
    #[arg(
        long = "mind-api-key-from-env",
        hide = true,
        env = "PORTOS_MIND_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub mind_api_key: Option<domains::mind::turn::config::ApiKey>,

    /// Run one Persistent Mind turn with this prompt ("" for a self-directed
    /// wake), print the stored turn as JSON and exit (0 completed, 1 failed).
    #[arg(long, group = "dump", value_name = "PROMPT")]
    pub mind_turn: Option<String>,
}

/// PortOS's keys of the TOML file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileKeys {
    pub weather_url: Option<String>,
    pub watch_processes: Option<Vec<String>>,
    pub github_api_url: Option<String>,
    pub gitlab_api_url: Option<String>,
    pub mind_provider_url: Option<String>,
    pub mind_model: Option<String>,
    pub mind_timeout: Option<u64>,
}

impl Application for Portos {
    type Flags = Flags;
    type FileKeys = FileKeys;

    const COMMAND: &'static str = COMMAND;
    const ABOUT: &'static str = "PortOS: governed agent tools over HTTP and MCP";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");

    fn builder(config: Config, flags: &Flags, file: FileKeys) -> Result<ServerBuilder, String> {
        let mind_model = domains::mind::ModelOptions {
            provider_url: flags.mind_provider_url.clone().or(file.mind_provider_url),
            model: flags.mind_model.clone().or(file.mind_model),
            api_key: flags.mind_api_key.clone().map(|key| key.0),
            timeout_secs: flags.mind_timeout.or(file.mind_timeout),
        }
        .resolve()?;
        let options = Options {
            weather_url: flags
                .weather_url
                .clone()
                .or(file.weather_url)
                .unwrap_or_else(|| DEFAULT_WEATHER_URL.to_owned()),
            watch_processes: watch_list(&flags.watch_processes, file.watch_processes),
            forge: forge_settings(flags, file.github_api_url, file.gitlab_api_url),
            mind_model,
        };
        builder(config, &options).map_err(|error| error.to_string())
    }

    fn command(flags: &Flags) -> Option<portos_server::cli::Command> {
        flags
            .mind_turn
            .clone()
            .map(domains::mind::turn::command::mind_turn)
    }
}

/// The watched process names: the flags (or environment) win over the file;
/// blanks are dropped, so `PORTOS_WATCH_PROCESSES=""` watches nothing.
fn watch_list(flags: &[String], file: Option<Vec<String>>) -> Vec<String> {
    let chosen = if flags.is_empty() {
        file.unwrap_or_default()
    } else {
        flags.to_vec()
    };
    let mut names: Vec<String> = Vec::new();
    for name in chosen.iter().map(|name| name.trim()) {
        if !name.is_empty() && !names.iter().any(|known| known == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// The forges' settings: tokens from the environment only (a token on the
/// command line or in a file would be readable by others); API URLs from
/// the flags (or their environment variables), else the file.
fn forge_settings(
    flags: &Flags,
    github_api_url: Option<String>,
    gitlab_api_url: Option<String>,
) -> domains::forge::ForgeSettings {
    let given = |url: Option<String>| url.filter(|url| !url.trim().is_empty());
    let mut settings = domains::forge::ForgeSettings::from_env();
    settings.github_api = given(flags.github_api_url.clone()).or(given(github_api_url));
    settings.gitlab_api = given(flags.gitlab_api_url.clone()).or(given(gitlab_api_url));
    settings
}

/// The default data directory, for messages.
pub fn default_data_dir() -> PathBuf {
    config().data_dir
}
