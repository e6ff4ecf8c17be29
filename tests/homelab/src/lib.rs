//! Homelab: a second, different server on the portos runtime, and the worked
//! example of docs/build-your-own-server.md. It keeps a home lab's hosts in
//! its own table and reports this machine's uptime, with six tools of its
//! own (`lab.hosts.list`, `lab.hosts.add`, `lab.hosts.remove`, `lab.uptime`,
//! and two long-running ones that run as jobs, `lab.hosts.probe` and
//! `lab.hosts.retire`; `lab.hosts.audit` reports its progress), MCP
//! resources and a prompt (`lab://hosts`, `lab://hosts/{name}`,
//! `lab.triage`),
//! its own typed state ([`LabConfig`], from `--site-name`), one REST route
//! (`GET /api/lab/hosts`) and one Socket.IO event (`lab:host-added`).
//!
//! It depends on `portos-core` and `portos-server` only: none of PortOS's
//! domains, tools, routes or tables are linked into `homelab`.

pub mod config;
pub mod events;
pub mod hosts;
mod offers;
mod routes;
mod sweep;
mod tools;
pub mod uptime;

pub use config::{FileKeys, Flags, LabConfig};

// The lab's own policy words: what its tools require and who calls them.
portos_core::vocabulary! {
    capabilities {
        /// See the lab's hosts and this machine's uptime.
        READ_LAB = "readLab",
        /// Add, remove, probe-and-retire the lab's hosts.
        WRITE_LAB = "writeLab",
    }
    scopes {
        /// Coding agents over MCP, with the grants of the Agent Tools
        /// settings (all off by default).
        #[grants]
        #[transport(mcp)]
        ASSISTANT = "assistant",
        /// The lab's operators over HTTP: reads are open, writes need a
        /// signed-in session.
        #[signed_in]
        #[transport(http)]
        OPERATOR = "operator",
        /// The status panel on the rack, wired in process and trusted.
        #[trusted]
        PANEL = "panel",
    }
}

use portos_server::cli::Application;
use portos_server::{Config, ServerBuilder};

/// The product name in documents and on Agent Tools MCP.
pub const NAME: &str = "Homelab";

/// The `homelab` command line.
#[derive(Debug)]
pub struct Homelab;

impl Application for Homelab {
    type Flags = Flags;
    type FileKeys = FileKeys;

    const COMMAND: &'static str = "homelab";
    const ABOUT: &'static str = "Homelab: a home lab's hosts and this machine's uptime as governed agent tools over HTTP and MCP";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");

    fn builder(config: Config, flags: &Flags, file: FileKeys) -> Result<ServerBuilder, String> {
        let lab = LabConfig::resolve(flags, file)?;
        // The `lab` table comes in through `store_schema!` (hosts.rs); the
        // state is what tools and routes take as `Shared<LabConfig>`.
        Ok(ServerBuilder::new(NAME, env!("CARGO_PKG_VERSION"), config).state(lab))
    }
}
