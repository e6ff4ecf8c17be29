//! User actions: the `user-actions.query` tool and `GET /api/user-actions`,
//! which read what the user, the mind, schedules and the system changed.
//! The ledger itself (its table and its writes) belongs to the runtime.

pub mod model;
pub mod ops;
mod routes;
pub mod tools;
