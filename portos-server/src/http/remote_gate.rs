//! The gate of remote mode (docs/remote.md): on the remote surface (the
//! MCP endpoint and the tool routes) a request is let through with a valid
//! access token, whatever its address, or with a live session of this
//! server's own sign-in (a person at the web UI); never anonymously. The
//! protected resource metadata passes without credentials.

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use super::ApiError;
use crate::auth::{Auth, AuthContext, AuthMethod};
use crate::remote::{Refusal, RemoteAuth, RemoteCaller, Surface};

/// Remote mode as the gate applies it.
#[derive(Debug)]
pub(crate) struct RemoteGate {
    auth: Arc<RemoteAuth>,
    /// The MCP endpoint and the tool routes' mount (and everything under it).
    surface: Surface,
    /// The metadata document, shared by every answer.
    metadata: Bytes,
}

impl RemoteGate {
    pub(crate) fn new(auth: Arc<RemoteAuth>, surface: Surface) -> RemoteGate {
        RemoteGate {
            metadata: Bytes::copy_from_slice(auth.metadata().as_bytes()),
            auth,
            surface,
        }
    }

    /// Whether `path` needs a token (or a session).
    pub(crate) fn covers(&self, path: &str) -> bool {
        self.surface.covers(path)
    }

    /// Whether `path` is where the metadata is served.
    pub(crate) fn is_metadata(&self, path: &str) -> bool {
        self.auth
            .metadata_paths()
            .iter()
            .any(|served| served == path)
    }

    /// The metadata document, for a GET of one of its paths.
    pub(crate) fn metadata_response(&self) -> Response {
        (
            StatusCode::OK,
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                ),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("max-age=3600"),
                ),
            ],
            self.metadata.clone(),
        )
            .into_response()
    }

    /// The caller of a request on the remote surface, or its refusal: a
    /// live session when the request brings a session cookie and no
    /// Authorization header (and a password is set), else the access token.
    pub(crate) async fn check(
        &self,
        auth: &Auth,
        headers: &HeaderMap,
        uri: &Uri,
    ) -> Result<(AuthContext, Option<RemoteCaller>), Response> {
        if auth.enabled()
            && !headers.contains_key(header::AUTHORIZATION)
            && let Some(token) = super::gate::session_cookie(headers, auth.cookie())
            && auth.session_is_valid(token).await.unwrap_or(false)
        {
            let context = AuthContext {
                enabled: true,
                authenticated: true,
                method: Some(AuthMethod::Session),
            };
            return Ok((context, None));
        }
        match self.auth.authenticate(headers, uri).await {
            Ok(caller) => Ok((
                AuthContext {
                    enabled: auth.enabled(),
                    authenticated: true,
                    method: None,
                },
                Some(caller),
            )),
            Err(refusal) => Err(refusal_response(&self.auth, &refusal)),
        }
    }
}

/// A refusal of remote mode as the response: its status, its challenge
/// (none for a 503, which asks to try again instead) and the contract's
/// error body.
pub(crate) fn refusal_response(auth: &RemoteAuth, refusal: &Refusal) -> Response {
    let status = refusal.status();
    let mut response =
        ApiError::new(status, refusal.body_code(), refusal.description()).into_response();
    let headers = response.headers_mut();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("30"));
    } else if let Ok(value) = HeaderValue::from_str(&auth.challenge(refusal)) {
        headers.insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The remote caller the gate found, if any (remote mode, a valid token).
#[derive(Clone, Debug)]
pub(crate) struct RemoteClient(pub Option<RemoteCaller>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for RemoteClient {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<RemoteClient, std::convert::Infallible> {
        Ok(RemoteClient(
            parts.extensions.get::<RemoteCaller>().cloned(),
        ))
    }
}

// Remote mode's refusals are documented by docs/remote.md, not by the
// route documents, which stay the same whether it is on or off.
impl super::RouteInput for RemoteClient {}
