//! Server configuration: CLI flags, the application's environment variables
//! (`PORTOS_*` for PortOS: its command's name in capitals), and an optional
//! TOML file, in that order of precedence.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

pub(crate) const DEFAULT_BIND: &str = "127.0.0.1:5555";
pub(crate) const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
pub(crate) const DEFAULT_SESSION_HOURS: u64 = 24 * 7;
/// The application name of a [`Config::default`] (a server built without
/// the command line names itself).
pub(crate) const DEFAULT_APP: &str = "server";

/// The resolved configuration the server runs with.
#[derive(Clone, Debug)]
pub struct Config {
    /// The application's short name, its command's (`portos`, `homelab`):
    /// the root of the names the runtime derives for it, so that two
    /// applications on one machine never share them. See
    /// [`Config::new`].
    pub app: String,
    pub bind: SocketAddr,
    pub data_dir: PathBuf,
    /// The shared store: a `postgres://` URL; `None` = the embedded SQLite
    /// store in `data_dir`. A build without the `postgres` feature refuses
    /// a URL at start-up (`StoreError::PostgresNotBuilt`).
    pub database_url: Option<String>,
    /// IANA zone for every user-facing date; `None` = the system zone.
    pub timezone: Option<String>,
    /// Largest accepted request body, in bytes.
    pub body_limit: usize,
    /// How long a login session lasts.
    pub session_ttl: Duration,
    /// Where the server may send requests (`crate::outbound`): public
    /// addresses by default.
    pub outbound: crate::outbound::OutboundPolicy,
    /// Remote mode (docs/remote.md): the MCP endpoint and the tool routes
    /// answer any address that brings an access token from this issuer;
    /// `None` (the default): loopback and the password gate, as ever.
    pub remote: Option<crate::remote::RemoteConfig>,
    /// Where spans are exported (docs/observability.md); `None` (the
    /// default): nowhere, and no span is recorded. A build without the
    /// `otel` feature refuses an export at start-up.
    pub traces: Option<crate::trace_export::TraceExport>,
}

impl Default for Config {
    fn default() -> Self {
        Config::new(DEFAULT_APP)
    }
}

impl Config {
    /// The defaults of the application named `app` (its command's name):
    /// data in `./{app}-data`, the SQLite store in `{app}.db` there, the
    /// login cookie `{app}_session`, environment variables `{APP}_*`.
    pub fn new(app: &str) -> Config {
        Config {
            app: app.to_owned(),
            bind: DEFAULT_BIND
                .parse()
                .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 5555))),
            data_dir: default_data_dir(app),
            database_url: None,
            timezone: None,
            body_limit: DEFAULT_BODY_LIMIT,
            session_ttl: Duration::from_secs(DEFAULT_SESSION_HOURS * 3600),
            outbound: crate::outbound::OutboundPolicy::public_only(),
            remote: None,
            traces: None,
        }
    }

    /// What is wrong with the application's name, if anything: it becomes
    /// a file name, a cookie name and an environment prefix, so it is
    /// `[a-z][a-z0-9-]*`, at most 32 characters.
    pub fn app_name_problem(&self) -> Option<String> {
        let app = &self.app;
        let fits = app.len() <= 32
            && app.starts_with(|c: char| c.is_ascii_lowercase())
            && app
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        (!fits).then(|| {
            format!(
                "the application's name `{app}` must be a lowercase word (`[a-z][a-z0-9-]*`, at most 32 characters): it names the data directory, the store's file, the session cookie and the environment variables"
            )
        })
    }

    /// The embedded store's file in the data directory: `{app}.db`.
    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join(database_file(&self.app))
    }

    /// The login session cookie's name: `{app}_session`.
    pub fn session_cookie(&self) -> String {
        format!("{}_session", self.app.replace('-', "_"))
    }
}

/// `./{app}-data`.
pub(crate) fn default_data_dir(app: &str) -> PathBuf {
    PathBuf::from(format!("./{app}-data"))
}

/// `{app}.db`: the embedded store's file name.
pub(crate) fn database_file(app: &str) -> String {
    format!("{app}.db")
}

/// `{APP}`: the prefix of the application's environment variables (its
/// name in capitals, `-` as `_`), e.g. `PORTOS` for `PORTOS_BIND`.
pub(crate) fn env_prefix(app: &str) -> String {
    app.to_ascii_uppercase().replace('-', "_")
}

/// The runtime's keys of the optional TOML file: every key may be omitted.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct FileConfig {
    pub bind: Option<SocketAddr>,
    pub data_dir: Option<PathBuf>,
    pub database_url: Option<String>,
    pub timezone: Option<String>,
    pub body_limit: Option<usize>,
    pub session_hours: Option<u64>,
    pub outbound_allow: Option<String>,
    pub outbound_only: Option<String>,
    pub outbound_hosts: Option<String>,
    pub remote_issuer: Option<String>,
    pub remote_resource: Option<String>,
    pub remote_scopes: Option<String>,
    pub remote_clock_skew: Option<u64>,
    pub otlp_endpoint: Option<String>,
}

/// The runtime's key names in the file; every other key is the
/// application's.
const RUNTIME_KEYS: [&str; 14] = [
    "bind",
    "data-dir",
    "database-url",
    "timezone",
    "body-limit",
    "session-hours",
    "outbound-allow",
    "outbound-only",
    "outbound-hosts",
    "remote-issuer",
    "remote-resource",
    "remote-scopes",
    "remote-clock-skew",
    "otlp-endpoint",
];

#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("cannot read the config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid config file {path}: {source}")]
    Parse {
        path: PathBuf,
        source: toml::de::Error,
    },
}

impl FileConfig {
    /// Reads the file: the runtime's keys, and the application's keys as
    /// `A` (which refuses what it does not know, so a misspelt key of either
    /// is an error).
    pub(crate) fn load<A: serde::de::DeserializeOwned>(
        path: &Path,
    ) -> Result<(FileConfig, A), ConfigError> {
        let parse_error = |source| ConfigError::Parse {
            path: path.to_owned(),
            source,
        };
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let mut table: toml::Table = toml::from_str(&text).map_err(parse_error)?;
        let mut runtime = toml::Table::new();
        for key in RUNTIME_KEYS {
            if let Some(value) = table.remove(key) {
                runtime.insert(key.to_owned(), value);
            }
        }
        let runtime: FileConfig = toml::Value::Table(runtime)
            .try_into()
            .map_err(parse_error)?;
        let application: A = toml::Value::Table(table).try_into().map_err(parse_error)?;
        Ok((runtime, application))
    }
}

/// The running program's name (its file name), for messages.
pub(crate) fn program() -> String {
    std::env::args_os()
        .next()
        .map(PathBuf::from)
        .and_then(|path| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "server".to_owned())
}
