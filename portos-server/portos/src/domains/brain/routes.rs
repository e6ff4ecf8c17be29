//! `/api/brain/inbox`: the brain inbox for people. A capture goes through
//! the registry's `brain.capture` as `ui`, so it passes the same checks and
//! lands in the user-actions ledger like any other capture.

use axum::Json;
use axum::extract::Extension;
use axum::response::{IntoResponse, Response};
use portos_core::inventory::RouteIo;
use portos_core::{Shared, ToolCall, ToolError};
use portos_server::LiveRegistry;
use portos_server::auth::AuthContext;
use portos_server::http::{ApiError, Body, Created, InputError, Invalid, Query, RouteErrors};
use portos_server::portos_route;
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ops;
use super::tools::Captured;
use crate::shared::rest::{RegistryUnavailable, served_registry};

const LIST_DEFAULT: i64 = 20;
const LIST_MAX: i64 = 100;

/// Which captures to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboxQuery {
    /// 1 to 100 (default 20).
    #[schemars(range(min = 1, max = LIST_MAX))]
    pub limit: Option<i64>,
    /// Captures to skip, newest first (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

/// One capture.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InboxItem {
    pub id: String,
    pub text: String,
    /// The user-local date, `YYYY-MM-DD`.
    pub date: String,
    /// When it was captured (RFC 3339).
    pub captured_at: String,
}

/// A page of captures, newest first, and how many there are in all.
#[derive(Debug, Serialize, JsonSchema)]
pub struct InboxPage {
    pub items: Vec<InboxItem>,
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// What to capture.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboxCapture {
    /// The thought (trimmed; must not be empty).
    #[schemars(regex(pattern = r"\S"))]
    pub text: String,
}

/// Why a capture was not stored: the registry refused the call (a `ui`
/// write needs an authenticated session), or the capture failed (an empty
/// text) and changed nothing.
#[derive(Debug)]
enum CaptureRefusal {
    /// The registry's refusal, answered as the registry words it.
    Refused(ToolError),
    /// The capture's own failure: what to fix.
    Failed(Invalid),
    /// `brain.capture` answered something that is not a [`Captured`]: the
    /// server's fault.
    Answer(serde_json::Error),
    /// No registry to run it in: the server's fault too.
    Unavailable(RegistryUnavailable),
}

impl From<ToolError> for CaptureRefusal {
    fn from(error: ToolError) -> CaptureRefusal {
        CaptureRefusal::Refused(error)
    }
}

impl From<CaptureRefusal> for ApiError {
    fn from(refusal: CaptureRefusal) -> ApiError {
        match refusal {
            CaptureRefusal::Refused(error) => ApiError::from(error),
            CaptureRefusal::Failed(invalid) => ApiError::from(invalid),
            CaptureRefusal::Answer(error) => ApiError::internal(format!(
                "brain.capture answered an unexpected result: {error}"
            )),
            CaptureRefusal::Unavailable(error) => ApiError::from(error),
        }
    }
}

impl IntoResponse for CaptureRefusal {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

/// The registry checks a call it runs as `ui` (an unauthenticated session
/// may not write); a failed capture is a 400.
impl RouteErrors for CaptureRefusal {
    fn describe(io: &mut RouteIo) {
        io.error(403, "TOOL_AUTH_REQUIRED");
        Invalid::describe(io);
    }
}

/// The brain inbox, newest first.
#[portos_route(method = "GET", path = "/api/brain/inbox", summary = "Brain inbox")]
async fn list(
    store: Shared<Store>,
    Query(query): Query<InboxQuery>,
) -> Result<Json<InboxPage>, InputError> {
    let limit = match query.limit {
        None => LIST_DEFAULT,
        Some(n) if (1..=LIST_MAX).contains(&n) => n,
        Some(_) => {
            return Err(Invalid(format!("limit must be between 1 and {LIST_MAX}")).into());
        }
    };
    let offset = match query.offset {
        None => 0,
        Some(n) if n >= 0 => n,
        Some(_) => return Err(Invalid::new("offset must be 0 or more").into()),
    };
    let (captures, total) = ops::page(&store, limit, offset).await?;
    let items = captures
        .into_iter()
        .map(|capture| InboxItem {
            id: capture.id,
            text: capture.text,
            date: capture.date,
            captured_at: capture.captured_at,
        })
        .collect();
    Ok(Json(InboxPage {
        items,
        total,
        limit,
        offset,
    }))
}

/// Captures a thought into the brain inbox (recorded as `brain.capture` by
/// the user). Like every `ui` write, it needs an authenticated session.
#[portos_route(
    method = "POST",
    path = "/api/brain/inbox",
    summary = "Capture into the brain inbox"
)]
async fn capture(
    live_registry: Shared<LiveRegistry>,
    Extension(auth): Extension<AuthContext>,
    Body(InboxCapture { text }): Body<InboxCapture>,
) -> Result<Created<Captured>, CaptureRefusal> {
    let mut arguments = Map::new();
    arguments.insert("text".to_owned(), Value::String(text));
    let call = ToolCall {
        request_id: format!("brain-inbox:{}", uuid::Uuid::new_v4()),
        name: "brain.capture".to_owned(),
        version: 1,
        arguments,
    };
    let result = served_registry(&live_registry)
        .map_err(CaptureRefusal::Unavailable)?
        .call(&portos_words::principal::ui(auth.authenticated), call)
        .await?;
    match (result.is_completed(), result.result) {
        (true, Some(output)) => output
            .parse::<Captured>()
            .map(Created)
            .map_err(CaptureRefusal::Answer),
        // A failed capture (empty text) changed nothing: say what to fix.
        _ => Err(CaptureRefusal::Failed(Invalid(
            result
                .error
                .unwrap_or_else(|| "The capture failed".to_owned()),
        ))),
    }
}
