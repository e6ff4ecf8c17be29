//! One Persistent Mind turn: the model is offered the mind catalog, every
//! call it asks for goes through the registry as `mind` with the live
//! grants, within the turn's budgets. Turns are stored and readable
//! (`/api/cos/mind/turns`), announced on Socket.IO, and run from the
//! command line with `--mind-turn`.

pub mod budget;
pub mod command;
pub mod config;
pub mod events;
pub mod offer;
pub mod ops;
pub mod preview;
pub mod provider;
pub mod record;
pub mod request_id;
mod routes;
pub mod run;
pub mod store;
pub mod wake;

pub use config::{MindModel, ModelOptions};
pub use record::{TurnRecord, TurnState};
