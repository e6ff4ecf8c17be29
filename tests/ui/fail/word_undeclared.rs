// A capability or a scope the vocabulary does not declare is a compile
// error under the word, listing the words it does declare.
mod pantry {
    portos_core::vocabulary! {
        capabilities {
            /// See what is in the pantry.
            SEE_PANTRY = "seePantry",
            /// Restock the pantry.
            STOCK_PANTRY = "stockPantry",
        }
        scopes {
            /// The household over HTTP.
            #[signed_in]
            #[transport(http)]
            HOUSEHOLD = "household",
            /// A butler agent over MCP.
            #[grants]
            #[transport(mcp)]
            BUTLER = "butler",
        }
    }
}
portos_core::use_vocabulary!(crate::pantry);

use portos_core::{portos_prompt, portos_resource, portos_tool, AdapterError, PromptMessage};

/// What is on the shelves.
#[portos_tool(
    name = "pantry.list",
    scopes = ["household", "butlr"],
    capabilities = ["seePantri"],
    side_effect = "read",
)]
async fn list() -> Result<Vec<String>, AdapterError> {
    Ok(Vec::new())
}

/// The shopping list.
#[portos_resource(uri = "pantry://shopping", scopes = ["guest"], capabilities = ["seePantry"])]
async fn shopping() -> Result<String, AdapterError> {
    Ok(String::new())
}

/// Plan the week's meals.
#[portos_prompt(scopes = ["butler"], capabilities = ["cook"])]
async fn plan() -> Result<Vec<PromptMessage>, AdapterError> {
    Ok(Vec::new())
}

fn main() {}
