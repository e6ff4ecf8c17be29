//! Remote mode (docs/remote.md): the server as an OAuth 2.1 resource
//! server. The MCP endpoint and the tool routes accept a JWT access token
//! (RFC 9068) from the configured issuer, issued for this resource, from
//! any address; its scopes map to the application's capabilities and
//! narrow what the caller's principal is granted. Clients discover the
//! issuer from the protected resource metadata (RFC 9728) that every
//! challenge points to.

pub(crate) mod b64url;
pub(crate) mod challenge;
pub(crate) mod config;
pub(crate) mod issuer;
pub(crate) mod jwt;
pub(crate) mod keys;
pub(crate) mod metadata;
pub(crate) mod openapi;

use std::sync::Arc;

use axum::http::{HeaderMap, Uri, header};
use portos_core::{Capabilities, Capability};

pub(crate) use challenge::Refusal;
pub(crate) use config::{RemoteConfig, RemoteSettings};
use issuer::IssuerKeys;
use jwt::Expectations;

use crate::outbound::{OutboundClient, OutboundPolicy};

/// Remote mode's surface, where tokens are taken: the MCP endpoint, and
/// the tool routes' mount and everything under it, wherever the
/// application mounts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Surface {
    /// The MCP endpoint's path.
    pub(crate) mcp: &'static str,
    /// The tool routes' mount's path.
    pub(crate) tools: &'static str,
}

impl Surface {
    /// The surface where `mounts` places the endpoint and the tool routes.
    pub(crate) fn of(mounts: &crate::mounts::Mounts) -> Surface {
        Surface {
            mcp: mounts.path_of(crate::mounts::MCP),
            tools: mounts.tools().path,
        }
    }

    /// Whether `path` is on the surface.
    pub(crate) fn covers(&self, path: &str) -> bool {
        path == self.mcp
            || path
                .strip_prefix(self.tools)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
}

/// A caller who presented a valid access token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RemoteCaller {
    /// The token's `sub`.
    pub subject: Arc<str>,
    /// The token's `client_id`, when it names one.
    pub client_id: Option<Arc<str>>,
    /// The scopes the token carries.
    pub scopes: Arc<[String]>,
    /// What those scopes grant, through the scope map.
    pub capabilities: Capabilities,
}

/// Remote mode, running: the configuration, the issuer's keys and the
/// documents that point clients to it.
#[derive(Debug)]
pub(crate) struct RemoteAuth {
    config: RemoteConfig,
    keys: IssuerKeys,
    /// The protected resource metadata, serialized once.
    metadata: Arc<str>,
    /// Where the metadata is: its URL (the `resource_metadata` of every
    /// challenge) and the paths it is served at.
    location: metadata::Location,
}

impl RemoteAuth {
    /// Remote mode for `config`; the issuer's keys are fetched through
    /// `policy` widened to the issuer's host (configured, so allowed).
    pub(crate) fn new(
        config: RemoteConfig,
        policy: &OutboundPolicy,
        resource_name: &str,
    ) -> Result<RemoteAuth, String> {
        let policy = Arc::new(policy.also_allowing_url(&config.issuer));
        let client = OutboundClient::same_origin_redirects(
            crate::outbound::client_builder()
                .user_agent(concat!("portos-server/", env!("CARGO_PKG_VERSION"))),
            policy,
        )
        .map_err(|error| {
            format!("cannot make the client that fetches the issuer's keys: {error}")
        })?;
        let location = metadata::location(&config.resource)?;
        let metadata = metadata::document(&config, resource_name)
            .to_string()
            .into();
        Ok(RemoteAuth {
            keys: IssuerKeys::new(&config.issuer, client),
            config,
            metadata,
            location,
        })
    }

    pub(crate) fn config(&self) -> &RemoteConfig {
        &self.config
    }

    /// The protected resource metadata (JSON).
    pub(crate) fn metadata(&self) -> &str {
        &self.metadata
    }

    /// The paths the metadata is served at.
    pub(crate) fn metadata_paths(&self) -> &[String] {
        &self.location.paths
    }

    /// The caller a request's access token speaks for, or why the request
    /// is refused (each refusal with its challenge). The token is read from
    /// the `Authorization: Bearer` header only; one in the query is refused.
    pub(crate) async fn authenticate(
        &self,
        headers: &HeaderMap,
        uri: &Uri,
    ) -> Result<RemoteCaller, Refusal> {
        if uri.query().is_some_and(query_holds_token) {
            return Err(Refusal::TokenInQuery);
        }
        let token = bearer_token(headers)?;
        let unverified = jwt::parse(token).map_err(Refusal::InvalidToken)?;
        let keys = self
            .keys
            .keys_for(unverified.kid.as_deref())
            .await
            .map_err(|why| Refusal::KeysUnavailable(why.0))?;
        let payload = unverified.verify(&keys).map_err(Refusal::InvalidToken)?;
        let leeway = i64::try_from(self.config.clock_skew.as_secs()).unwrap_or(i64::MAX);
        let expect = Expectations {
            issuer: &self.config.issuer,
            audience: &self.config.resource,
            now: jiff::Timestamp::now().as_second(),
            leeway,
        };
        let claims = jwt::check_claims(&payload, &expect).map_err(Refusal::InvalidToken)?;
        let capabilities = self
            .config
            .scopes
            .capabilities(claims.scopes.iter().map(String::as_str));
        Ok(RemoteCaller {
            subject: claims.subject.into(),
            client_id: claims.client_id.map(Into::into),
            scopes: claims.scopes.into(),
            capabilities,
        })
    }

    /// The refusal of a call needing `needed` from a caller whose token
    /// lacks some of it: 403 `insufficient_scope` naming the scopes that
    /// grant all of `needed` (in one challenge), or `None` when the token
    /// carries them.
    pub(crate) fn insufficient(
        &self,
        caller: &RemoteCaller,
        needed: &[Capability],
    ) -> Option<Refusal> {
        if caller.capabilities.has_all(needed) {
            return None;
        }
        let scopes = self
            .config
            .scopes
            .scopes_granting(needed)
            .map(|scopes| scopes.into_iter().map(str::to_owned).collect())
            .unwrap_or_default();
        Some(Refusal::InsufficientScope(scopes))
    }

    /// The `WWW-Authenticate` value of a refusal.
    pub(crate) fn challenge(&self, refusal: &Refusal) -> String {
        let supported: Vec<&str> = self.config.scopes.scopes().collect();
        challenge::www_authenticate(refusal, &self.location.url, &supported)
    }
}

/// Whether a query string carries an `access_token` (RFC 6750 §2.3, which
/// this server does not accept).
fn query_holds_token(query: &str) -> bool {
    form_urlencoded::parse(query.as_bytes()).any(|(key, _)| key == "access_token")
}

/// The token of the one `Authorization: Bearer` header.
fn bearer_token(headers: &HeaderMap) -> Result<&str, Refusal> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(match headers.contains_key(header::AUTHORIZATION) {
            true => Refusal::Malformed("more than one Authorization header"),
            false => Refusal::NoToken,
        });
    };
    let value = value
        .to_str()
        .map_err(|_| Refusal::Malformed("the Authorization header is not ASCII"))?;
    let Some((scheme, token)) = value.split_once(' ') else {
        return Err(Refusal::NoToken);
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        // Credentials of another scheme (Basic, say) are no token.
        return Err(Refusal::NoToken);
    }
    let token = token.trim_matches(' ');
    if token.is_empty() || token.contains(' ') {
        return Err(Refusal::Malformed(
            "the Bearer credentials are not one token",
        ));
    }
    Ok(token)
}

#[cfg(test)]
mod tests;
