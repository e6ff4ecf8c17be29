// PortOS's capabilities and scopes, which this tool uses.
portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError};
use std::collections::BTreeMap;

/// What most tool crates define once and use everywhere.
type Outcome<T> = Result<T, AdapterError>;

/// Report the time of day, through a `Result` alias.
#[portos_tool(name = "demo.clock", scopes = ["agent"], side_effect = "read")]
async fn clock() -> Outcome<BTreeMap<String, u32>> {
    Ok(BTreeMap::from([("hour".to_owned(), 12)]))
}

/// Report the date, through the full path of `Result`.
#[portos_tool(name = "demo.calendar", scopes = ["agent"], side_effect = "read")]
async fn calendar() -> std::result::Result<BTreeMap<String, String>, std::io::Error> {
    Ok(BTreeMap::from([("date".to_owned(), "today".to_owned())]))
}

fn main() {
    for name in ["demo.clock", "demo.calendar"] {
        let tool = portos_core::linked::tools()
            .find(|tool| tool.name == name)
            .expect("the tool is in the link-time list");
        portos_core::Registry::builder()
            .descriptors([tool])
            .build()
            .expect("the registry accepts the tool");
    }
}
