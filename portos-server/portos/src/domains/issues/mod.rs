//! Forge issues for the Persistent Mind (docs/reference.md#forge-issues):
//! `issues.list` reads a managed app's open GitHub or GitLab issues,
//! `issues.file` files one with the Mind's attribution labels. Both re-check
//! the live `fileIssues` grant and the app roster after inference; the forge
//! plumbing (remotes, labels, the REST clients) is `domains::forge`, the roster
//! `domains::apps`.

pub mod model;
pub mod ops;
pub mod tools;
