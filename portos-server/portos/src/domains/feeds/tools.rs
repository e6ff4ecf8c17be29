//! feeds.digest and feeds.mark-read (docs/reference.md#semantic-adapters rows
//! 13–14): the unread items of the user's feed subscriptions.

use portos_core::{AdapterError, Shared, portos_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{self, DIGEST_DEFAULT, DIGEST_MAX, MarkReadOutcome};
use super::ops;
use crate::clock::UserClock;
use crate::shared::limits::clamp_limit;
use crate::store::Store;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DigestArgs {
    /// How many unread items to list (default 5, at most 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DigestItem {
    pub title: String,
    /// The feed's title.
    pub feed: String,
    /// The user-local date it was published (or first seen), `YYYY-MM-DD`.
    pub date: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Digest {
    pub ok: bool,
    pub total_unread: i64,
    pub count: usize,
    pub items: Vec<DigestItem>,
    pub summary: String,
}

/// List the newest unread items of the user's feeds.
#[portos_tool(
    name = "feeds.digest",
    aliases = ["feeds_digest"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "feeds",
)]
pub async fn digest(
    args: DigestArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<Digest, AdapterError> {
    let limit = clamp_limit(args.limit, DIGEST_DEFAULT, DIGEST_MAX);
    let (unread, total_unread) = ops::unread(&store, limit).await?;
    let items: Vec<DigestItem> = unread
        .iter()
        .map(|item| DigestItem {
            title: item.title.clone(),
            feed: item.feed_title.clone(),
            date: item
                .instant()
                .map(|at| clock.local_date(at))
                .unwrap_or_default(),
        })
        .collect();
    let listed: Vec<(&str, &str)> = items
        .iter()
        .map(|item| (item.title.as_str(), item.feed.as_str()))
        .collect();
    let summary = model::digest_summary(total_unread, &listed);
    Ok(Digest {
        ok: true,
        total_unread,
        count: items.len(),
        items,
        summary,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MarkReadArgs {
    /// Words from the title of the unread item to mark read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Mark every unread item read (of one feed, with `feedQuery`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all: Option<bool>,
    /// Words from a feed's title, to limit `all` to that feed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feed_query: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct MarkedRead {
    pub ok: bool,
    /// How many items were marked (with `all`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marked: Option<usize>,
    /// The item marked (without `all`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub summary: String,
}

/// Mark one unread feed item read by its title, or all of them.
#[portos_tool(
    name = "feeds.mark-read",
    aliases = ["feeds_mark_read"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "feeds",
)]
pub async fn mark_read(
    args: MarkReadArgs,
    store: Shared<Store>,
) -> Result<MarkedRead, AdapterError> {
    let outcome = if args.all == Some(true) {
        ops::mark_all_read(&store, model::words(args.feed_query)).await?
    } else {
        match model::words(args.query) {
            Some(query) => ops::mark_read_by_title(&store, query).await?,
            None => MarkReadOutcome::NothingNamed,
        }
    };
    Ok(MarkedRead {
        ok: outcome.ok(),
        marked: match &outcome {
            MarkReadOutcome::All { marked, .. } => Some(*marked),
            _ => None,
        },
        title: match &outcome {
            MarkReadOutcome::Item(item) => Some(item.title.clone()),
            _ => None,
        },
        summary: outcome.summary(),
    })
}
