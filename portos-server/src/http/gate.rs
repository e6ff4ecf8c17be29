//! The gate in front of every route (docs/reference.md#authentication-gate).
//! Without a password it lets everything through as anonymous; with one it
//! refuses cross-origin browser requests first, lets the always-public paths
//! through, and otherwise needs a session (cookie or Bearer) or the password
//! (Basic).

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures::FutureExt;
use futures::future::Either;

use super::ApiError;
use crate::api_access::ApiAccessCache;
use crate::auth::{Auth, AuthContext, AuthMethod};
use crate::remote::RemoteCaller;

/// What the gate consults: the password and sessions, and which API groups
/// the owner exposed.
#[derive(Debug)]
pub(crate) struct GateState {
    pub auth: Auth,
    pub api_access: ApiAccessCache,
    /// Which paths pass without credentials.
    pub classifier: portos_core::inventory::Classifier,
    /// Remote mode's surface and tokens, when configured.
    pub remote: Option<super::remote_gate::RemoteGate>,
    /// Where the settings that expose API groups are (named in the refusal
    /// of an unexposed group).
    pub api_access_path: &'static str,
}

/// What the gate decides without waiting: let the request through with
/// this context, refuse it, or check its credentials (which may wait on the
/// store or on Argon2).
enum Verdict {
    Pass(AuthContext),
    Refuse(Response),
    Authenticate,
    /// Remote mode's surface: a token (or a session) is checked.
    Remote,
}

/// The checks of docs/reference.md#authentication-gate that need no waiting, in
/// their order: the exposed API groups, no password, cross-origin browser
/// requests, then a session this process already knows to be live.
fn verdict(state: &GateState, request: &Request) -> Verdict {
    let auth = &state.auth;
    if let Some(remote) = &state.remote {
        let path = request.uri().path();
        if remote.covers(path) {
            return Verdict::Remote;
        }
        if remote.is_metadata(path) && request.method() == axum::http::Method::GET {
            return Verdict::Refuse(remote.metadata_response());
        }
    }
    // An exposable API group answers only when exposed, password or not; an
    // exposed group without `requireAuth` is public.
    if let Some((api, exposure)) = state.api_access.for_path(request.uri().path()) {
        if !exposure.exposed {
            return Verdict::Refuse(
                ApiError::new(
                    StatusCode::FORBIDDEN,
                    "FORBIDDEN",
                    format!(
                        "The {} API is not exposed; turn it on in Settings → API Access (PUT {})",
                        api.label, state.api_access_path
                    ),
                )
                .into_response(),
            );
        }
        if !exposure.require_auth {
            return Verdict::Pass(AuthContext {
                enabled: auth.enabled(),
                authenticated: false,
                method: None,
            });
        }
    }
    if !auth.enabled() {
        return Verdict::Pass(AuthContext::default());
    }
    if is_cross_origin(request.headers()) {
        return Verdict::Refuse(
            ApiError::new(
                StatusCode::FORBIDDEN,
                "CROSS_ORIGIN_BLOCKED",
                "Cross-origin requests are not allowed",
            )
            .into_response(),
        );
    }
    if let Some(token) = session_token_str(request.headers(), auth.cookie())
        && auth.session_known_live(token)
    {
        return Verdict::Pass(AuthContext {
            enabled: true,
            authenticated: true,
            method: Some(AuthMethod::Session),
        });
    }
    Verdict::Authenticate
}

/// The credentials check: a session (from the store when not known here),
/// else HTTP Basic; without either, only the always-public paths pass.
async fn check_credentials(
    state: &GateState,
    headers: &HeaderMap,
    path: &str,
) -> Result<AuthContext, Response> {
    let method = authenticate(&state.auth, headers).await;
    if method.is_none() && !state.classifier.is_always_public(path) {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "AUTH_REQUIRED",
            "Authentication required",
        )
        .into_response());
    }
    Ok(AuthContext {
        enabled: true,
        authenticated: method.is_some(),
        method,
    })
}

/// What a verdict comes to once its checks are done: the request's context
/// (and remote caller), or its refusal.
async fn settle(
    state: &GateState,
    verdict: Verdict,
    headers: &HeaderMap,
    uri: &axum::http::Uri,
) -> Result<(AuthContext, Option<RemoteCaller>), Response> {
    match verdict {
        Verdict::Pass(context) => Ok((context, None)),
        Verdict::Refuse(response) => Err(response),
        Verdict::Authenticate => check_credentials(state, headers, uri.path())
            .await
            .map(|context| (context, None)),
        Verdict::Remote => match &state.remote {
            Some(remote) => remote.check(&state.auth, headers, uri).await,
            None => Err(ApiError::not_found().into_response()),
        },
    }
}

/// Hands the gate's findings to the handlers.
fn admit(request: &mut Request, context: AuthContext, caller: Option<RemoteCaller>) {
    let extensions = request.extensions_mut();
    extensions.insert(context);
    if let Some(caller) = caller {
        extensions.insert(caller);
    }
}

/// The gate as a layer: the same checks as [`gate`], without its cost on
/// every request (`from_fn` boxes the inner service and the future of every
/// request; here a request that passes without waiting is handed straight
/// to the inner service, and only a credentials check is boxed).
#[derive(Clone, Debug)]
pub(crate) struct GateLayer {
    state: Arc<GateState>,
}

impl GateLayer {
    pub(crate) fn new(state: Arc<GateState>) -> GateLayer {
        GateLayer { state }
    }
}

impl<S> tower::Layer<S> for GateLayer {
    type Service = Gated<S>;

    fn layer(&self, inner: S) -> Gated<S> {
        Gated {
            state: self.state.clone(),
            inner,
        }
    }
}

