//! The Persistent Mind's operations, shared by its tools and its routes.
//! A write by the Mind re-reads its grant from the store in the same
//! transaction as the write, so a grant revoked during a turn stops it;
//! every refusal is decided before anything is written.

pub mod local_context;
pub mod memory;
pub mod thinking;

/// The time a row records: RFC 3339, UTC.
fn stamp(at: jiff::Timestamp) -> String {
    at.to_string()
}
