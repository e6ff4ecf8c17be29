//! The eidoverse (docs/reference.md#tool-families): a local world kept in the
//! store — identity, setup, presence, entities and a chat log — and guest
//! travel to peer worlds, which are other PortOS instances reached over HTTP.
//!
//! One file per job. The model: `world` (identity, setup, status), `entities`,
//! `chat`, `peers`, `protocol` (the guest wire shapes both sides use). The
//! operations: `ops` (status, chat, saying — shared by tools and routes),
//! `op_args` + `augment` (construction), `projection` (PortOS resources
//! mirrored in), `guests` (the host side of travel), `travel` (the guest
//! side) over `peer_client` (HTTP to peers). `store` holds the tables and
//! every statement; `tools`, `routes` and `guest_routes` are the thin
//! entries.

pub mod augment;
pub mod chat;
pub mod entities;
mod guest_routes;
pub mod guests;
pub mod op_args;
pub mod ops;
pub mod peer_client;
pub mod peers;
pub mod projection;
pub mod protocol;
mod routes;
pub mod store;
mod tools;
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
