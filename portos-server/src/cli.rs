//! The command line of a server built on the runtime: serve (the default),
//! or dump a document and exit without binding a port. Every `--dump-*`
//! flag prints exactly the body the matching HTTP endpoint serves. An
//! application adds its own flags, file keys and one-shot jobs through
//! [`Application`].

use std::io::Write;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;

use clap::{ArgGroup, Args, CommandFactory, FromArgMatches, Parser};
use portos_core::{CatalogFormat, CatalogQuery, CatalogScope};

use crate::api_access::ApiAccess;
use crate::app::App;
use crate::builder::ServerBuilder;
use crate::config::program;
use crate::config::{Config, FileConfig};
use crate::outbound::OutboundPolicy;
use crate::store::Store;
use crate::{auth, serve};

/// An application as its command line sees it: its name, its own flags
/// and file keys, and how it fills the builder.
pub trait Application {
    /// The application's flags, beside the runtime's (`clap::Args`).
    type Flags: Args + std::fmt::Debug;
    /// The application's keys of the TOML file (refuse unknown keys).
    type FileKeys: serde::de::DeserializeOwned + Default;

    /// The command's name in `--help`.
    const COMMAND: &'static str;
    /// `--help`'s first line.
    const ABOUT: &'static str;
    /// What `--version` prints (the application's `CARGO_PKG_VERSION`).
    const VERSION: &'static str;

    /// The server for `config`: name, state, tables, API groups, context.
    fn builder(
        config: Config,
        flags: &Self::Flags,
        file: Self::FileKeys,
    ) -> Result<ServerBuilder, String>;

    /// A one-shot job the application's flags ask for, run on the built
    /// server instead of serving it; `None` (the default): do what the
    /// runtime's flags say. Put the flag in the `dump` group
    /// (`#[arg(long, group = "dump")]`) so it excludes the other one-shot
    /// flags.
    fn command(flags: &Self::Flags) -> Option<Command> {
        let _ = flags;
        None
    }
}

/// An application's one-shot job: it gets the built server (store open and
/// migrated, registry built, no port bound) and says how the process exits.
pub type Command = Box<dyn FnOnce(App) -> Pin<Box<dyn Future<Output = ExitCode> + Send>> + Send>;

/// The runtime's command line and the application's flags.
#[derive(Debug, Parser)]
struct Cli<F: Args> {
    #[command(flatten)]
    runtime: RuntimeArgs,
    #[command(flatten)]
    application: F,
}

/// The runtime's flags.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("dump").multiple(false)))]
#[command(group(ArgGroup::new("catalog_dump").multiple(false)))]
pub(crate) struct RuntimeArgs {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<std::net::SocketAddr>,

    /// Directory of the embedded SQLite store.
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// A PostgreSQL database as the store, shared by every server given the
    /// same URL (postgres://user:password@host:port/database); without it
    /// the embedded SQLite store in the data directory.
    // Without the `postgres` feature it stays, out of --help, to be refused
    // with the feature's name rather than as an unknown flag.
    #[arg(long, value_name = "URL")]
    #[cfg_attr(not(feature = "postgres"), arg(hide = true))]
    pub database_url: Option<String>,

    /// IANA time zone for every user-facing date (default: the system zone).
    #[arg(long, value_name = "ZONE")]
    pub timezone: Option<String>,

    /// Largest accepted request body, in bytes (default 1 MiB).
    #[arg(long, value_name = "BYTES")]
    pub body_limit: Option<usize>,

    /// Optional TOML file with the same settings (kebab-case keys: bind, data-dir, database-url, timezone, body-limit, session-hours, outbound-allow, outbound-only, outbound-hosts, remote-issuer, remote-resource, remote-scopes, remote-clock-skew, otlp-endpoint, and the application's).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// How long a login session lasts, in hours (default 168).
    #[arg(long, value_name = "HOURS")]
    pub session_hours: Option<u64>,

    /// Destinations outbound requests may reach besides public addresses
    /// (services on the LAN, say): comma-separated address
    /// ranges, addresses, host names, `*.domains` or `loopback`, e.g.
    /// `192.168.1.0/24,feeds.lan`.
    #[arg(long, value_name = "LIST")]
    pub outbound_allow: Option<String>,

    /// The only destinations outbound requests may reach (no public
    /// address, no other name looked up), e.g. `loopback` for tests.
    #[arg(long, value_name = "LIST")]
    pub outbound_only: Option<String>,

