//! Where the Persistent Mind's model is: an OpenAI-compatible
//! chat-completions endpoint, its model name, an optional API key and a
//! timeout per round, from flags, `PORTOS_MIND_*` and the TOML file. The
//! key comes from the environment only (a flag shows in the process list)
//! and is never shown, logged or stored.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::provider::ProviderConfig;
use portos_server::outbound::OutboundClient;

pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
pub const MAX_TIMEOUT_SECS: u64 = 600;

/// The API key as the command line reads it: shown as `[redacted]` by
/// `Debug`, so no dump of the flags carries it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(pub String);

impl std::str::FromStr for ApiKey {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<ApiKey, Self::Err> {
        Ok(ApiKey(text.to_owned()))
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// The settings as given, before they are checked.
#[derive(Clone, Default)]
pub struct ModelOptions {
    pub provider_url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<String>,
    pub timeout_secs: Option<u64>,
}

impl std::fmt::Debug for ModelOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelOptions")
            .field("provider_url", &self.provider_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("timeout_secs", &self.timeout_secs)
            .finish()
    }
}

impl ModelOptions {
    /// The provider, `None` when no endpoint is configured (turns are then
    /// refused), or what is wrong with the settings (the server does not
    /// start).
    pub fn resolve(self) -> Result<Option<ProviderConfig>, String> {
        let blank = |value: Option<String>| {
            value
                .map(|text| text.trim().to_owned())
                .filter(|text| !text.is_empty())
        };
        let (url, model) = match (blank(self.provider_url), blank(self.model)) {
            (None, None) => return Ok(None),
            (Some(_), None) => {
                return Err(
                    "--mind-model (PORTOS_MIND_MODEL) is required with --mind-provider-url"
                        .to_owned(),
                );
            }
            (None, Some(_)) => {
                return Err(
                    "--mind-provider-url (PORTOS_MIND_PROVIDER_URL) is required with --mind-model"
                        .to_owned(),
                );
            }
            (Some(url), Some(model)) => (url, model),
        };
        let parsed = reqwest::Url::parse(&url)
            .map_err(|error| format!("--mind-provider-url is not a URL ({error})"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err("--mind-provider-url must be an http:// or https:// URL".to_owned());
        }
        // A key in the URL would be stored and shown wherever the URL is.
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(
                "--mind-provider-url must not hold credentials: put the key in PORTOS_MIND_API_KEY"
                    .to_owned(),
            );
        }
        let timeout = self.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS);
        if !(1..=MAX_TIMEOUT_SECS).contains(&timeout) {
            return Err(format!(
                "--mind-timeout must be 1 to {MAX_TIMEOUT_SECS} seconds (got {timeout})"
            ));
        }
        Ok(Some(ProviderConfig {
            base_url: url.trim_end_matches('/').to_owned(),
            model,
            api_key: blank(self.api_key),
            timeout: Duration::from_secs(timeout),
        }))
    }
}

/// The Mind's model as server state: the provider (if configured), the
/// HTTP client that reaches it, and the turn running now (one at a time).
#[derive(Clone, Debug)]
pub struct MindModel {
    provider: Option<ProviderConfig>,
    client: OutboundClient,
    running: Arc<Mutex<Option<String>>>,
    /// The turns' series on `/metrics`.
    metrics: Arc<super::telemetry::TurnMetrics>,
}

impl MindModel {
    pub fn new(provider: Option<ProviderConfig>, client: OutboundClient) -> MindModel {
        MindModel {
            provider,
            client,
            running: Arc::default(),
            metrics: Arc::default(),
        }
    }

    /// The turns' series (a `/metrics` source).
    pub fn metrics(&self) -> &Arc<super::telemetry::TurnMetrics> {
        &self.metrics
    }

    pub fn provider(&self) -> Option<&ProviderConfig> {
        self.provider.as_ref()
    }

    pub fn client(&self) -> &OutboundClient {
        &self.client
    }

    /// Marks `turn_id` as the running turn, or names the one already
    /// running. The slot is freed when the returned guard is dropped.
    pub fn claim(&self, turn_id: &str) -> Result<Running, String> {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(busy) = running.as_ref() {
            return Err(busy.clone());
        }
        *running = Some(turn_id.to_owned());
        Ok(Running {
            slot: self.running.clone(),
        })
    }
}

/// The running turn's hold on the slot.
#[derive(Debug)]
pub struct Running {
    slot: Arc<Mutex<Option<String>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(url: Option<&str>, model: Option<&str>) -> ModelOptions {
        ModelOptions {
            provider_url: url.map(str::to_owned),
            model: model.map(str::to_owned),
            api_key: Some("  ".to_owned()),
            timeout_secs: None,
        }
    }

    #[test]
    fn both_or_neither() {
        assert_eq!(options(None, None).resolve(), Ok(None));
        assert_eq!(options(Some(" "), Some("")).resolve(), Ok(None));
        assert!(
            options(Some("http://127.0.0.1:8080/v1"), None)
                .resolve()
                .is_err()
        );
        assert!(options(None, Some("qwen")).resolve().is_err());
        let config = options(Some("http://127.0.0.1:8080/v1/"), Some(" qwen "))
            .resolve()
            .expect("valid")
            .expect("configured");
        assert_eq!(config.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(config.model, "qwen");
        assert_eq!(config.api_key, None, "a blank key is no key");
        assert_eq!(config.timeout, Duration::from_secs(DEFAULT_TIMEOUT_SECS));
    }

    #[test]
    fn bad_settings() {
        for url in [
            "ftp://host/v1",
            "not a url",
            "https://user:sk-1@api.example.com/v1",
        ] {
            assert!(options(Some(url), Some("m")).resolve().is_err(), "{url}");
        }
        let mut slow = options(Some("http://127.0.0.1/v1"), Some("m"));
        slow.timeout_secs = Some(0);
        assert!(slow.resolve().is_err());
        let hidden = ModelOptions {
            api_key: Some("sk-secret".to_owned()),
            ..ModelOptions::default()
        };
        assert!(!format!("{hidden:?}").contains("sk-secret"));
    }

    #[test]
    fn one_turn_at_a_time() {
        let client = OutboundClient::new(
            crate::shared::outbound::client_builder(),
            std::sync::Arc::new(portos_server::outbound::OutboundPolicy::loopback_only()),
        )
        .expect("client");
        let model = MindModel::new(None, client);
        let first = model.claim("t1").expect("free");
        assert_eq!(model.claim("t2").err().as_deref(), Some("t1"));
        drop(first);
        assert!(model.claim("t2").is_ok());
    }
}
