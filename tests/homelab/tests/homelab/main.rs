//! The homelab server as a user meets it: the real `homelab` binary on an
//! ephemeral loopback port — its catalog in every scope and format, its
//! documents, its tool calls over HTTP, and its store — in one test binary.

mod support;

mod catalog;
mod cluster;
mod documents;
mod http;
mod in_process;
mod jobs;
mod remote;
mod telemetry;
