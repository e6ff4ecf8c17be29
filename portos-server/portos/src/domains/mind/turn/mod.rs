//! One Persistent Mind turn: the model is offered the mind catalog, every
//! call it asks for goes through the registry as `mind` with the live
//! grants, within the turn's budgets.

pub mod budget;
pub mod preview;
pub mod provider;
pub mod request_id;
pub mod wake;
