//! Feeds as this server keeps them: subscriptions, their items and what a
//! refresh did, and the rules that pick and word items (the digest, marking
//! read). Pure: no SQL, no HTTP.

use schemars::JsonSchema;
use serde::Serialize;

/// The most items one read of the store considers: a REST listing, and the
/// unread items a spoken "mark … read" is matched against.
pub const ITEM_WINDOW: usize = 500;
/// Unread items the digest lists unless asked otherwise, and at most.
pub const DIGEST_DEFAULT: usize = 5;
pub const DIGEST_MAX: usize = 10;

/// A subscription, with its item counts.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Feed {
    pub id: String,
    pub title: String,
    /// The URL or file path it is read from.
    pub source: String,
    pub created_at: String,
    /// When it was last refreshed (`null` before the first refresh).
    pub refreshed_at: Option<String>,
    pub unread: i64,
    pub items: i64,
}

/// One item of a feed.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedItem {
    pub id: String,
    pub feed_id: String,
    pub feed_title: String,
    pub title: String,
    pub link: Option<String>,
    /// RFC 3339 (UTC), when the feed gave a date.
    pub published_at: Option<String>,
    /// RFC 3339 (UTC), when this server first saw it.
    pub fetched_at: String,
    pub read: bool,
}

impl FeedItem {
    /// The instant the item stands for: published, else first seen.
    pub fn instant(&self) -> Option<jiff::Timestamp> {
        self.published_at
            .as_deref()
            .unwrap_or(&self.fetched_at)
            .parse()
            .ok()
    }
}

/// What a refresh did.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshOutcome {
    pub feed: Feed,
    /// Items new to this server.
    pub added: usize,
    /// Items the document listed.
    pub seen: usize,
}

/// A second subscription to the same source.
#[derive(Debug)]
pub struct AlreadySubscribed(pub Feed);

/// The digest's sentence: how many are unread, and the newest listed
/// (`(title, feed title)` pairs).
pub fn digest_summary(total_unread: i64, listed: &[(&str, &str)]) -> String {
    match total_unread {
        0 => "No unread feed items.".to_owned(),
        total => {
            let listed = listed
                .iter()
                .map(|(title, feed)| format!("{title} ({feed})"))
                .collect::<Vec<_>>()
                .join("; ");
            let noun = if total == 1 { "item" } else { "items" };
            format!("{total} unread {noun}. Latest: {listed}.")
        }
    }
}

/// What marking items read came to.
#[derive(Debug)]
pub enum MarkReadOutcome {
    /// The one item matched by title, now read.
    Item(FeedItem),
    /// Every unread item (of `feed` when one was named) is read; `marked`
    /// of them changed.
    All { feed: Option<Feed>, marked: usize },
    /// Neither a title nor `all` was given.
    NothingNamed,
    /// No unread item matches the words given.
    NoItemMatches(String),
    /// No feed matches the words given; `feeds` are the subscriptions.
    NoFeedMatches { wanted: String, feeds: Vec<Feed> },
}

impl MarkReadOutcome {
    /// Whether something was (or could be) marked.
    pub fn ok(&self) -> bool {
        matches!(self, MarkReadOutcome::Item(_) | MarkReadOutcome::All { .. })
    }

    /// The outcome in a sentence.
    pub fn summary(&self) -> String {
        match self {
            MarkReadOutcome::Item(item) => format!("Marked \"{}\" read.", item.title),
            MarkReadOutcome::All { feed, marked } => {
                let noun = if *marked == 1 { "item" } else { "items" };
                match (feed, marked) {
                    (Some(feed), 0) => format!("No unread items in {}.", feed.title),
                    (None, 0) => "No unread items to mark.".to_owned(),
                    (Some(feed), n) => format!("Marked {n} {noun} read in {}.", feed.title),
                    (None, n) => format!("Marked {n} {noun} read."),
                }
            }
            MarkReadOutcome::NothingNamed => {
                "Say which item to mark read (query), or set all to true to mark every unread item."
                    .to_owned()
            }
            MarkReadOutcome::NoItemMatches(query) => {
                format!("No unread item matches \"{query}\".")
            }
            MarkReadOutcome::NoFeedMatches { wanted, feeds } => {
                if feeds.is_empty() {
                    return format!(
                        "No feed matches \"{wanted}\": there are no feed subscriptions."
                    );
                }
                let titles = feeds
                    .iter()
                    .map(|feed| feed.title.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                format!("No feed matches \"{wanted}\"; nothing was marked. Your feeds: {titles}.")
            }
        }
    }
}

/// Trimmed words, or `None` when there are none.
pub fn words(text: Option<String>) -> Option<String> {
    text.map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
}