    /// Host names outbound requests resolve to the given addresses instead
    /// of looking them up (a `hosts` file for this server's requests), e.g.
    /// `feeds.lan=192.168.1.20`; the addresses are still judged by the
    /// outbound policy.
    #[arg(long, value_name = "LIST")]
    pub outbound_hosts: Option<String>,

    /// Remote mode (docs/remote.md): the authorization server whose access
    /// tokens the MCP endpoint and the tool routes accept, from any
    /// address (its issuer URL, e.g. `https://auth.example.com/realms/lab`).
    /// Off by default: loopback and the password gate.
    #[arg(long, value_name = "URL")]
    pub remote_issuer: Option<String>,

    /// Remote mode: this server's resource identifier, the URL clients
    /// reach its MCP endpoint at; tokens must name it in `aud`.
    #[arg(long, value_name = "URL")]
    pub remote_resource: Option<String>,

    /// Remote mode: which token scope grants which capabilities,
    /// `scope=capability+capability,…` (default: each capability is a
    /// scope of its own name).
    #[arg(long, value_name = "MAP")]
    pub remote_scopes: Option<String>,

    /// Remote mode: how far the issuer's clock may be off, in seconds
    /// (default 60, at most 600).
    #[arg(long, value_name = "SECONDS")]
    pub remote_clock_skew: Option<u64>,

    /// Export traces (docs/observability.md): the OTLP/HTTP collector's
    /// base URL, e.g. http://127.0.0.1:4318 (spans go to its /v1/traces).
    /// Also OpenTelemetry's own OTEL_EXPORTER_OTLP_ENDPOINT;
    /// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names the traces URL itself and
    /// OTEL_SERVICE_NAME the service (default: the application's name).
    /// Off by default.
    #[arg(long, value_name = "URL", env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    #[cfg_attr(not(feature = "otel"), arg(hide = true))]
    pub otlp_endpoint: Option<String>,

    /// Set the instance password from the first line of standard input, then exit.
    #[arg(long, group = "dump")]
    pub set_password: bool,

    /// Copy the SQLite store of the data directory into the PostgreSQL
    /// database at URL (which must hold no store yet), then exit: the way
    /// from one server to several behind a load balancer.
    #[arg(long, group = "dump", value_name = "URL")]
    #[cfg_attr(not(feature = "postgres"), arg(hide = true))]
    pub copy_to_database: Option<String>,

    /// Remove the instance password (HTTP becomes anonymous again), then exit.
    #[arg(long, group = "dump")]
    pub clear_password: bool,

    /// Instance password to set at start-up (prefer --set-password: the
    /// environment of a process can be read by its user).
    #[arg(long = "password-from-env", hide = true, value_name = "PASSWORD")]
    pub password: Option<String>,

    /// Serve Agent Tools MCP on standard input/output (newline-delimited
    /// JSON-RPC) instead of HTTP; logs go to stderr.
    #[arg(long, group = "dump")]
    pub mcp_stdio: bool,

    /// Print the tool catalog (as the catalog endpoint serves it) and exit.
    #[arg(long, groups = ["dump", "catalog_dump"])]
    pub dump_catalog: bool,

    /// Print what a strict provider format (--format openai-strict,
    /// anthropic-strict or gemini) drops or rewrites in each tool's input
    /// schema (the catalog's `projection` field) and exit.
    #[arg(long, groups = ["dump", "catalog_dump"])]
    pub dump_projection_report: bool,

    /// Print the resources, resource templates and prompts of a scope
    /// (--scope; as GET {tools}/primitives serves them) and exit.
    #[arg(long, groups = ["dump", "catalog_dump"])]
    pub dump_primitives: bool,

    /// Print the HTTP route inventory (as the documents mount serves catalog.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_routes: bool,

    /// Print the internal OpenAPI 3.0.3 document (the documents mount's internal/openapi.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_openapi: bool,

    /// Print the public OpenAPI 3.0.3 document (the documents mount's openapi.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_openapi_public: bool,

    /// Print the HTTP tool resource (the documents mount's tools.min.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_tools_min: bool,

    /// Print the Socket.IO event inventory (the documents mount's events.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_events: bool,

