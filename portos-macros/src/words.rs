//! The vocabulary's words, checked by the compiler.
//!
//! `vocabulary!` emits a hidden module, `__portos_vocabulary`, with one trait
//! implementation per declared word; `#[portos_tool]`, `#[portos_resource]`
//! and `#[portos_prompt]` emit one call per word they name, spanned on the
//! word's string. A word the vocabulary does not declare is then a trait
//! bound rustc cannot satisfy, reported under the word with the declared
//! words listed (`#[diagnostic::on_unimplemented]`), instead of a start-up
//! error.
//!
//! A word travels as its bytes packed into four `u128` const parameters
//! (capabilities are at most 64 characters, scopes 32): exact, so two words
//! can never be taken for one another.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::attr::Spanned;

/// Where a crate's words are: its root, which either declares the
/// vocabulary or names it with `portos_core::use_vocabulary!(path)`.
const MODULE: &str = "__portos_vocabulary";

/// The kinds of word a tool attribute names.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Capability,
    Scope,
}

impl Kind {
    /// The check function's name and the trait's, in the hidden module.
    fn names(self) -> (proc_macro2::Ident, proc_macro2::Ident) {
        let (check, trait_name) = match self {
            Kind::Capability => ("capability", "Capability"),
            Kind::Scope => ("scope", "Scope"),
        };
        (
            proc_macro2::Ident::new(check, Span::call_site()),
            proc_macro2::Ident::new(trait_name, Span::call_site()),
        )
    }
}

/// A word's bytes, packed big-endian into four `u128` literals, spanned
/// at `span` (rustc reports an unsatisfied bound at the first one).
fn packed(word: &str, span: Span) -> [TokenStream; 4] {
    let mut bytes = [0u8; 64];
    for (slot, byte) in bytes.iter_mut().zip(word.bytes()) {
        *slot = byte;
    }
    std::array::from_fn(|part| {
        let mut chunk = [0u8; 16];
        chunk.copy_from_slice(&bytes[part * 16..part * 16 + 16]);
        let mut literal = proc_macro2::Literal::u128_suffixed(u128::from_be_bytes(chunk));
        literal.set_span(span);
        quote!(#literal)
    })
}

/// A list of words as an attribute wrote it (`scopes = ["a", "b"]`).
type Listed = Option<Spanned<Vec<Spanned<String>>>>;

/// The checks a tool, resource or prompt attribute emits inside its
/// `const _: () = { ... };` block: one call per named word, each spanned on
/// the word, through one import of the crate's words (a crate with no
/// vocabulary gets one error there, not one per word).
pub(crate) fn checks(scopes: &Listed, capabilities: &Listed) -> TokenStream {
    let mut words: Vec<(Kind, &Spanned<String>)> = Vec::new();
    for (kind, list) in [(Kind::Scope, scopes), (Kind::Capability, capabilities)] {
        words.extend(
            list.iter()
                .flat_map(|list| &list.value)
                .map(|word| (kind, word)),
        );
    }
    if words.is_empty() {
        return TokenStream::new();
    }
    let module = proc_macro2::Ident::new(MODULE, Span::call_site());
    let calls = words.iter().map(|(kind, word)| {
        let (check, _) = kind.names();
        let [a, b, c, d] = packed(&word.value, word.span);
        quote_spanned! {word.span=>
            __portos_words::#check::<#a, #b, #c, #d>();
        }
    });
    quote! {
        use crate::#module as __portos_words;
        #(#calls)*
    }
}

/// The hidden module `vocabulary!` emits beside its constants: the traits
/// the attributes' checks need, implemented once per declared word.
pub(crate) fn declared(capabilities: &[String], scopes: &[String]) -> TokenStream {
    let module = proc_macro2::Ident::new(MODULE, Span::call_site());
    let capability = kind_items(Kind::Capability, "capability", "capabilities", capabilities);
    let scope = kind_items(Kind::Scope, "scope", "scopes", scopes);
    quote! {
        /// The declared words, for the compiler's checks of the tool
        /// attributes (`#[portos_tool]` names them as strings).
        #[doc(hidden)]
        #[allow(missing_docs, unreachable_pub, missing_debug_implementations, clippy::all)]
        pub mod #module {
            /// The type every declared word is implemented for.
            pub enum Words {}
            #capability
            #scope
        }
    }
}

fn kind_items(kind: Kind, one: &str, many: &str, words: &[String]) -> TokenStream {
    let (check, trait_name) = kind.names();
    let listed = if words.is_empty() {
        format!("the vocabulary declares no {many}")
    } else {
        let quoted: Vec<String> = words.iter().map(|word| format!("`{word}`")).collect();
        format!(
            "the vocabulary declares these {many}: {}",
            quoted.join(", ")
        )
    };
    let message = format!("this {one} is not declared in the application's vocabulary");
    let label = format!("not a {one} of the vocabulary");
    let hint =
        format!("declare it in the `{many}` section of `vocabulary!`, or correct the spelling");
    let impls = words.iter().map(|word| {
        let [a, b, c, d] = packed(word, Span::call_site());
        // Not offered as "other types implement": the declared words are
        // listed by name in the note above, not as numbers.
        quote! {
            #[diagnostic::do_not_recommend]
            impl #trait_name<#a, #b, #c, #d> for Words {}
        }
    });
    quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #listed, note = #hint)]
        pub trait #trait_name<const A: u128, const B: u128, const C: u128, const D: u128> {}
        #(#impls)*
        /// Compiles only for a declared word.
        pub const fn #check<const A: u128, const B: u128, const C: u128, const D: u128>()
        where
            Words: #trait_name<A, B, C, D>,
        {
        }
    }
}

#[cfg(test)]
mod tests {
    use super::packed;

    #[test]
    fn words_pack_exactly_and_apart() {
        let pack = |word: &str| -> Vec<String> {
            packed(word, proc_macro2::Span::call_site())
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        let a = pack("readPortos");
        let b = pack("readPortoz");
        assert_ne!(a, b);
        assert_eq!(a[1], "0u128");
        let long = "a".repeat(64);
        assert!(pack(&long).iter().all(|part| part != "0u128"));
    }
}
