//! Loading a feed or calendar document from where the user pointed: an
//! `http(s)` URL through the outbound client (with a timeout and a size cap),
//! or a file on this machine.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use portos_server::outbound::{self, OutboundClient, OutboundError, OutboundPolicy, Refused};

/// How long one fetch may take, connection included.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// Feeds and calendars are small; a bigger answer is refused, not buffered.
const MAX_DOCUMENT_BYTES: usize = 8 * 1024 * 1024;

/// Where a document lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Url(String),
    Path(PathBuf),
}

impl Location {
    /// `http://…` and `https://…` are URLs, any other scheme is refused, and
    /// the rest is a file path (absolute or relative to the server's directory).
    pub fn parse(input: &str) -> Result<Location, String> {
        let input = input.trim();
        if input.is_empty() {
            return Err("the source must not be empty: give an http(s) URL or a file path".into());
        }
        let lower = input.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            let url = reqwest::Url::parse(input)
                .map_err(|error| format!("`{input}` is not a valid URL: {error}"))?;
            if url.host_str().is_none_or(str::is_empty) {
                return Err(format!("`{input}` has no host"));
            }
            return Ok(Location::Url(input.to_owned()));
        }
        if let Some((scheme, _)) = input.split_once("://") {
            return Err(format!(
                "unsupported scheme `{scheme}`: use an http(s) URL or a file path"
            ));
        }
        Ok(Location::Path(PathBuf::from(input)))
    }

    /// The stored form (what the user gave, trimmed).
    pub fn as_source(&self) -> String {
        match self {
            Location::Url(url) => url.clone(),
            Location::Path(path) => path.display().to_string(),
        }
    }
}

/// Why a document could not be loaded; the message says what to check.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("could not reach {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("{url} answered HTTP {status}")]
    BadStatus { url: String, status: u16 },
    #[error("{url} sent more than {MAX_DOCUMENT_BYTES} bytes")]
    TooLarge { url: String },
    #[error("cannot read the file {path}: {reason}")]
    File { path: String, reason: String },
    /// The server's outbound policy refuses the destination: nothing was
    /// sent there (or, for a redirect, to where it pointed).
    #[error("{0}")]
    NotAllowed(Refused),
}

impl LoadError {
    /// Whether the fault is upstream (a server we fetched from) rather than
    /// the user's input (a file path that does not work here) or the
    /// server's policy.
    pub fn is_upstream(&self) -> bool {
        !matches!(self, LoadError::File { .. } | LoadError::NotAllowed(_))
    }
}

/// The document's bytes, fetched under `policy` when it is at a URL.
pub async fn load(location: &Location, policy: &OutboundPolicy) -> Result<Vec<u8>, LoadError> {
    match location {
        Location::Url(url) => fetch(url, policy).await,
        Location::Path(path) => {
            let path = path.clone();
            let shown = path.display().to_string();
            let read = tokio::task::spawn_blocking(move || read_file(&path))
                .await
                .map_err(|error| LoadError::File {
                    path: shown.clone(),
                    reason: error.to_string(),
                })?;
            read.map_err(|reason| LoadError::File {
                path: shown,
                reason,
            })
        }
    }
}

fn read_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let metadata = std::fs::metadata(path).map_err(|error| error.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file".into());
    }
    if metadata.len() > MAX_DOCUMENT_BYTES as u64 {
        return Err(format!("larger than {MAX_DOCUMENT_BYTES} bytes"));
    }
    std::fs::read(path).map_err(|error| error.to_string())
}

async fn fetch(url: &str, policy: &OutboundPolicy) -> Result<Vec<u8>, LoadError> {
    let unreachable = |error: reqwest::Error| match outbound::refusal(&error) {
        Some(refused) => LoadError::NotAllowed(refused.clone()),
        None => LoadError::Unreachable {
            url: url.to_owned(),
            reason: describe(&error),
        },
    };
    let builder = crate::shared::outbound::client_builder()
        .timeout(FETCH_TIMEOUT)
        .connect_timeout(FETCH_TIMEOUT)
        .user_agent(concat!("portos/", env!("CARGO_PKG_VERSION")));
    let client = OutboundClient::new(builder, Arc::new(policy.clone())).map_err(unreachable)?;
    let request = client.get(url).map_err(|error| match error {
        OutboundError::Refused(refused) => LoadError::NotAllowed(refused),
        OutboundError::NotHttp(_) => LoadError::Unreachable {
            url: url.to_owned(),
            reason: error.to_string(),
        },
    })?;
    let mut response = client.send(request).await.map_err(unreachable)?;
    let status = response.status();
    if !status.is_success() {
        return Err(LoadError::BadStatus {
            url: url.to_owned(),
            status: status.as_u16(),
        });
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(LoadError::TooLarge {
                url: url.to_owned(),
            });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// reqwest's top-level message is generic ("error sending request"); the
/// cause chain says what actually happened (refused, timed out, DNS).
fn describe(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return format!("timed out after {} s", FETCH_TIMEOUT.as_secs());
    }
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message = cause.to_string();
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::Location;

    #[test]
    fn classifies_sources() {
        assert!(matches!(
            Location::parse(" https://example.org/feed.xml "),
            Ok(Location::Url(url)) if url == "https://example.org/feed.xml"
        ));
        assert!(matches!(
            Location::parse("/srv/feed.xml"),
            Ok(Location::Path(_))
        ));
        assert!(Location::parse("ftp://example.org/feed.xml").is_err());
        assert!(Location::parse("http://").is_err());
        assert!(Location::parse("  ").is_err());
    }
}
