//! Helpers more than one domain uses: numbers as said (`amount`), the
//! context resources' URIs (`context_uri`), the
//! contract's limit clamping, the user's local dates, title matching (goals,
//! feeds), the outbound HTTP client, reading a feed or calendar document
//! from a URL or a file, the source subscriptions feeds and calendar share,
//! the REST pieces several domains' routes use, running a tool for the
//! exposable public API groups, and the trimming of tool arguments.

pub mod amount;
pub mod context_uri;
pub mod doc_rules;
pub mod limits;
pub mod local_date;
pub mod outbound;
pub mod public_api;
pub mod rest;
pub mod source_fetch;
pub mod subscriptions;
pub mod title_match;
pub mod trimmed;

use crate::ledger::Actor;
use portos_core::Scope;

/// The actor the user-actions ledger records for a tool call: the
/// Persistent Mind acts as itself; the UI, an agent working for the user
/// and the voice assistant all act on the user's behalf.
pub fn actor_of(scope: Scope) -> Actor {
    if scope == portos_words::MIND {
        Actor::Mind
    } else {
        Actor::User
    }
}