/// A service behind the password gate ([`GateLayer`]).
#[derive(Clone, Debug)]
pub(crate) struct Gated<S> {
    state: Arc<GateState>,
    inner: S,
}

type Boxed = futures::future::BoxFuture<'static, Result<Response, Infallible>>;
type IntoAxum<R> = fn(Result<R, Infallible>) -> Result<Response, Infallible>;

impl<S> tower::Service<Request> for Gated<S>
where
    S: tower::Service<Request, Error = Infallible> + Clone + Send + 'static,
    S::Response: IntoResponse,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<futures::future::Map<S::Future, IntoAxum<S::Response>>, Boxed>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        match verdict(&self.state, &request) {
            Verdict::Pass(context) => {
                request.extensions_mut().insert(context);
                let into_axum: IntoAxum<S::Response> =
                    |result| result.map(IntoResponse::into_response);
                Either::Left(self.inner.call(request).map(into_axum))
            }
            Verdict::Refuse(response) => Either::Right(Box::pin(async move { Ok(response) })),
            verdict @ (Verdict::Authenticate | Verdict::Remote) => {
                // The service that was made ready goes with the request; a
                // clone stays for the next one (tower's rule for `call`).
                let clone = self.inner.clone();
                let mut inner = std::mem::replace(&mut self.inner, clone);
                let state = self.state.clone();
                Either::Right(Box::pin(async move {
                    match settle(&state, verdict, request.headers(), request.uri()).await {
                        Ok((context, caller)) => {
                            admit(&mut request, context, caller);
                            inner.call(request).await.map(IntoResponse::into_response)
                        }
                        Err(response) => Ok(response),
                    }
                }))
            }
        }
    }
}

/// The session token a request carries, from `Authorization: Bearer` or the cookie.
pub(crate) fn session_token(headers: &HeaderMap, cookie: &str) -> Option<String> {
    session_token_str(headers, cookie).map(str::to_owned)
}

/// [`session_token`], borrowed from the headers.
fn session_token_str<'h>(headers: &'h HeaderMap, cookie: &str) -> Option<&'h str> {
    if let Some(token) = authorization(headers).and_then(|value| strip_scheme(value, "bearer")) {
        return Some(token.trim());
    }
    cookie_value(headers, cookie)
}

/// The session cookie's value, if the request carries a non-empty one.
pub(super) fn session_cookie<'h>(headers: &'h HeaderMap, cookie: &str) -> Option<&'h str> {
    cookie_value(headers, cookie).filter(|value| !value.is_empty())
}

/// The value of the cookie named `cookie`.
fn cookie_value<'h>(headers: &'h HeaderMap, cookie: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == cookie)
        .map(|(_, value)| value.trim())
}

async fn authenticate(auth: &Auth, headers: &HeaderMap) -> Option<AuthMethod> {
    if let Some(token) = session_token(headers, auth.cookie()).filter(|t| !t.is_empty())
        && auth.session_is_valid(&token).await.unwrap_or(false)
    {
        return Some(AuthMethod::Session);
    }
    let basic = authorization(headers).and_then(|value| strip_scheme(value, "basic"))?;
    let decoded = STANDARD.decode(basic.trim()).ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    // The user name is ignored: there is one instance password.
    let password = decoded.split_once(':').map_or(decoded.as_str(), |(_, p)| p);
    auth.check_password(password)
        .await
        .then_some(AuthMethod::Basic)
}

fn authorization(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION)?.to_str().ok()
}

fn strip_scheme<'a>(value: &'a str, scheme: &str) -> Option<&'a str> {
    let (given, rest) = value.trim().split_once(' ')?;
    given.eq_ignore_ascii_case(scheme).then_some(rest)
}

/// A browser request from another origin: `Sec-Fetch-Site: cross-site`, or an
/// `Origin` whose host differs from the `Host` the request was sent to.
fn is_cross_origin(headers: &HeaderMap) -> bool {
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if fetch_site.is_some_and(|site| site.eq_ignore_ascii_case("cross-site")) {
        return true;
    }
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    if origin == "null" {
        return true;
    }
    let origin_host = origin
        .split_once("://")
        .map_or(origin, |(_, rest)| rest)
        .trim_end_matches('/');
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    !origin_host.eq_ignore_ascii_case(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn cross_origin_detection() {
        assert!(!is_cross_origin(&headers(&[("host", "127.0.0.1:5555")])));
        assert!(!is_cross_origin(&headers(&[
            ("host", "127.0.0.1:5555"),
            ("origin", "http://127.0.0.1:5555")
        ])));
        assert!(is_cross_origin(&headers(&[
            ("host", "127.0.0.1:5555"),
            ("origin", "http://evil.example")
        ])));
        assert!(is_cross_origin(&headers(&[
            ("host", "127.0.0.1:5555"),
            ("origin", "http://127.0.0.1:6666")
        ])));
        assert!(is_cross_origin(&headers(&[
            ("host", "a"),
            ("sec-fetch-site", "cross-site")
        ])));
    }

    #[test]
    fn tokens_from_bearer_or_cookie() {
        assert_eq!(
            session_token(&headers(&[("authorization", "Bearer abc")]), "lab_session").as_deref(),
            Some("abc")
        );
        assert_eq!(
            session_token(
                &headers(&[("cookie", "a=1; lab_session=xyz; other_session=no; b=2")]),
                "lab_session"
            )
            .as_deref(),
            Some("xyz")
        );
        // Another application's cookie is not this one's session.
        assert_eq!(
            session_token(&headers(&[("cookie", "other_session=no")]), "lab_session"),
            None
        );
        assert_eq!(
            session_token(
                &headers(&[("authorization", "Basic Zm9vOmJhcg==")]),
                "lab_session"
            ),
            None
        );
    }
}