    /// Print the AsyncAPI 3.0.0 document (the documents mount's asyncapi.json) and exit.
    #[arg(long, group = "dump")]
    pub dump_asyncapi: bool,

    /// Catalog scope: all, or one of the application's scopes.
    #[arg(long, requires = "catalog_dump", value_name = "SCOPE")]
    pub scope: Option<String>,

    /// Catalog format: portos, openai, anthropic, mcp, openai-strict,
    /// anthropic-strict, gemini.
    #[arg(long, requires = "catalog_dump", value_name = "FORMAT")]
    pub format: Option<String>,

    /// Catalog intent filter (voice tools only).
    #[arg(long, requires = "catalog_dump", value_name = "TEXT")]
    pub intent: Option<String>,
}

/// The runtime's flags that an environment variable can set, and the
/// variable's name after the application's prefix (`PORTOS_BIND`).
const FROM_ENVIRONMENT: [(&str, &str); 15] = [
    ("bind", "BIND"),
    ("data_dir", "DATA_DIR"),
    ("database_url", "DATABASE_URL"),
    ("timezone", "TIMEZONE"),
    ("body_limit", "BODY_LIMIT"),
    ("config", "CONFIG"),
    ("session_hours", "SESSION_HOURS"),
    ("outbound_allow", "OUTBOUND_ALLOW"),
    ("outbound_only", "OUTBOUND_ONLY"),
    ("outbound_hosts", "OUTBOUND_HOSTS"),
    ("remote_issuer", "REMOTE_ISSUER"),
    ("remote_resource", "REMOTE_RESOURCE"),
    ("remote_scopes", "REMOTE_SCOPES"),
    ("remote_clock_skew", "REMOTE_CLOCK_SKEW"),
    ("password", "PASSWORD"),
];

/// The runtime's flags read their environment variables under the
/// application's prefix: `PORTOS_BIND` for PortOS, `HOMELAB_BIND` for the
/// homelab.
fn with_environment(command: clap::Command, app: &str) -> clap::Command {
    let prefix = crate::config::env_prefix(app);
    FROM_ENVIRONMENT
        .iter()
        .fold(command, |command, (flag, variable)| {
            // clap keeps the name for the process's life, as the parsed
            // command line does: one small string per flag, once.
            let name: &'static str = Box::leak(format!("{prefix}_{variable}").into_boxed_str());
            command.mut_arg(*flag, |arg| arg.env(name))
        })
}

/// Parses the command line and runs what it asks for.
pub fn main<A: Application>() -> ExitCode {
    let command = with_environment(Cli::<A::Flags>::command(), A::COMMAND)
        .name(A::COMMAND)
        .bin_name(A::COMMAND)
        .about(A::ABOUT)
        .version(A::VERSION);
    let cli = match Cli::<A::Flags>::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    let builder = match resolve::<A>(&cli) {
        Ok(builder) => builder,
        Err(message) => return fail(&message, ExitCode::from(2)),
    };
    if let Some(command) = A::command(&cli.application) {
        return run_command(builder, command);
    }
    run(&cli.runtime, builder)
}

/// Builds the server and runs an application's one-shot job on it.
fn run_command(builder: ServerBuilder, command: Command) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            return fail(
                &format!("cannot start the runtime: {error}"),
                ExitCode::FAILURE,
            );
        }
    };
    let traces = match serve::install_telemetry(&builder, runtime.handle()) {
        Ok(traces) => traces,
        Err(message) => return fail(&message, ExitCode::FAILURE),
    };
    let code = runtime.block_on(async move {
        let app = match builder.build() {
            Ok(app) => app,
            Err(error) => return fail(&error.to_string(), ExitCode::FAILURE),
        };
        let registry = app.registry.clone();
        let code = command(app).await;
        // Tell any adapter still running that the process is ending.
        registry.shutdown_token().cancel();
        code
    });
    traces.shutdown();
    code
}

fn resolve<A: Application>(cli: &Cli<A::Flags>) -> Result<ServerBuilder, String> {
    let (file, application) = match &cli.runtime.config {
        Some(path) => FileConfig::load::<A::FileKeys>(path).map_err(|error| error.to_string())?,
        None => (FileConfig::default(), A::FileKeys::default()),
    };
    let config = resolve_config(&cli.runtime, file, A::COMMAND)?;
    A::builder(config, &cli.application, application)
}

