// A vocabulary names its capabilities and its scopes, once each.
portos_core::vocabulary! {
    capabilities {
        /// Read the shelf.
        READ_BOOKS = "readBooks",
    }
    roles {}
}

fn main() {}
