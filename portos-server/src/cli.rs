//! The `portos` command line: serve (the default), or dump a document and exit
//! without binding a port. Every `--dump-*` flag prints exactly the body the
//! matching HTTP endpoint serves.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgGroup, Parser};
use portos_core::{CatalogFormat, CatalogQuery, CatalogScope};

use crate::api_access::ApiAccess;
use crate::config::{Config, FileConfig};
use crate::store::Store;
use crate::{app, auth, serve, settings};

#[derive(Debug, Parser)]
#[command(
    name = "portos",
    version,
    about = "PortOS: governed agent tools over HTTP and MCP"
)]
#[command(group(ArgGroup::new("dump").multiple(false)))]
pub struct Cli {
    /// Address to listen on.
    #[arg(long, env = "PORTOS_BIND", value_name = "ADDR")]
    pub bind: Option<std::net::SocketAddr>,

    /// Directory of the embedded SQLite store.
    #[arg(long, env = "PORTOS_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// IANA time zone for every user-facing date (default: the system zone).
    #[arg(long, env = "PORTOS_TIMEZONE", value_name = "ZONE")]
    pub timezone: Option<String>,

    /// Largest accepted request body, in bytes (default 1 MiB).
    #[arg(long, env = "PORTOS_BODY_LIMIT", value_name = "BYTES")]
    pub body_limit: Option<usize>,

    /// Optional TOML file with the same settings (bind, data-dir, timezone, body-limit, weather-url, watch-processes).
    #[arg(long, env = "PORTOS_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// How long a login session lasts, in hours (default 168).
    #[arg(long, env = "PORTOS_SESSION_HOURS", value_name = "HOURS")]
    pub session_hours: Option<u64>,

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

    /// Set the instance password from the first line of standard input, then exit.
    #[arg(long, group = "dump")]
    pub set_password: bool,

    /// Remove the instance password (HTTP becomes anonymous again), then exit.
    #[arg(long, group = "dump")]
    pub clear_password: bool,

    /// Instance password to set at start-up (prefer --set-password: the
    /// environment of a process can be read by its user).
    #[arg(
        long = "password-from-env",
        hide = true,
        env = "PORTOS_PASSWORD",
        value_name = "PASSWORD"
    )]
    pub password: Option<String>,

    /// Serve Agent Tools MCP on standard input/output (newline-delimited
    /// JSON-RPC) instead of HTTP; logs go to stderr.
    #[arg(long, group = "dump")]
    pub mcp_stdio: bool,

    /// Print the tool catalog (as GET /api/cos/tools serves it) and exit.
    #[arg(long, group = "dump")]
    pub dump_catalog: bool,

    /// Print the HTTP route inventory (as GET /api/api-docs/catalog.json serves it) and exit.
    #[arg(long, group = "dump")]
    pub dump_routes: bool,

    /// Print the internal OpenAPI 3.0.3 document (GET /api/api-docs/internal/openapi.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_openapi: bool,

    /// Print the public OpenAPI 3.0.3 document (GET /api/api-docs/openapi.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_openapi_public: bool,

    /// Print the HTTP tool resource (GET /api/api-docs/tools.min.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_tools_min: bool,

    /// Print the Socket.IO event inventory (GET /api/api-docs/events.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_events: bool,

    /// Print the AsyncAPI 3.0.0 document (GET /api/api-docs/asyncapi.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_asyncapi: bool,

    /// Catalog scope: all, agent, mind, ui, voice.
    #[arg(long, requires = "dump_catalog", value_name = "SCOPE")]
    pub scope: Option<String>,

    /// Catalog format: portos, openai, anthropic, mcp.
    #[arg(long, requires = "dump_catalog", value_name = "FORMAT")]
    pub format: Option<String>,

    /// Catalog intent filter (voice tools only).
    #[arg(long, requires = "dump_catalog", value_name = "TEXT")]
    pub intent: Option<String>,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match resolve_config(&cli) {
        Ok(config) => config,
        Err(message) => return fail(&message, ExitCode::from(2)),
    };
    if cli.dump_catalog {
        return dump_catalog(&cli, &config);
    }
    let document: Option<Result<String, String>> = if cli.dump_routes {
        Some(
            stored_api_access(&config)
                .and_then(|access| crate::http::docs::routes_catalog(&access)),
        )
    } else if cli.dump_openapi {
        Some(crate::http::docs::internal_openapi().map(str::to_owned))
    } else if cli.dump_openapi_public {
        Some(
            stored_api_access(&config)
                .and_then(|access| crate::http::docs::public_openapi(&access))
                .map(|text| text.to_string()),
        )
    } else if cli.dump_tools_min {
        Some(crate::http::docs::tools_min().map(str::to_owned))
    } else if cli.dump_events {
        Some(crate::http::docs::events_json().map(str::to_owned))
    } else if cli.dump_asyncapi {
        Some(crate::http::docs::asyncapi(&config).map(str::to_owned))
    } else {
        None
    };
    if let Some(document) = document {
        return match document {
            Ok(body) => print_document(&body),
            Err(message) => fail(&message, ExitCode::FAILURE),
        };
    }
    if cli.mcp_stdio {
        return crate::mcp::stdio::run(config);
    }
    if cli.set_password || cli.clear_password {
        return change_password(&config, cli.set_password);
    }
    if let Some(password) = cli.password.as_deref()
        && let Err(message) = password_from_env(&config, password)
    {
        return fail(&message, ExitCode::FAILURE);
    }
    serve::run(config)
}

