//! Helpers more than one domain uses: the contract's limit clamping, the
//! user's local dates, title matching (goals, feeds), the outbound HTTP
//! client, reading a feed or calendar document from a URL or a file, and
//! the source subscriptions feeds and calendar share.

pub mod limits;
pub mod local_date;
pub mod outbound;
pub mod source_fetch;
pub mod subscriptions;
pub mod title_match;
