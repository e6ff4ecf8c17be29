//! Processes: which of this machine's processes (or of the services it is
//! told to watch, `--watch-process`) run and which do not. The server
//! supervises nothing; it reads the OS's process table when asked.

pub mod model;
pub mod ops;
mod routes;
pub mod tools;

pub use model::ProcessWatch;