fn resolve_config(cli: &Cli) -> Result<Config, String> {
    let file = match &cli.config {
        Some(path) => FileConfig::load(path).map_err(|error| error.to_string())?,
        None => FileConfig::default(),
    };
    let defaults = Config::default();
    Ok(Config {
        bind: cli.bind.or(file.bind).unwrap_or(defaults.bind),
        data_dir: cli
            .data_dir
            .clone()
            .or(file.data_dir)
            .unwrap_or(defaults.data_dir),
        timezone: cli.timezone.clone().or(file.timezone),
        body_limit: cli
            .body_limit
            .or(file.body_limit)
            .unwrap_or(defaults.body_limit),
        session_ttl: cli
            .session_hours
            .or(file.session_hours)
            .map_or(defaults.session_ttl, |hours| {
                std::time::Duration::from_secs(hours.saturating_mul(3600))
            }),
        weather_url: cli
            .weather_url
            .clone()
            .or(file.weather_url)
            .unwrap_or(defaults.weather_url),
        watch_processes: watch_list(&cli.watch_processes, file.watch_processes),
    })
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

/// Parses the catalog flags as the HTTP query is parsed, so a value the
/// endpoint refuses is refused here too (exit 2, one line).
fn catalog_query(cli: &Cli) -> Result<CatalogQuery, String> {
    let scope = match cli.scope.as_deref() {
        Some(value) => value
            .parse::<CatalogScope>()
            .map_err(|()| invalid("--scope", value, &CatalogScope::VALUES))?,
        None => CatalogScope::All,
    };
    let format = match cli.format.as_deref() {
        Some(value) => value
            .parse::<CatalogFormat>()
            .map_err(|()| invalid("--format", value, &CatalogFormat::VALUES))?,
        None => CatalogFormat::Portos,
    };
    let mut pairs: Vec<(&str, &str)> = vec![("scope", scope.as_str()), ("format", format.as_str())];
    if let Some(intent) = cli.intent.as_deref() {
        pairs.push(("intent", intent));
    }
    CatalogQuery::parse(pairs).map_err(|failure| {
        let first = failure.details.first();
        format!(
            "invalid --{}: {}",
            first.map_or("intent", |d| d.path.as_str()),
            first.map_or("", |d| d.message.as_str())
        )
    })
}

fn invalid(flag: &str, value: &str, allowed: &[&str]) -> String {
    format!(
        "invalid value '{value}' for {flag} (allowed: {})",
        allowed.join(", ")
    )
}

/// The store's settings for a dump: the existing store opened read-only, or
/// an empty in-memory one when there is none yet. Nothing is created.
fn settings_store(config: &Config) -> Result<Store, String> {
    match Store::open_existing_read_only(&config.data_dir) {
        Ok(Some(store)) => Ok(store),
        Ok(None) => Store::open_in_memory().map_err(|error| error.to_string()),
        Err(error) => Err(error.to_string()),
    }
}

fn stored_api_access(config: &Config) -> Result<ApiAccess, String> {
    settings_store(config)?
        .run_blocking(|connection| ApiAccess::load(connection))
        .map_err(|error| error.to_string())
}

fn dump_catalog(cli: &Cli, config: &Config) -> ExitCode {
    let query = match catalog_query(cli) {
        Ok(query) => query,
        Err(message) => return fail(&message, ExitCode::from(2)),
    };
    // Grants come from the store when there is one.
    let store = match settings_store(config) {
        Ok(store) => store,
        Err(message) => return fail(&message, ExitCode::FAILURE),
    };
    let grants = match store.run_blocking(|connection| settings::StoredGrants::load(connection)) {
        Ok(grants) => grants,
        Err(error) => return fail(&error.to_string(), ExitCode::FAILURE),
    };
    let catalogs = app::build_registry(config, store)
        .map_err(|error| error.to_string())
        .and_then(|registry| {
            crate::contract_facts::catalogs(std::sync::Arc::new(registry))
                .map_err(|error| error.to_string())
        });
    let catalogs = match catalogs {
        Ok(catalogs) => catalogs,
        Err(message) => return fail(&message, ExitCode::FAILURE),
    };
    let catalog = catalogs.render(&query, grants.for_catalog(query.scope));
    print_document(catalog.to_json())
}

/// `--set-password` (first line of stdin) or `--clear-password`.
fn change_password(config: &Config, set: bool) -> ExitCode {
    let password = if set {
        let mut line = String::new();
        if let Err(error) = std::io::stdin().read_line(&mut line) {
            return fail(
                &format!("cannot read the password from stdin: {error}"),
                ExitCode::FAILURE,
            );
        }
        Some(line.trim_end_matches(['\r', '\n']).to_owned())
    } else {
        None
    };
    let outcome = Store::open(&config.data_dir)
        .map_err(|error| error.to_string())
        .and_then(|store| {
            auth::store_password(&store, password.as_deref()).map_err(|error| error.to_string())
        });
    match outcome {
        Ok(()) => {
            let what = if set { "set" } else { "cleared" };
            let _ = writeln!(
                std::io::stderr(),
                "portos: instance password {what}; every session was ended"
            );
            ExitCode::SUCCESS
        }
        Err(message) => fail(&message, ExitCode::FAILURE),
    }
}

/// `PORTOS_PASSWORD`: stored unless it already matches, so a restart with the
/// same environment keeps sessions alive.
fn password_from_env(config: &Config, password: &str) -> Result<(), String> {
    let store = Store::open(&config.data_dir).map_err(|error| error.to_string())?;
    if auth::password_matches_store(&store, password).map_err(|error| error.to_string())? {
        return Ok(());
    }
    auth::store_password(&store, Some(password)).map_err(|error| error.to_string())
}

fn print_document(body: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{body}").and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(
            &format!("cannot write to stdout: {error}"),
            ExitCode::FAILURE,
        ),
    }
}

fn fail(message: &str, code: ExitCode) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "portos: {message}");
    code
}
