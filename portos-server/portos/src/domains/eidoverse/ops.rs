//! The world operations the tools and the owner's routes both perform,
//! each written once: the status, reading the chat, and saying something
//! (as the Chief of Staff's presence, or as the owner).

use super::chat::{AuthorKind, Message, OWNER_NAME, Page, checked_text};
use super::entities::Entity;
use super::store::{chat, entities, world};
use super::world::Status;
use crate::store::{Store, StoreError};

/// The world's status.
pub async fn status(store: &Store) -> Result<Status, StoreError> {
    store
        .run(|connection| {
            Ok(Status::of(
                world::load(connection)?,
                world::counts(connection)?,
            ))
        })
        .await
}

/// The world's status and its first `limit` entities, oldest first.
pub async fn view(store: &Store, limit: i64) -> Result<(Status, Vec<Entity>), StoreError> {
    store
        .run(move |connection| {
            Ok((
                Status::of(world::load(connection)?, world::counts(connection)?),
                entities::list(connection, limit)?,
            ))
        })
        .await
}

/// The chat after cursor `after` (see [`super::chat::checked_cursor`]).
pub async fn read_chat(store: &Store, after: i64) -> Result<Page, StoreError> {
    store
        .run(move |connection| chat::page(connection, after))
        .await
}

/// Who says something in the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speaker {
    /// The Chief of Staff's presence (whose last-seen time follows).
    Presence,
    /// The owner, through the REST route.
    Owner,
}

/// Why a line was not said.
#[derive(Debug)]
pub enum SayError {
    /// The text is empty or too long; what to fix.
    Invalid(String),
    Store(StoreError),
}

/// Says `text` (trimmed, 1..2000 characters) as `speaker`. The message is
/// stored, and its cursor known, before this returns: the world's
/// acknowledgement is the committed row.
pub async fn say(store: &Store, speaker: Speaker, text: &str) -> Result<Message, SayError> {
    let text = checked_text(text).map_err(SayError::Invalid)?;
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            let message = match speaker {
                Speaker::Presence => {
                    let presence = world::load(&transaction)?.presence.name;
                    let message =
                        chat::post(&transaction, &presence, AuthorKind::Cos, None, &text)?;
                    world::mark_presence_seen(&transaction, &message.posted_at)?;
                    message
                }
                Speaker::Owner => {
                    chat::post(&transaction, OWNER_NAME, AuthorKind::Person, None, &text)?
                }
            };
            transaction.commit()?;
            Ok(message)
        })
        .await
        .map_err(SayError::Store)
}
