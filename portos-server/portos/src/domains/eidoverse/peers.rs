//! Peer worlds, configured by URL: other PortOS instances this world's
//! presence may visit as a guest.

use crate::shared::doc_rules::{HTTP_BASE_URL, NOT_BLANK};
use portos_server::outbound::OutboundPolicy;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most peers one world keeps.
pub const MAX_PEERS: i64 = 100;

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Peer {
    pub id: String,
    /// The peer's base URL (`http://host:port`), without a trailing slash.
    pub url: String,
    pub name: String,
}

/// A peer as a person adds it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPeer {
    /// 1..80 of letters, digits, `_` and `-`.
    #[schemars(length(min = 1, max = 80), regex(pattern = r"^[a-zA-Z0-9_-]+$"))]
    pub id: String,
    /// `http://` or `https://` base URL of the other PortOS (no query or
    /// fragment).
    #[schemars(length(min = 1, max = 2000), regex(pattern = HTTP_BASE_URL))]
    pub url: String,
    /// A name to show (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 120), regex(pattern = NOT_BLANK))]
    pub name: Option<String>,
}

/// Whether `id` is a peer id (1..80 of letters, digits, `_`, `-`).
pub fn is_peer_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 80
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl NewPeer {
    /// The peer to store, or what to fix. A URL whose host is an address
    /// `outbound` refuses is refused here, naming the rule (a name is
    /// judged when the world is visited).
    pub fn checked(self, outbound: &OutboundPolicy) -> Result<Peer, String> {
        if !is_peer_id(&self.id) {
            return Err("id must be 1..80 characters of letters, digits, '_' and '-'".to_owned());
        }
        let url = self.url.trim().trim_end_matches('/').to_owned();
        let parsed =
            reqwest::Url::parse(&url).map_err(|error| format!("url is not a URL ({error})"))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err("url must be an http:// or https:// address with a host".to_owned());
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err("url must be a base address, without ?query or #fragment".to_owned());
        }
        outbound
            .check_url_address(&url)
            .map_err(|refused| format!("url: {refused}"))?;
        let name = match self.name.as_deref().map(str::trim) {
            None => self.id.clone(),
            Some("") => return Err("name must not be empty".to_owned()),
            Some(name) if name.chars().count() > 120 => {
                return Err("name is longer than 120 characters".to_owned());
            }
            Some(name) => name.to_owned(),
        };
        Ok(Peer {
            id: self.id,
            url,
            name,
        })
    }
}
