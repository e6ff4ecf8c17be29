//! The authorization server's signing keys, found and kept up to date: its
//! metadata (RFC 8414, or OpenID Connect Discovery) names its JWK Set, which
//! is fetched on first use, again after [`KEYS_MAX_AGE`], and again when a
//! token names a key not in it (a rotation), at most once per
//! [`REFETCH_INTERVAL`] so that tokens naming made-up keys cannot make this
//! server hammer the issuer. Every fetch goes through the outbound policy,
//! which allows the configured issuer's host.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::keys::KeySet;
use crate::outbound::{OutboundClient, OutboundError};

/// How long fetched keys are used before they are fetched again.
pub(crate) const KEYS_MAX_AGE: Duration = Duration::from_secs(3600);
/// The shortest time between two fetches.
pub(crate) const REFETCH_INTERVAL: Duration = Duration::from_secs(30);
/// The largest metadata document or key set read.
const MAX_DOCUMENT_BYTES: usize = 512 * 1024;
/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the keys could not be had (and none were fetched before).
#[derive(Debug, Clone, thiserror::Error)]
#[error("the authorization server's keys could not be fetched: {0}")]
pub(crate) struct KeysUnavailable(pub String);

/// The issuer's keys, fetched as needed.
#[derive(Debug)]
pub(crate) struct IssuerKeys {
    issuer: String,
    client: OutboundClient,
    current: RwLock<Arc<Fetched>>,
    /// One fetch at a time; the others wait for its keys.
    fetching: tokio::sync::Mutex<()>,
}

/// What the last fetch brought.
#[derive(Debug, Default)]
struct Fetched {
    keys: Arc<KeySet>,
    /// When the keys were fetched (`None`: never).
    at: Option<Instant>,
    /// When a fetch was last tried, whether it worked or not.
    tried: Option<Instant>,
}

impl Fetched {
    fn fresh(&self) -> bool {
        self.at.is_some_and(|at| at.elapsed() < KEYS_MAX_AGE)
    }

    fn may_fetch(&self) -> bool {
        self.tried
            .is_none_or(|tried| tried.elapsed() >= REFETCH_INTERVAL)
    }
}

