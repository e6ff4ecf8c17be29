//! What the feed and calendar routes share: the body that names a source,
//! loading a source's document, and their error answers.

use axum::http::StatusCode;
use schemars::JsonSchema;
use serde::Deserialize;

use super::ApiError;
use crate::shared::source_fetch::{Location, load};
use crate::store::StoreError;

/// Where to read from: exactly one of `url` or `path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceBody {
    /// An `http://` or `https://` URL.
    pub url: Option<String>,
    /// A file path on the server's machine.
    pub path: Option<String>,
    /// A name to show instead of the one the document gives.
    pub title: Option<String>,
}

impl SourceBody {
    /// The location and the trimmed title, or 400 saying what to fix.
    pub fn checked(self) -> Result<(Location, Option<String>), ApiError> {
        let location = match (self.url, self.path) {
            (Some(url), None) => {
                let location = Location::parse(&url).map_err(validation)?;
                if !matches!(location, Location::Url(_)) {
                    return Err(validation("`url` must be an http:// or https:// URL"));
                }
                location
            }
            (None, Some(path)) => {
                if path.trim().is_empty() {
                    return Err(validation("`path` must not be empty"));
                }
                if path.contains("://") {
                    return Err(validation("`path` must be a file path; put URLs in `url`"));
                }
                Location::Path(path.trim().into())
            }
            (Some(_), Some(_)) => return Err(validation("give `url` or `path`, not both")),
            (None, None) => return Err(validation("give the source as `url` or `path`")),
        };
        let title = match self.title {
            Some(title) if title.trim().is_empty() => {
                return Err(validation("`title` must not be empty when given"));
            }
            title => title.map(|title| title.trim().to_owned()),
        };
        Ok((location, title))
    }
}

/// The document at a stored source: an unreachable or failing server is
/// 502, a file that cannot be read 422.
pub async fn load_document(source: &str) -> Result<Vec<u8>, ApiError> {
    let location = Location::parse(source).map_err(|reason| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "SOURCE_UNREADABLE",
            reason,
        )
    })?;
    load(&location).await.map_err(|error| {
        if error.is_upstream() {
            ApiError::new(
                StatusCode::BAD_GATEWAY,
                "SOURCE_UNREACHABLE",
                error.to_string(),
            )
        } else {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "SOURCE_UNREADABLE",
                error.to_string(),
            )
        }
    })
}

pub fn validation(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message)
}

/// The store failing is the server's fault.
#[allow(clippy::needless_pass_by_value)]
pub fn store_failure(error: StoreError) -> ApiError {
    ApiError::internal(error.to_string())
}
