//! Server configuration: CLI flags, `PORTOS_*` environment variables, and an
//! optional TOML file, in that order of precedence.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

pub const DEFAULT_BIND: &str = "127.0.0.1:5555";
pub const DEFAULT_DATA_DIR: &str = "./portos-data";
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
pub const DEFAULT_SESSION_HOURS: u64 = 24 * 7;
pub const DEFAULT_WEATHER_URL: &str = "https://api.open-meteo.com";

/// The resolved configuration the server runs with.
#[derive(Clone, Debug)]
pub struct Config {
    pub bind: SocketAddr,
    pub data_dir: PathBuf,
    /// IANA zone for every user-facing date; `None` = the system zone.
    pub timezone: Option<String>,
    /// Largest accepted request body, in bytes.
    pub body_limit: usize,
    /// How long a login session lasts.
    pub session_ttl: Duration,
    /// Base URL of the Open-Meteo forecast API (`weather.now`).
    pub weather_url: String,
    /// Service names `system.processes.status` reports on; empty = every
    /// process of this machine.
    pub watch_processes: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: DEFAULT_BIND
                .parse()
                .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 5555))),
            data_dir: PathBuf::from(DEFAULT_DATA_DIR),
            timezone: None,
            body_limit: DEFAULT_BODY_LIMIT,
            session_ttl: Duration::from_secs(DEFAULT_SESSION_HOURS * 3600),
            weather_url: DEFAULT_WEATHER_URL.to_owned(),
            watch_processes: Vec::new(),
        }
    }
}

/// The optional TOML file: every key may be omitted.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileConfig {
    pub bind: Option<SocketAddr>,
    pub data_dir: Option<PathBuf>,
    pub timezone: Option<String>,
    pub body_limit: Option<usize>,
    pub session_hours: Option<u64>,
    pub weather_url: Option<String>,
    pub watch_processes: Option<Vec<String>>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
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
    pub fn load(path: &Path) -> Result<FileConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|source| ConfigError::Parse {
            path: path.to_owned(),
            source,
        })
    }
}
