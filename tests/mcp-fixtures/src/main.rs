//! `mcp-fixtures`: the conformance suite's fixture tools on the portos
//! runtime (tests/mcp-conformance/run.sh starts it).

fn main() -> std::process::ExitCode {
    portos_server::cli::main::<mcp_fixtures::Fixtures>()
}
