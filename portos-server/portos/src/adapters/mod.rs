//! The semantic adapters, one file per tool family. Each is a
//! `#[portos_tool]`; nothing else registers them.

pub mod calendar;
pub mod cos;
pub mod eidoverse;
pub mod feeds;
