//! `issues.list` and `issues.file` through the registry as the Persistent
//! Mind, against local stand-ins of the GitHub and GitLab REST APIs.

mod file;
mod fixture;
mod list;
mod refusals;
