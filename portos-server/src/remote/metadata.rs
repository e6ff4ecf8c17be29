//! The protected resource metadata (RFC 9728) of a server in remote mode:
//! which resource it is, which authorization server issues its tokens,
//! which scopes it knows, how tokens are presented. Served where RFC 9728
//! §3.1 derives it from the resource identifier (the well-known path
//! inserted before the resource's path) and at the root form.

use serde_json::{Value, json};

use super::RemoteConfig;

/// The well-known path of RFC 9728.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Where the metadata is, from the resource identifier: its absolute URL
/// (`https://host/mcp` → `https://host/.well-known/oauth-protected-resource/mcp`,
/// what challenges name) and the paths it is served at here (that one's,
/// then the root form when it differs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Location {
    pub url: String,
    pub paths: Vec<String>,
}

pub(crate) fn location(resource: &str) -> Result<Location, String> {
    let url = reqwest::Url::parse(resource)
        .map_err(|error| format!("`{resource}` is not a URL ({error})"))?;
    let origin = url.origin().ascii_serialization();
    let path = format!("{WELL_KNOWN}{}", url.path().trim_end_matches('/'));
    let url = format!("{origin}{path}");
    let mut paths = vec![path];
    if paths[0] != WELL_KNOWN {
        paths.push(WELL_KNOWN.to_owned());
    }
    Ok(Location { url, paths })
}

/// The metadata document.
pub(crate) fn document(config: &RemoteConfig, resource_name: &str) -> Value {
    json!({
        "resource": config.resource,
        "authorization_servers": [config.issuer],
        "scopes_supported": config.scopes.scopes().collect::<Vec<_>>(),
        "bearer_methods_supported": ["header"],
        "resource_name": resource_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_well_known_path_goes_before_the_resource_path() {
        let inserted = "/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            location("https://tools.example/mcp").expect("a URL"),
            Location {
                url: format!("https://tools.example{inserted}"),
                paths: vec![inserted.to_owned(), WELL_KNOWN.to_owned()],
            }
        );
        assert_eq!(
            location("https://tools.example:8443/").expect("a URL"),
            Location {
                url: format!("https://tools.example:8443{WELL_KNOWN}"),
                paths: vec![WELL_KNOWN.to_owned()],
            }
        );
    }
}
