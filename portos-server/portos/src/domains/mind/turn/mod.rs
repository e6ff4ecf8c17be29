//! One Persistent Mind turn: the model is briefed (its recent trajectory,
//! what it may do about issues and tasks), offered the mind catalog, and
//! every call it asks for goes through the registry as `mind` with the
//! live grants, within the turn's budgets. A self-directed wake runs with
//! the thinking preset the Mind requested; every turn sends its local
//! context window to a local model. An ended turn is summarized into the
//! Mind's trajectory; one a stopped process left running is ended at
//! start-up. Turns are stored and readable (`/api/cos/mind/turns`),
//! announced on Socket.IO, and run from the command line with
//! `--mind-turn`.

pub mod briefing;
pub mod budget;
pub mod command;
pub mod config;
pub mod events;
pub mod offer;
pub mod ops;
pub mod preview;
pub mod provider;
pub mod record;
pub mod recovery;
pub mod request_id;
mod routes;
pub mod run;
pub mod store;
pub mod telemetry;
pub mod trajectory;
pub mod tuning;
pub mod wake;

pub use config::{MindModel, ModelOptions};
pub use record::{TurnRecord, TurnState};
