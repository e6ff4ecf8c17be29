//! What feed and calendar subscriptions share: the body that names a source
//! (a URL or a file), loading a subscribed source's document, and how its
//! failures answer over HTTP. Both domains subscribe to documents the same
//! way, so the rules for a source are written here once.

use portos_server::http::RouteErrors;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::shared::doc_rules::{ABSOLUTE_PATH, HTTP_URL};
use portos_server::outbound::OutboundPolicy;

use crate::shared::source_fetch::{LoadError, Location, load};

/// Where to read from: exactly one of `url` or `path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceBody {
    /// An `http://` or `https://` URL.
    #[schemars(regex(pattern = HTTP_URL))]
    pub url: Option<String>,
    /// An absolute file path on the server's machine.
    #[schemars(regex(pattern = ABSOLUTE_PATH))]
    pub path: Option<String>,
    /// A name to show instead of the one the document gives.
    pub title: Option<String>,
}

impl SourceBody {
    /// The location and the trimmed title, or what to fix. A URL whose
    /// host is an address `outbound` refuses is refused here, naming the
    /// rule (a name is judged when it is fetched).
    pub fn checked(self, outbound: &OutboundPolicy) -> Result<(Location, Option<String>), String> {
        let location = match (self.url, self.path) {
            (Some(url), None) => {
                let location = Location::parse(&url)?;
                let Location::Url(parsed) = &location else {
                    return Err("`url` must be an http:// or https:// URL".into());
                };
                outbound
                    .check_url_address(parsed)
                    .map_err(|refused| format!("`url`: {refused}"))?;
                location
            }
            (None, Some(path)) => {
                if path.trim().is_empty() {
                    return Err("`path` must not be empty".into());
                }
                if path.contains("://") {
                    return Err("`path` must be a file path; put URLs in `url`".into());
                }
                Location::Path(path.trim().into())
            }
            (Some(_), Some(_)) => return Err("give `url` or `path`, not both".into()),
            (None, None) => return Err("give the source as `url` or `path`".into()),
        };
        let title = match self.title {
            Some(title) if title.trim().is_empty() => {
                return Err("`title` must not be empty when given".into());
            }
            title => title.map(|title| title.trim().to_owned()),
        };
        Ok((location, title))
    }
}

/// Why a subscribed source's document could not be loaded: a source that
/// cannot be read is 422, an unreachable or failing server 502.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum LoadFailure {
    /// The stored source or its file cannot be read here (the user's input).
    #[error("{0}")]
    #[route_error(status = 422, code = "SOURCE_UNREADABLE")]
    Unreadable(String),
    /// The server it is fetched from failed or could not be reached.
    #[error("{0}")]
    #[route_error(status = 502, code = "SOURCE_UNREACHABLE")]
    Unreachable(String),
    /// The server's outbound policy refuses its destination: nothing was
    /// sent there.
    #[error("{0}")]
    #[route_error(status = 422, code = "DESTINATION_NOT_ALLOWED")]
    NotAllowed(String),
}

/// The document at a stored source, fetched under `policy`.
pub async fn load_document(source: &str, policy: &OutboundPolicy) -> Result<Vec<u8>, LoadFailure> {
    let location = Location::parse(source).map_err(LoadFailure::Unreadable)?;
    load(&location, policy).await.map_err(|error| match error {
        LoadError::NotAllowed(refused) => LoadFailure::NotAllowed(refused.to_string()),
        error if error.is_upstream() => LoadFailure::Unreachable(error.to_string()),
        error => LoadFailure::Unreadable(error.to_string()),
    })
}
