//! The guest protocol between two PortOS worlds: the bodies a visiting
//! server sends to a host's `/api/eidoverse/travel/guest/…` routes and what
//! the host answers. Both sides use these types, so they cannot drift.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chat::{Message, Page};
use crate::shared::doc_rules::ONE_LINE_TEXT;

/// Where the guest routes live on every PortOS.
pub const GUEST_PREFIX: &str = "/api/eidoverse/travel/guest";

/// A guest knocking: who is coming.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Arrival {
    /// The visiting presence's name, 1..80 characters.
    #[schemars(length(min = 1, max = 80), regex(pattern = ONE_LINE_TEXT))]
    pub guest_name: String,
    /// The visiting world's name, 1..120 characters.
    #[schemars(length(min = 1, max = 120), regex(pattern = ONE_LINE_TEXT))]
    pub from_world: String,
}

impl Arrival {
    /// The arrival with its names trimmed, or what to fix: each 1..80
    /// (guest) or 1..120 (world) characters, without control characters.
    pub fn checked(self) -> Result<Arrival, String> {
        Ok(Arrival {
            guest_name: bounded("guestName", &self.guest_name, 80)?,
            from_world: bounded("fromWorld", &self.from_world, 120)?,
        })
    }
}

/// Trims and bounds a string a guest sent.
fn bounded(field: &str, text: &str, max: usize) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > max {
        return Err(format!("{field} must be 1..{max} characters"));
    }
    if text.chars().any(char::is_control) {
        return Err(format!("{field} must not hold control characters"));
    }
    Ok(text.to_owned())
}

/// The host world as a guest sees it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostWorld {
    pub id: String,
    pub name: String,
    pub recipe: String,
}

/// Whether a world takes guests (the answer to a destination probe).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Door {
    pub world: HostWorld,
    pub accept_guests: bool,
}

/// A visit begun.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Welcome {
    /// 48 lowercase hex characters; the guest's key to the visit.
    pub visit_id: String,
    pub world: HostWorld,
    /// The host's presence (who the guest meets).
    pub host: String,
}

/// A guest's line in the host's chat.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GuestLine {
    /// 1..2000 characters, trimmed.
    #[schemars(length(min = 1, max = 2000), regex(pattern = r"\S"))]
    pub text: String,
}

/// The host's chat since a cursor, as guests read it.
pub type GuestChat = Page;

/// A guest's line as stored.
pub type Posted = Message;

/// A visit ended.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Farewell {
    pub visit_id: String,
    pub left: bool,
}

/// Whether `id` is a visit id: exactly 48 lowercase hex characters.
pub fn is_visit_id(id: &str) -> bool {
    id.len() == 48
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A fresh visit id: 24 random bytes as lowercase hex.
pub fn new_visit_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0_u8; 24];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visit_ids() {
        let id = new_visit_id().expect("randomness");
        assert!(is_visit_id(&id), "{id}");
        assert!(!is_visit_id(&id.to_uppercase()));
        assert!(!is_visit_id(&id[1..]));
        assert_ne!(id, new_visit_id().expect("randomness"));
    }
}
