//! `/api/auth/*`: status, whoami, login, logout.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use portos_core::portos_route;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ApiError;
use super::body::JsonBody;
use crate::app::App;
use crate::auth::{AuthContext, SESSION_COOKIE};

#[derive(Debug, Serialize, JsonSchema)]
pub struct AuthStatus {
    /// An instance password is set.
    pub enabled: bool,
    pub authenticated: bool,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginBody {
    pub password: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginAnswer {
    pub ok: bool,
    pub enabled: bool,
    /// The session token (also set as the `portos_session` cookie).
    pub token: Option<String>,
    pub expires_at: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Done {
    pub ok: bool,
}

/// Whether a password is set and whether this request is authenticated.
#[portos_route(method = "GET", path = "/api/auth/status", summary = "Authentication status", response = AuthStatus)]
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
#[portos_route(method = "GET", path = "/api/auth/whoami", summary = "Who am I", response = AuthContext)]
async fn whoami(Extension(context): Extension<AuthContext>) -> Json<AuthContext> {
    Json(context)
}

/// Exchanges the instance password for a session (cookie and token).
#[portos_route(
    method = "POST",
    path = "/api/auth/login",
    summary = "Log in",
    request = LoginBody,
    response = LoginAnswer,
    errors = [(400, "VALIDATION_ERROR"), (401, "INVALID_CREDENTIALS")],
)]
async fn login(State(app): State<App>, JsonBody(body): JsonBody) -> Result<Response, ApiError> {
    let password = match body.as_object() {
        Some(object) if object.len() == 1 => object.get("password").and_then(Value::as_str),
        _ => None,
    };
    let Some(password) = password else {
        return Err(ApiError::from(portos_core::contract::ValidationFailure {
            details: vec![portos_core::contract::FieldIssue {
                path: "password".to_owned(),
                message: "Expected exactly { \"password\": string }".to_owned(),
            }],
        }));
    };
    if !app.auth.enabled() {
        return Ok(Json(json!({ "ok": true, "enabled": false })).into_response());
    }
    if !app.auth.check_password(password).await {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "INVALID_CREDENTIALS",
            "Invalid password",
        ));
    }
    let session = app
        .auth
        .create_session()
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let max_age = app.auth.session_ttl().as_secs();
    let cookie = format!(
        "{SESSION_COOKIE}={}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}",
        session.token
    );
    let cookie = HeaderValue::from_str(&cookie).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok((
        [(header::SET_COOKIE, cookie)],
        Json(json!({
            "ok": true,
            "enabled": true,
            "token": session.token,
            "expiresAt": session.expires_at.to_string(),
        })),
    )
        .into_response())
}

/// Ends the session the request carries.
#[portos_route(method = "POST", path = "/api/auth/logout", summary = "Log out", response = Done)]
async fn logout(State(app): State<App>, request: Request) -> Result<Response, ApiError> {
    if let Some(token) = crate::auth::gate_session_token(request.headers()) {
        app.auth
            .revoke_session(&token)
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?;
    }
    let expired =
        HeaderValue::from_static("portos_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
    Ok(([(header::SET_COOKIE, expired)], Json(json!({ "ok": true }))).into_response())
}
