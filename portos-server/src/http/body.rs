//! A JSON body extractor whose every rejection is a contract error body:
//! wrong content type 415, too large 413, malformed 400 VALIDATION_ERROR.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use portos_core::contract::json_type;
use serde_json::Value;

use super::ApiError;

/// The request body as JSON, not yet interpreted.
#[derive(Debug)]
pub struct JsonBody(pub Value);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<JsonBody, ApiError> {
        let bytes = json_bytes(request, state).await?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|error| ApiError::malformed_json(&error))
    }
}

impl JsonBody {
    /// The body as `T`, or 400 VALIDATION_ERROR saying what does not fit
    /// (unknown keys, wrong types) — nothing has been changed at that point.
    pub fn into_typed<T: serde::de::DeserializeOwned>(self) -> Result<T, ApiError> {
        serde_json::from_value(self.0).map_err(|error| {
            ApiError::from(portos_core::contract::ValidationFailure {
                details: vec![portos_core::contract::FieldIssue {
                    path: String::new(),
                    message: error.to_string(),
                }],
            })
        })
    }
}

/// The request body as `T`: the contract's refusals in order — 415 when it
/// is not JSON, 413 when larger than the configured limit, 400
/// `VALIDATION_ERROR` when malformed or not a `T` (unknown keys, wrong
/// types), before the handler runs. `T` is the request schema in the
/// documents.
///
/// ```
/// use portos_server::prelude::*;
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// /// A note to keep.
/// #[derive(Debug, Deserialize, JsonSchema)]
/// #[serde(deny_unknown_fields)]
/// struct NewNote {
///     text: String,
/// }
///
/// #[portos_route(method = "POST", path = "/api/notes")]
/// async fn add(Body(note): Body<NewNote>) -> Json<usize> {
///     Json(note.text.len())
/// }
///
/// fn main() {
///     let builder = ServerBuilder::new("notes", "1.0.0", Config::default());
///     let inventory = portos_server::http::inventory(builder.classifier(), builder.mounts())
///         .expect("the routes");
///     let route = inventory.routes().iter().find(|route| route.path == "/api/notes");
///     // `NewNote` is the operation's request body, and a body that is not
///     // JSON is a documented 415.
///     let io = inventory.io(route.expect("listed"));
///     assert!(io.request.is_some());
///     assert!(io.errors.iter().any(|error| error.status == 415));
/// }
/// ```
#[derive(Debug)]
pub struct Body<T>(pub T);

impl<S, T> FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: serde::de::DeserializeOwned + schemars::JsonSchema + 'static,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Body<T>, ApiError> {
        let JsonBody(value) = JsonBody::from_request(request, state).await?;
        // serde reads a struct from an array too (its fields in order); a
        // body documented as an object is an object, nothing else.
        if !value.is_object() && documents_an_object::<T>() {
            return Err(ApiError::from(portos_core::contract::ValidationFailure {
                details: vec![portos_core::contract::FieldIssue {
                    path: String::new(),
                    message: format!("Expected object, received {}", json_type(&value)),
                }],
            }));
        }
        // The documented schema, enforced: a rule the OpenAPI document
        // states is one the request has passed.
        super::schema_gate::check::<T>(&value, "")?;
        JsonBody(value).into_typed().map(Body)
    }
}

/// Whether `T`'s schema is an object, worked out once per type.
fn documents_an_object<T: schemars::JsonSchema + 'static>() -> bool {
    use std::any::TypeId;
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock, PoisonError};
    static OBJECTS: OnceLock<Mutex<HashMap<TypeId, bool>>> = OnceLock::new();
    let known = OBJECTS.get_or_init(Default::default);
    if let Some(&object) = known
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&TypeId::of::<T>())
    {
        return object;
    }
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let object = schema.get("type").and_then(Value::as_str) == Some("object");
    known
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(TypeId::of::<T>(), object);
    object
}

impl<T: schemars::JsonSchema> super::RouteInput for Body<T> {
    fn describe(io: &mut portos_core::inventory::RouteIo) {
        io.request = Some(super::io::schema_of::<T>());
        JsonBody::describe(io);
    }
}

/// An untyped JSON body: documented as any JSON value, with the same
/// refusals as [`Body`].
impl super::RouteInput for JsonBody {
    fn describe(io: &mut portos_core::inventory::RouteIo) {
        if io.request.is_none() {
            io.request = Some(super::io::schema_of::<Value>());
        }
        io.error(400, "VALIDATION_ERROR");
        io.error(413, "PAYLOAD_TOO_LARGE");
        io.error(415, "UNSUPPORTED_MEDIA_TYPE");
    }
}

/// The body of a JSON request, unparsed, with the refusals every JSON body gets: 415
/// when the content type is not JSON, 413 over the body limit.
pub(super) async fn json_bytes<S: Send + Sync>(
    request: Request,
    state: &S,
) -> Result<Bytes, ApiError> {
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|mime| {
            let mime = mime.trim();
            mime.eq_ignore_ascii_case("application/json")
                || mime
                    .len()
                    .checked_sub(5)
                    .and_then(|at| mime.get(at..))
                    .is_some_and(|tail| tail.eq_ignore_ascii_case("+json"))
        });
    if !is_json {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            "Expected a JSON body with Content-Type: application/json",
        ));
    }
    Bytes::from_request(request, state)
        .await
        .map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "PAYLOAD_TOO_LARGE",
                    "Request body is larger than the configured limit",
                )
            } else {
                ApiError::new(rejection.status(), "BAD_REQUEST", rejection.body_text())
            }
        })
}
