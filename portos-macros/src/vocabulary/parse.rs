//! The syntax of `vocabulary! { ... }`, into spanned items. Only shape is
//! checked here; names, references and guards are checked in `check`.
//!
//! ```text
//! crate = my_sdk::portos_core;            (optional)
//! capabilities {
//!     /// What holding it allows.
//!     #[open_world]                        (optional)
//!     READ_BOOKS = "readBooks",
//! }
//! scopes {
//!     /// Who speaks for it.
//!     #[grants(READ_BOOKS, ...)]           (or `#[grants]`: every capability;
//!     #[transport(mcp)]                     or `#[signed_in]`, `#[trusted]`)
//!     ASSISTANT = "assistant",
//! }
//! context {                                (optional)
//!     /// What kind of context item.
//!     #[default]                           (optional)
//!     SHELVES = "shelves",
//! }
//! ```

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, LitStr, Token, braced};

/// The whole declaration, as written.
pub(super) struct Declaration {
    pub krate: Option<syn::Path>,
    pub capabilities: Vec<Word>,
    pub scopes: Vec<Word>,
    pub context: Vec<Word>,
    /// Where `capabilities` / `scopes` were missing, to point at.
    pub end: Span,
    pub saw_capabilities: bool,
    pub saw_scopes: bool,
    pub saw_context: bool,
}

/// One `IDENT = "name"` with its attributes.
pub(super) struct Word {
    pub attrs: Vec<Attribute>,
    pub ident: Ident,
    pub name: LitStr,
}

impl Parse for Declaration {
    fn parse(input: ParseStream<'_>) -> syn::Result<Declaration> {
        let mut declaration = Declaration {
            krate: None,
            capabilities: Vec::new(),
            scopes: Vec::new(),
            context: Vec::new(),
            end: Span::call_site(),
            saw_capabilities: false,
            saw_scopes: false,
            saw_context: false,
        };
        if input.peek(Token![crate]) {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            declaration.krate = Some(input.parse()?);
            input.parse::<Token![;]>()?;
        }
        while !input.is_empty() {
            let section: Ident = input.parse()?;
            let content;
            braced!(content in input);
            let words: Punctuated<Word, Token![,]> =
                content.parse_terminated(Word::parse, Token![,])?;
            let (seen, into) = match section.to_string().as_str() {
                "capabilities" => (
                    &mut declaration.saw_capabilities,
                    &mut declaration.capabilities,
                ),
                "scopes" => (&mut declaration.saw_scopes, &mut declaration.scopes),
                "context" => (&mut declaration.saw_context, &mut declaration.context),
                other => {
                    return Err(syn::Error::new(
                        section.span(),
                        format!(
                            "unknown section `{other}`: a vocabulary has `capabilities {{ ... }}`, `scopes {{ ... }}` and, for Agent Tools context, `context {{ ... }}`"
                        ),
                    ));
                }
            };
            if *seen {
                return Err(syn::Error::new(
                    section.span(),
                    format!("`{section}` is declared twice: merge the two lists"),
                ));
            }
            *seen = true;
            into.extend(words);
        }
        declaration.end = input.span();
        Ok(declaration)
    }
}

impl Parse for Word {
    fn parse(input: ParseStream<'_>) -> syn::Result<Word> {
        let attrs = input.call(Attribute::parse_outer)?;
        let ident: Ident = input.parse()?;
        input.parse::<Token![=]>().map_err(|error| {
            syn::Error::new(
                error.span(),
                format!("write `{ident} = \"name\"`: the constant, then its name on the wire"),
            )
        })?;
        let name: LitStr = input.parse()?;
        Ok(Word { attrs, ident, name })
    }
}
