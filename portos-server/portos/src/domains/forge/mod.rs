//! Forge issues (docs/reference.md#forge-issues): which forge and repository a
//! managed app's git remote names, the labels the Persistent Mind files with,
//! the duplicate guard, and the GitHub and GitLab REST clients that list and
//! file issues. The `issues.*` tools put these together.

pub mod client;
pub mod labels;
pub mod remote;

pub use client::{ForgeClient, ForgeError, ForgeSettings, IssueSummary, OpenIssues};
pub use labels::{Category, Effort, IssueLabel, ModelTier, issue_labels, planner_slug, title_key};
pub use remote::{Forge, Repository, Tracker, parse_remote, repository};