/// Runs what the runtime's flags ask for with the application's builder.
pub(crate) fn run(cli: &RuntimeArgs, builder: ServerBuilder) -> ExitCode {
    if cli.dump_catalog {
        return dump_catalog(cli, builder);
    }
    if cli.dump_projection_report {
        return dump_projection_report(cli, builder);
    }
    if cli.dump_primitives {
        return dump_primitives(cli, builder);
    }
    if let Some(document) = dump_document(cli, &builder) {
        return match document {
            Ok(body) => print_document(&body),
            Err(message) => fail(&message, ExitCode::FAILURE),
        };
    }
    if cli.mcp_stdio {
        return crate::stdio::run(builder);
    }
    if cli.set_password || cli.clear_password {
        return change_password(&builder, cli.set_password);
    }
    if let Some(url) = &cli.copy_to_database {
        return copy_to_database(&builder, url);
    }
    if let Some(password) = cli.password.as_deref()
        && let Err(message) = password_from_env(&builder, password)
    {
        return fail(&message, ExitCode::FAILURE);
    }
    serve::run(builder)
}

/// The document a `--dump-*` flag asks for, if any.
fn dump_document(cli: &RuntimeArgs, builder: &ServerBuilder) -> Option<Result<String, String>> {
    let documents = builder.documents();
    let document = if cli.dump_routes {
        stored_api_access(builder).and_then(|access| documents.routes_catalog(&access))
    } else if cli.dump_openapi {
        documents
            .internal_openapi()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    } else if cli.dump_openapi_public {
        stored_api_access(builder)
            .and_then(|access| documents.public_openapi(&access))
            .map(|text| text.to_string())
    } else if cli.dump_tools_min {
        documents
            .tools_min()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    } else if cli.dump_events {
        documents
            .events_json()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    } else if cli.dump_asyncapi {
        documents
            .asyncapi()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    } else {
        return None;
    };
    Some(document)
}

fn resolve_config(cli: &RuntimeArgs, file: FileConfig, app: &str) -> Result<Config, String> {
    let defaults = Config::new(app);
    let outbound = outbound_policy(
        cli.outbound_allow.clone().or(file.outbound_allow),
        cli.outbound_only.clone().or(file.outbound_only),
        cli.outbound_hosts.clone().or(file.outbound_hosts),
    )?;
    let remote = crate::remote::RemoteSettings {
        issuer: cli.remote_issuer.clone().or(file.remote_issuer),
        resource: cli.remote_resource.clone().or(file.remote_resource),
        scopes: cli.remote_scopes.clone().or(file.remote_scopes),
        clock_skew_seconds: cli.remote_clock_skew.or(file.remote_clock_skew),
    }
    .resolve()?;
    let traces = crate::trace_export::TraceExport::resolve(
        cli.otlp_endpoint
            .as_deref()
            .or(file.otlp_endpoint.as_deref()),
        std::env::var(crate::trace_export::TRACES_ENDPOINT_VARIABLE)
            .ok()
            .as_deref(),
        std::env::var(crate::trace_export::SERVICE_NAME_VARIABLE)
            .ok()
            .as_deref(),
    )?;
    let database_url = cli.database_url.clone().or(file.database_url);
    #[cfg(not(feature = "postgres"))]
    if database_url.is_some() {
        return Err(no_postgres(&format!(
            "--database-url (or {}_DATABASE_URL, database-url in the config file)",
            crate::config::env_prefix(app)
        )));
    }
    Ok(Config {
        app: defaults.app,
        bind: cli.bind.or(file.bind).unwrap_or(defaults.bind),
        data_dir: cli
            .data_dir
            .clone()
            .or(file.data_dir)
            .unwrap_or(defaults.data_dir),
        database_url,
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
        outbound,
        remote,
        traces,
    })
}

