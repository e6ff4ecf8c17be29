//! The gate in front of every route (BEHAVIOUR §4.4). Without a password it
//! lets everything through as anonymous; with one it refuses cross-origin
//! browser requests first, lets the always-public paths through, and
//! otherwise needs a session (cookie or Bearer) or the password (Basic).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;

use super::{Auth, SESSION_COOKIE};
use crate::api_access::ApiAccessCache;
use crate::http::ApiError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AuthMethod {
    Session,
    Basic,
}

/// What the gate found out about a request; handlers read it from the
/// request extensions (the registry's `ui` authority comes from here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct AuthContext {
    pub enabled: bool,
    pub authenticated: bool,
    pub method: Option<AuthMethod>,
}

/// What the gate consults: the password and sessions, and which API groups
/// the owner exposed.
#[derive(Debug)]
pub struct GateState {
    pub auth: Auth,
    pub api_access: ApiAccessCache,
    /// Which paths pass without credentials.
    pub classifier: portos_core::inventory::Classifier,
}

pub async fn gate(
    State(state): State<Arc<GateState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let auth = &state.auth;
    // An exposable API group answers only when exposed, password or not; an
    // exposed group without `requireAuth` is public.
    if let Some((api, exposure)) = state.api_access.for_path(request.uri().path()) {
        if !exposure.exposed {
            return ApiError::new(
                StatusCode::FORBIDDEN,
                "FORBIDDEN",
                format!(
                    "The {} API is not exposed; turn it on in Settings → API Access (PUT /api/settings/api-access)",
                    api.label
                ),
            )
            .into_response();
        }
        if !exposure.require_auth {
            request.extensions_mut().insert(AuthContext {
                enabled: auth.enabled(),
                authenticated: false,
                method: None,
            });
            return next.run(request).await;
        }
    }
    if !auth.enabled() {
        request.extensions_mut().insert(AuthContext::default());
        return next.run(request).await;
    }
    if is_cross_origin(request.headers()) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "CROSS_ORIGIN_BLOCKED",
            "Cross-origin requests are not allowed",
        )
        .into_response();
    }
    let method = authenticate(auth, request.headers()).await;
    let context = AuthContext {
        enabled: true,
        authenticated: method.is_some(),
        method,
    };
    if method.is_none() && !state.classifier.is_always_public(request.uri().path()) {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            "AUTH_REQUIRED",
            "Authentication required",
        )
        .into_response();
    }
    request.extensions_mut().insert(context);
    next.run(request).await
}

/// The session token a request carries, from `Authorization: Bearer` or the cookie.
pub fn session_token(headers: &HeaderMap) -> Option<String> {
    if let Some(token) = authorization(headers).and_then(|value| strip_scheme(value, "bearer")) {
        return Some(token.trim().to_owned());
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim().to_owned())
}

async fn authenticate(auth: &Auth, headers: &HeaderMap) -> Option<AuthMethod> {
    if let Some(token) = session_token(headers).filter(|t| !t.is_empty())
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
            session_token(&headers(&[("authorization", "Bearer abc")])).as_deref(),
            Some("abc")
        );
        assert_eq!(
            session_token(&headers(&[("cookie", "a=1; portos_session=xyz; b=2")])).as_deref(),
            Some("xyz")
        );
        assert_eq!(
            session_token(&headers(&[("authorization", "Basic Zm9vOmJhcg==")])),
            None
        );
    }
}
