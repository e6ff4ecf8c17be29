// Every mistake of a vocabulary is reported in one compile, under its token.
portos_core::vocabulary! {
    capabilities {
        /// Read the shelf.
        READ_BOOKS = "read_books",
        /// Read the shelf again.
        READ_AGAIN = "read_books",
        WRITE_BOOKS = "writeBooks",
        /// Borrow.
        #[far_away]
        BORROW = "borrow",
    }
    scopes {
        /// Agents.
        #[grants(READ_BOOKS, SHELVE)]
        #[transport(mcp)]
        AGENT = "agent",
        /// People.
        #[transport(http)]
        UI = "ui",
        /// Everyone.
        #[trusted]
        #[signed_in]
        #[transport(mcp)]
        ALL = "all",
        /// The desk.
        #[trusted]
        #[transport(pigeon)]
        DESK = "Front Desk",
    }
}

fn main() {}
