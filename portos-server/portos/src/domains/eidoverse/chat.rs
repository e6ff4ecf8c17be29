//! The world's chat: messages get increasing cursors (never reused), reads
//! page forward from a cursor. Who may say what, and how a page is told.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most messages one read returns.
pub const CHAT_PAGE: i64 = 50;
/// The longest message, in characters, after trimming.
pub const MESSAGE_MAX_CHARS: usize = 2000;
/// The cursor before the first message: reading after it reads from the start.
pub const FROM_START: i64 = -1;
/// The name the owner's lines carry.
pub const OWNER_NAME: &str = "Owner";

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AuthorKind {
    /// The Chief of Staff's presence.
    Cos,
    /// The owner, through the REST route.
    Person,
    /// A visitor from another world.
    Guest,
}

impl AuthorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AuthorKind::Cos => "cos",
            AuthorKind::Person => "person",
            AuthorKind::Guest => "guest",
        }
    }

    pub fn parse(text: &str) -> AuthorKind {
        match text {
            "cos" => AuthorKind::Cos,
            "guest" => AuthorKind::Guest,
            _ => AuthorKind::Person,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub cursor: i64,
    pub author: String,
    pub author_kind: AuthorKind,
    pub text: String,
    pub posted_at: String,
}

/// One page of messages after a cursor.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub messages: Vec<Message>,
    /// Pass as `after` to read on: the last cursor returned, or the one given.
    pub cursor: i64,
    /// More messages wait after this page.
    pub has_more: bool,
}

/// A read's cursor: [`FROM_START`] unless given, never below it.
pub fn checked_cursor(after: Option<i64>) -> Result<i64, String> {
    let after = after.unwrap_or(FROM_START);
    if after < FROM_START {
        return Err("after must be -1 or more".to_owned());
    }
    Ok(after)
}

/// The trimmed text, or what to fix.
pub fn checked_text(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("text must not be empty".to_owned());
    }
    let chars = text.chars().count();
    if chars > MESSAGE_MAX_CHARS {
        return Err(format!(
            "text is {chars} characters; at most {MESSAGE_MAX_CHARS} are allowed"
        ));
    }
    Ok(text.to_owned())
}

/// "3 messages (latest from X: …)" or "No new messages."
pub fn page_summary(page: &Page) -> String {
    match page.messages.last() {
        None => "No new messages.".to_owned(),
        Some(last) => format!(
            "{} message{}{}; latest from {}: \"{}\".",
            page.messages.len(),
            if page.messages.len() == 1 { "" } else { "s" },
            if page.has_more { " (more follow)" } else { "" },
            last.author,
            super::preview(&last.text)
        ),
    }
}