/// The outbound policy the flags, variables or file keys ask for (the
/// default: public addresses only; an empty value is no value, so a
/// variable set empty unsets it); every bad entry is named.
fn outbound_policy(
    allow: Option<String>,
    only: Option<String>,
    hosts: Option<String>,
) -> Result<OutboundPolicy, String> {
    fn named<E: ToString>(flag: &str, bad: &[E]) -> String {
        let entries: Vec<String> = bad.iter().map(ToString::to_string).collect();
        format!("{flag}: {}", entries.join("; "))
    }
    let given = |value: Option<String>| value.filter(|list| !list.trim().is_empty());
    let policy = match (given(allow), given(only)) {
        (Some(_), Some(_)) => {
            return Err("give --outbound-allow or --outbound-only, not both".to_owned());
        }
        (Some(list), None) => {
            OutboundPolicy::allowing(&list).map_err(|bad| named("--outbound-allow", &bad))?
        }
        (None, Some(list)) => {
            OutboundPolicy::only(&list).map_err(|bad| named("--outbound-only", &bad))?
        }
        (None, None) => OutboundPolicy::public_only(),
    };
    match given(hosts) {
        Some(list) => policy
            .with_hosts(&list)
            .map_err(|bad| named("--outbound-hosts", &bad)),
        None => Ok(policy),
    }
}

