//! The `auth` mount (by default `/api/auth`): status, whoami, login, logout.

use crate::portos_route;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use portos_core::contract::{FieldIssue, ValidationFailure};
use portos_core::inventory::RouteIo;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::body::JsonBody;
use super::{ApiError, Body, RouteErrors, RouteInput, RouteOutput};
use crate::app::App;
use crate::auth::AuthContext;
use crate::store::StoreError;

#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct AuthStatus {
    /// An instance password is set.
    pub enabled: bool,
    pub authenticated: bool,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LoginBody {
    pub password: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct LoginAnswer {
    pub ok: bool,
    pub enabled: bool,
    /// The session token (also set as the `portos_session` cookie).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Done {
    pub ok: bool,
}

/// Why a login was refused.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum LoginError {
    #[error("Invalid password")]
    #[route_error(status = 401, code = "INVALID_CREDENTIALS")]
    WrongPassword,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
    #[error("the session cookie could not be written: {0}")]
    #[route_error(internal)]
    Cookie(#[from] axum::http::header::InvalidHeaderValue),
}

/// A JSON answer with the session cookie set (or cleared) beside it.
struct WithCookie<T> {
    cookie: Option<HeaderValue>,
    answer: T,
}

impl<T: Serialize> IntoResponse for WithCookie<T> {
    fn into_response(self) -> Response {
        let mut response = Json(self.answer).into_response();
        if let Some(cookie) = self.cookie {
            response.headers_mut().insert(header::SET_COOKIE, cookie);
        }
        response
    }
}

impl<T: JsonSchema> RouteOutput for WithCookie<T> {
    fn describe(io: &mut RouteIo) {
        Json::<T>::describe(io);
    }
}

/// Whether a password is set and whether this request is authenticated.
#[portos_route(
    method = "GET",
    mount = "auth",
    path = "/status",
    summary = "Authentication status"
)]
async fn status(
    State(app): State<App>,
    Extension(context): Extension<AuthContext>,
) -> Json<AuthStatus> {
    Json(AuthStatus {
        enabled: app.auth.enabled(),
        authenticated: context.authenticated,
    })
}

/// How this request is authenticated, if it is.
#[portos_route(method = "GET", mount = "auth", path = "/whoami", summary = "Who am I")]
async fn whoami(Extension(context): Extension<AuthContext>) -> Json<AuthContext> {
    Json(context)
}

/// The password of a login body, which must be exactly
/// `{ "password": string }` (400 `VALIDATION_ERROR` naming that shape);
/// otherwise refused as any JSON body is (415, 413, malformed 400).
struct Password(String);

impl<S: Send + Sync> FromRequest<S> for Password {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Password, ApiError> {
        let JsonBody(body) = JsonBody::from_request(request, state).await?;
        if let Value::Object(mut object) = body
            && object.len() == 1
            && let Some(Value::String(password)) = object.remove("password")
        {
            return Ok(Password(password));
        }
        Err(ApiError::from(ValidationFailure {
            details: vec![FieldIssue {
                path: "password".to_owned(),
                message: "Expected exactly { \"password\": string }".to_owned(),
            }],
        }))
    }
}

impl RouteInput for Password {
    fn describe(io: &mut RouteIo) {
        Body::<LoginBody>::describe(io);
    }
}

/// Exchanges the instance password for a session (cookie and token).
#[portos_route(method = "POST", mount = "auth", path = "/login", summary = "Log in")]
async fn login(
    State(app): State<App>,
    Password(password): Password,
) -> Result<WithCookie<LoginAnswer>, LoginError> {
    if !app.auth.enabled() {
        return Ok(WithCookie {
            cookie: None,
            answer: LoginAnswer {
                ok: true,
                enabled: false,
                token: None,
                expires_at: None,
            },
        });
    }
    if !app.auth.check_password(&password).await {
        return Err(LoginError::WrongPassword);
    }
    let session = app.auth.create_session().await?;
    let max_age = app.auth.session_ttl().as_secs();
    let cookie = HeaderValue::from_str(&format!(
        "{}={}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}",
        app.auth.cookie(),
        session.token
    ))?;
    Ok(WithCookie {
        cookie: Some(cookie),
        answer: LoginAnswer {
            ok: true,
            enabled: true,
            token: Some(session.token),
            expires_at: Some(session.expires_at.to_string()),
        },
    })
}

/// Ends the session the request carries.
#[portos_route(method = "POST", mount = "auth", path = "/logout", summary = "Log out")]
async fn logout(State(app): State<App>, request: Request) -> Result<WithCookie<Done>, StoreError> {
    if let Some(token) = super::gate::session_token(request.headers(), app.auth.cookie()) {
        app.auth.revoke_session(&token).await?;
    }
    // The cookie's name was checked when the server was built.
    let expired = HeaderValue::from_str(&format!(
        "{}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0",
        app.auth.cookie()
    ))
    .ok();
    Ok(WithCookie {
        cookie: expired,
        answer: Done { ok: true },
    })
}
