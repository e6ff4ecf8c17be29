//! The eidoverse family (BEHAVIOUR §2.7): a local world kept in the store —
//! identity, setup, presence, entities and a chat log — and guest travel to
//! peer worlds, which are other PortOS instances reached over HTTP.
//!
//! One file per job: `world` (the world row, status), `entities` (stored
//! entities), `op_args` + `augment` (construction), `projection` (PortOS
//! resources mirrored in), `chat` (the log, say, chat), `peers` (configured
//! peers), `protocol` (the guest wire shapes), `guests` (the host side),
//! `peer_client` (HTTP to peers) and `travel` (the guest-side tools).

pub mod augment;
pub mod chat;
pub mod entities;
pub mod guests;
pub mod op_args;
pub mod peer_client;
pub mod peers;
pub mod projection;
pub mod protocol;
pub mod travel;
pub mod world;

const PREVIEW_CHARS: usize = 60;

/// The first 60 characters, with an ellipsis when cut.
pub(crate) fn preview(text: &str) -> String {
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_owned(),
    }
}
