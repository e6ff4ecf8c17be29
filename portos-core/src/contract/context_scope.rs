use super::words::{ContextTerm, words};

super::words::vocabulary_word! {
    /// A context scope of the application's vocabulary: one kind of context
    /// item its Agent Tools context tools serve, which the owner lets an agent
    /// read (`context { ... }` in `portos_core::vocabulary!` declares one
    /// constant per scope). An application without context tools has none.
    ContextScope, ContextTerm, list: context, names: context_names,
    undeclared: "<undeclared context scope>"
}

impl ContextScope {
    /// The ones an agent reads until the owner chooses (`#[default]`).
    pub fn defaults() -> impl Iterator<Item = ContextScope> + Clone {
        ContextScope::all().filter(|scope| scope.term().is_some_and(|term| term.default))
    }
}

/// One of the vocabulary's context scopes' names.
impl schemars::JsonSchema for ContextScope {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ContextScope".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names = &words().context_names;
        if names.is_empty() {
            return schemars::json_schema!({
                "type": "string",
                "description": "The application declares no context scopes: none can be named.",
                "maxLength": 0,
            });
        }
        schemars::json_schema!({
            "type": "string",
            "enum": names,
            "description": "The context scopes, in the contract's order.",
        })
    }
}