/// Parses the catalog flags as the HTTP query is parsed, so a value the
/// endpoint refuses is refused here too (exit 2, one line).
fn catalog_query(cli: &RuntimeArgs) -> Result<CatalogQuery, String> {
    let scope = match cli.scope.as_deref() {
        Some(value) => value
            .parse::<CatalogScope>()
            .map_err(|()| invalid("--scope", value, CatalogScope::values()))?,
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

/// What a build without the `postgres` feature says of a PostgreSQL URL
/// given to `flag`.
#[cfg(not(feature = "postgres"))]
fn no_postgres(flag: &str) -> String {
    format!(
        "{flag}: this build has no PostgreSQL store, it was compiled without portos-server's `postgres` cargo feature; leave the URL out to use the embedded SQLite store, or build with the feature"
    )
}

/// `--copy-to-database` in a build without the `postgres` feature.
#[cfg(not(feature = "postgres"))]
fn copy_to_database(_: &ServerBuilder, _: &str) -> ExitCode {
    fail(&no_postgres("--copy-to-database"), ExitCode::from(2))
}

/// `--copy-to-database`: the data directory's store into PostgreSQL.
#[cfg(feature = "postgres")]
fn copy_to_database(builder: &ServerBuilder, url: &str) -> ExitCode {
    let data_dir = &builder.config().data_dir;
    let database = builder.config().database_path();
    let product = &builder.identity().name;
    match crate::store::copy_into_postgres(&database, url, builder.schemas(), product) {
        Ok(copied) => {
            let rows: usize = copied.iter().map(|(_, rows)| rows).sum();
            let mut report: String = copied
                .iter()
                .map(|(table, count)| format!("{table}: {count}\n"))
                .collect();
            report.push_str(&format!(
                "copied {rows} rows of {} tables from {} into the database",
                copied.len(),
                data_dir.display()
            ));
            print_document(&report)
        }
        Err(error) => fail(
            &format!("cannot copy the store: {error}"),
            ExitCode::FAILURE,
        ),
    }
}

fn invalid(flag: &str, value: &str, allowed: &[&str]) -> String {
    format!(
        "invalid value '{value}' for {flag} (allowed: {})",
        allowed.join(", ")
    )
}

/// The store's settings for a dump: the existing store opened read-only, or
/// an empty in-memory one when there is none yet. Nothing is created.
fn settings_store(builder: &ServerBuilder) -> Result<Store, String> {
    let existing = match &builder.config().database_url {
        Some(url) => Store::connect_existing(url, builder.schemas()),
        None => {
            Store::open_existing_read_only(&builder.config().database_path(), builder.schemas())
        }
    };
    match existing {
        Ok(Some(store)) => Ok(store),
        Ok(None) => Store::open_in_memory(builder.schemas()).map_err(|error| error.to_string()),
        Err(error) => Err(error.to_string()),
    }
}

fn stored_api_access(builder: &ServerBuilder) -> Result<ApiAccess, String> {
    let groups = builder
        .exposable_apis()
        .map_err(|error| error.to_string())?;
    settings_store(builder)?
        .run_blocking(|connection| ApiAccess::load(connection, groups))
        .map_err(|error| error.to_string())
}

fn dump_catalog(cli: &RuntimeArgs, builder: ServerBuilder) -> ExitCode {
    let query = match catalog_query(cli) {
        Ok(query) => query,
        Err(message) => return fail(&message, ExitCode::from(2)),
    };
    match render_catalog(&query, builder) {
        Ok(catalog) => print_document(catalog.to_json()),
        Err(message) => fail(&message, ExitCode::FAILURE),
    }
}

/// `--dump-projection-report`: the `projection` field of the strict
/// format's catalog, with what it is a report of.
fn dump_projection_report(cli: &RuntimeArgs, builder: ServerBuilder) -> ExitCode {
    let query = match catalog_query(cli) {
        Ok(query) if query.format.dialect().is_some() => query,
        Ok(_) => {
            let strict: Vec<&str> = CatalogFormat::ALL
                .iter()
                .filter(|format| format.dialect().is_some())
                .map(|format| format.as_str())
                .collect();
            return fail(
                &format!(
                    "--dump-projection-report needs --format {}",
                    strict.join(", ")
                ),
                ExitCode::from(2),
            );
        }
        Err(message) => return fail(&message, ExitCode::from(2)),
    };
    let catalog = match render_catalog(&query, builder) {
        Ok(catalog) => catalog,
        Err(message) => return fail(&message, ExitCode::FAILURE),
    };
    let report = serde_json::json!({
        "type": "projection_report",
        "format": query.format.as_str(),
        "scope": query.scope.as_str(),
        "tools": catalog.body()["projection"],
    });
    match serde_json::to_string_pretty(&report) {
        Ok(text) => print_document(&text),
        Err(error) => fail(&error.to_string(), ExitCode::FAILURE),
    }
}

/// The catalog `query` asks for, with the grants of the store (if any).
fn render_catalog(
    query: &CatalogQuery,
    builder: ServerBuilder,
) -> Result<portos_core::Catalog, String> {
    with_catalogs(builder, |catalogs, grants| {
        catalogs.render(query, grants.for_catalog(query.scope))
    })
}

/// `--dump-primitives`: the primitive catalog of `--scope`.
fn dump_primitives(cli: &RuntimeArgs, builder: ServerBuilder) -> ExitCode {
    if cli.format.is_some() || cli.intent.is_some() {
        return fail(
            "--dump-primitives takes --scope only (not --format or --intent)",
            ExitCode::from(2),
        );
    }
    let query = match catalog_query(cli) {
        Ok(query) => query,
        Err(message) => return fail(&message, ExitCode::from(2)),
    };
    match with_catalogs(builder, |catalogs, grants| {
        catalogs
            .registry()
            .primitives()
            .catalog(query.scope, grants.for_catalog(query.scope))
    }) {
        Ok(catalog) => print_document(&catalog.0.to_string()),
        Err(message) => fail(&message, ExitCode::FAILURE),
    }
}

/// What `read` makes of the built catalogs and the stored grants (from the
/// store, when there is one).
fn with_catalogs<T>(
    builder: ServerBuilder,
    read: impl FnOnce(&portos_core::catalog::Catalogs, &crate::grants::StoredGrants) -> T,
) -> Result<T, String> {
    let store = settings_store(&builder)?;
    let sources = builder.grant_sources();
    let grants = store
        .run_blocking(move |connection| crate::grants::StoredGrants::load(connection, &sources))
        .map_err(|error| error.to_string())?;
    let catalogs = builder
        .build_catalogs(&store)
        .map_err(|error| error.to_string())?;
    Ok(read(&catalogs, &grants))
}

/// `--set-password` (first line of stdin) or `--clear-password`.
fn change_password(builder: &ServerBuilder, set: bool) -> ExitCode {
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
    let outcome = builder
        .open_store()
        .map_err(|error| error.to_string())
        .and_then(|store| {
            auth::store_password(&store, password.as_deref()).map_err(|error| error.to_string())
        });
    match outcome {
        Ok(()) => {
            let what = if set { "set" } else { "cleared" };
            let _ = writeln!(
                std::io::stderr(),
                "{}: instance password {what}; every session was ended",
                program()
            );
            ExitCode::SUCCESS
        }
        Err(message) => fail(&message, ExitCode::FAILURE),
    }
}

/// `PORTOS_PASSWORD`: stored unless it already matches, so a restart with the
/// same environment keeps sessions alive.
fn password_from_env(builder: &ServerBuilder, password: &str) -> Result<(), String> {
    let store = builder.open_store().map_err(|error| error.to_string())?;
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
    let _ = writeln!(std::io::stderr(), "{}: {message}", program());
    code
}

/// For an application without flags of its own.
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct NoFlags {}

/// For an application without keys of its own in the TOML file.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoFileKeys {}