impl IssuerKeys {
    pub(crate) fn new(issuer: &str, client: OutboundClient) -> IssuerKeys {
        IssuerKeys {
            issuer: issuer.to_owned(),
            client,
            current: RwLock::new(Arc::new(Fetched::default())),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    fn current(&self) -> Arc<Fetched> {
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The keys to verify a token naming `kid` with: the kept ones while
    /// fresh and knowing `kid`, else fetched again (when allowed). Fails
    /// only when no keys were ever fetched and this fetch failed too.
    pub(crate) async fn keys_for(&self, kid: Option<&str>) -> Result<Arc<KeySet>, KeysUnavailable> {
        let usable =
            |fetched: &Fetched| fetched.fresh() && kid.is_none_or(|kid| fetched.keys.knows(kid));
        let kept = self.current();
        if usable(&kept) || !kept.may_fetch() {
            return have(&kept);
        }
        let _one_at_a_time = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        let kept = self.current();
        if usable(&kept) || !kept.may_fetch() {
            return have(&kept);
        }
        let fetched = self.fetch().await;
        let next = match fetched {
            Ok(keys) => Fetched {
                keys: Arc::new(keys),
                at: Some(Instant::now()),
                tried: Some(Instant::now()),
            },
            Err(why) => {
                tracing::warn!(issuer = %self.issuer, %why, "cannot fetch the authorization server's keys");
                if kept.at.is_none() {
                    self.store(Fetched {
                        tried: Some(Instant::now()),
                        ..Fetched::default()
                    });
                    return Err(KeysUnavailable(why));
                }
                // The old keys serve until a fetch works.
                Fetched {
                    keys: kept.keys.clone(),
                    at: kept.at,
                    tried: Some(Instant::now()),
                }
            }
        };
        let keys = next.keys.clone();
        self.store(next);
        Ok(keys)
    }

    fn store(&self, fetched: Fetched) {
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(fetched);
    }

    /// The metadata, then the key set it names.
    async fn fetch(&self) -> Result<KeySet, String> {
        let jwks_uri = self.jwks_uri().await?;
        let body = self.get(&jwks_uri).await?;
        let keys = KeySet::from_json(&body).map_err(|error| format!("{jwks_uri}: {error}"))?;
        if keys.is_empty() {
            return Err(format!(
                "{jwks_uri} publishes no signing key of an accepted algorithm"
            ));
        }
        Ok(keys)
    }

    /// The `jwks_uri` of the first metadata document found for the issuer
    /// whose `issuer` is the configured one exactly (RFC 8414 §3.3).
    async fn jwks_uri(&self) -> Result<String, String> {
        #[derive(Deserialize)]
        struct Metadata {
            issuer: String,
            jwks_uri: Option<String>,
        }
        let mut problems = Vec::new();
        for url in metadata_urls(&self.issuer) {
            let body = match self.get(&url).await {
                Ok(body) => body,
                Err(why) => {
                    problems.push(why);
                    continue;
                }
            };
            let metadata: Metadata = serde_json::from_slice(&body)
                .map_err(|error| format!("{url} is not authorization server metadata: {error}"))?;
            if metadata.issuer != self.issuer {
                return Err(format!(
                    "{url} names the issuer `{}`, not `{}`",
                    metadata.issuer, self.issuer
                ));
            }
            let jwks_uri = metadata
                .jwks_uri
                .ok_or_else(|| format!("{url} names no jwks_uri"))?;
            if self.issuer.starts_with("https:") && !jwks_uri.starts_with("https:") {
                return Err(format!(
                    "{url} names a jwks_uri that is not https: {jwks_uri}"
                ));
            }
            return Ok(jwks_uri);
        }
        Err(problems.join("; "))
    }

    /// A document's bytes: a 200 of at most [`MAX_DOCUMENT_BYTES`].
    async fn get(&self, url: &str) -> Result<Vec<u8>, String> {
        let request = self
            .client
            .get(url)
            .map_err(|error: OutboundError| format!("{url}: {error}"))?
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(FETCH_TIMEOUT);
        let mut response = self.client.send(request).await.map_err(|error| {
            match crate::outbound::refusal(&error) {
                Some(refused) => format!("{url}: {refused}"),
                None => format!("{url}: {error}"),
            }
        })?;
        if response.status() != reqwest::StatusCode::OK {
            return Err(format!("{url} answered {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| format!("{url}: {error}"))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(format!("{url} sent more than {MAX_DOCUMENT_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

fn have(fetched: &Fetched) -> Result<Arc<KeySet>, KeysUnavailable> {
    if fetched.at.is_none() {
        return Err(KeysUnavailable(
            "the last fetch failed; the next is tried shortly".to_owned(),
        ));
    }
    Ok(fetched.keys.clone())
}

/// Where an issuer's metadata may be, in the order tried: RFC 8414's
/// well-known path inserted before the issuer's path, then OpenID Connect
/// Discovery's inserted, then appended (what the MCP revision's clients
/// try too).
pub(crate) fn metadata_urls(issuer: &str) -> Vec<String> {
    let Ok(url) = reqwest::Url::parse(issuer) else {
        return Vec::new();
    };
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    urls
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbound::{OutboundPolicy, client_builder};
    use crate::testing::issuer::{TestIssuer, TestKey};

    #[test]
    fn metadata_is_looked_for_where_the_standards_put_it() {
        assert_eq!(
            metadata_urls("https://as.example"),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://as.example/realms/lab/"),
            [
                "https://as.example/.well-known/oauth-authorization-server/realms/lab",
                "https://as.example/.well-known/openid-configuration/realms/lab",
                "https://as.example/realms/lab/.well-known/openid-configuration",
            ]
        );
    }

    fn keys_of(issuer: &str) -> IssuerKeys {
        let policy = Arc::new(OutboundPolicy::loopback_only());
        let client = OutboundClient::new(client_builder(), policy).expect("a client");
        IssuerKeys::new(issuer, client)
    }

    #[tokio::test]
    async fn keys_are_fetched_once_and_again_for_an_unknown_kid_at_most_every_interval() {
        let first = TestKey::es256("first");
        let issuer = TestIssuer::start(&[&first]).await;
        let keys = keys_of(&issuer.issuer);
        assert!(
            keys.keys_for(Some("first"))
                .await
                .expect("keys")
                .knows("first")
        );
        assert!(keys.keys_for(None).await.is_ok());
        assert_eq!(issuer.key_fetches(), 1);
        // A made-up kid right after a fetch: no second fetch.
        let kept = keys.keys_for(Some("made-up")).await.expect("the kept keys");
        assert!(!kept.knows("made-up"));
        assert_eq!(issuer.key_fetches(), 1);
    }

    #[tokio::test]
    async fn a_wrong_issuer_in_the_metadata_is_refused() {
        let key = TestKey::es256("k");
        let issuer = TestIssuer::start(&[&key]).await;
        let keys = keys_of(&format!("{}/", issuer.issuer));
        let refused = keys
            .keys_for(None)
            .await
            .expect_err("the metadata names another issuer");
        assert!(refused.0.contains("names the issuer"), "{refused}");
    }

    #[tokio::test]
    async fn the_outbound_policy_applies() {
        let policy = Arc::new(OutboundPolicy::public_only());
        let client = OutboundClient::new(client_builder(), policy).expect("a client");
        let keys = IssuerKeys::new("http://127.0.0.1:9/", client);
        let refused = keys
            .keys_for(None)
            .await
            .expect_err("loopback is not allowed");
        assert!(refused.0.contains("loopback"), "{refused}");
    }
}
