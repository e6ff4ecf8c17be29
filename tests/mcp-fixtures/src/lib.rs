//! The official MCP conformance suite's fixtures, declared on the portos
//! runtime the way any application declares its own: the tools the
//! scenarios call by name (`greet`, `slow_compute`, `failing_job`,
//! `confirm_delete` for the tasks extension; `test_simple_text`,
//! `test_image_content`, … for content), the resources
//! (`test://static-text`, `test://static-binary`, the template
//! `test://template/{id}/data`) and the prompts (`test_simple_prompt`, …).
//! Nothing here is special-cased by the runtime, and nothing here is part
//! of PortOS.

mod asking;
mod changes;
mod content;
mod headers;
mod media;
mod prompts;
mod reporting;
mod resources;
mod tools;
mod written_schema;

// The fixtures' own words: what the suite's client may be granted.
portos_core::vocabulary! {
    capabilities {
        /// Call the fixtures that change nothing.
        READ_FIXTURES = "readFixtures",
        /// Call the fixture that deletes (after a confirmation).
        WRITE_FIXTURES = "writeFixtures",
    }
    scopes {
        /// The conformance suite's MCP client, with the grants of the
        /// Agent Tools settings.
        #[grants]
        #[transport(mcp)]
        CLIENT = "client",
        /// A person over HTTP (confirming a parked job).
        #[signed_in]
        #[transport(http)]
        USER = "user",
    }
}

use portos_server::cli::Application;
use portos_server::{Config, ServerBuilder};

/// No flags of its own beside the runtime's.
#[derive(Debug, Default, clap::Args)]
pub struct Flags {}

/// No keys of its own in the TOML file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileKeys {}

/// The `mcp-fixtures` command line.
#[derive(Debug)]
pub struct Fixtures;

impl Application for Fixtures {
    type Flags = Flags;
    type FileKeys = FileKeys;

    const COMMAND: &'static str = "mcp-fixtures";
    const ABOUT: &'static str =
        "The MCP conformance suite's fixture tools on the portos runtime (tests only)";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");

    fn builder(config: Config, _: &Flags, _: FileKeys) -> Result<ServerBuilder, String> {
        Ok(ServerBuilder::new(
            "MCP fixtures",
            env!("CARGO_PKG_VERSION"),
            config,
        ))
    }
}
