//! feeds.digest and feeds.mark-read (BEHAVIOUR §3 rows 13–14): the unread
//! items of the user's feed subscriptions.

use portos_core::{AdapterError, ToolContext, portos_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::clock::UserClock;
use crate::feeds;
use crate::shared::limits::clamp_limit;
use crate::shared::title_match;
use crate::store::Store;

const DIGEST_DEFAULT: usize = 5;
const DIGEST_MAX: usize = 10;
/// How many unread items a spoken "mark … read" is matched against.
const MATCH_WINDOW: usize = 500;

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
pub async fn digest(ctx: &ToolContext, args: DigestArgs) -> Result<Digest, AdapterError> {
    let limit = clamp_limit(args.limit, DIGEST_DEFAULT, DIGEST_MAX);
    let store = ctx.state::<Store>()?.clone();
    let clock = ctx.state::<UserClock>()?;
    let (total_unread, unread) = store
        .run(move |connection| {
            Ok((
                feeds::unread_count(connection)?,
                feeds::items(connection, true, None, limit)?,
            ))
        })
        .await?;
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
    let summary = match total_unread {
        0 => "No unread feed items.".to_owned(),
        total => {
            let listed = items
                .iter()
                .map(|item| format!("{} ({})", item.title, item.feed))
                .collect::<Vec<_>>()
                .join("; ");
            let noun = if total == 1 { "item" } else { "items" };
            format!("{total} unread {noun}. Latest: {listed}.")
        }
    };
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

impl MarkedRead {
    fn refused(summary: String) -> MarkedRead {
        MarkedRead {
            ok: false,
            marked: None,
            title: None,
            summary,
        }
    }
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
pub async fn mark_read(ctx: &ToolContext, args: MarkReadArgs) -> Result<MarkedRead, AdapterError> {
    let store = ctx.state::<Store>()?.clone();
    let query = args
        .query
        .map(|q| q.trim().to_owned())
        .filter(|q| !q.is_empty());
    let feed_query = args
        .feed_query
        .map(|q| q.trim().to_owned())
        .filter(|q| !q.is_empty());
    if args.all == Some(true) {
        return store
            .run(move |connection| {
                let transaction = connection.transaction()?;
                let feed = match &feed_query {
                    None => None,
                    Some(wanted) => {
                        let all = feeds::list(&transaction)?;
                        match title_match::best(wanted, &all, |feed| &feed.title) {
                            Some(feed) => Some(feed.clone()),
                            None => return Ok(MarkedRead::refused(no_feed_summary(wanted, &all))),
                        }
                    }
                };
                let marked =
                    feeds::mark_all_read(&transaction, feed.as_ref().map(|feed| feed.id.as_str()))?;
                transaction.commit()?;
                let noun = if marked == 1 { "item" } else { "items" };
                let summary = match (&feed, marked) {
                    (Some(feed), 0) => format!("No unread items in {}.", feed.title),
                    (None, 0) => "No unread items to mark.".to_owned(),
                    (Some(feed), n) => format!("Marked {n} {noun} read in {}.", feed.title),
                    (None, n) => format!("Marked {n} {noun} read."),
                };
                Ok(MarkedRead {
                    ok: true,
                    marked: Some(marked),
                    title: None,
                    summary,
                })
            })
            .await
            .map_err(AdapterError::from);
    }
    let Some(query) = query else {
        return Ok(MarkedRead::refused(
            "Say which item to mark read (query), or set all to true to mark every unread item."
                .to_owned(),
        ));
    };
    let outcome = store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            let unread = feeds::items(&transaction, true, None, MATCH_WINDOW)?;
            let Some(item) = title_match::best(&query, &unread, |item| &item.title) else {
                return Ok(MarkedRead::refused(format!(
                    "No unread item matches \"{query}\"."
                )));
            };
            feeds::mark_item_read(&transaction, &item.id)?;
            transaction.commit()?;
            Ok(MarkedRead {
                ok: true,
                marked: None,
                title: Some(item.title.clone()),
                summary: format!("Marked \"{}\" read.", item.title),
            })
        })
        .await?;
    Ok(outcome)
}

fn no_feed_summary(wanted: &str, all: &[feeds::Feed]) -> String {
    if all.is_empty() {
        return format!("No feed matches \"{wanted}\": there are no feed subscriptions.");
    }
    let titles = all
        .iter()
        .map(|feed| feed.title.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    format!("No feed matches \"{wanted}\"; nothing was marked. Your feeds: {titles}.")
}
