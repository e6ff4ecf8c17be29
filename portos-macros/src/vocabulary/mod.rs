//! `vocabulary! { ... }`: an application's capabilities and scopes, once.
//! Emits a typed constant per word (`READ_BOOKS: Capability`) and the
//! declaration into portos_core's link-time list, where the registry, the
//! grants objects and the documents read it.
//!
//! Parse (`parse`) → check (here: spelling, duplicates, guards, the
//! capabilities a scope can be granted) → expand. Every mistake is
//! reported in one compile under its own token.

mod parse;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{Attribute, Ident};

use crate::ctxt::Ctxt;
use crate::{doc, krate};
use parse::{Declaration, Word};

/// At most this many capabilities (a grant set is 64 bits).
const MAX_CAPABILITIES: usize = 64;
/// At most this many scopes.
const MAX_SCOPES: usize = 32;

pub(crate) fn vocabulary(input: TokenStream) -> TokenStream {
    let declaration: Declaration = match syn::parse2(input) {
        Ok(declaration) => declaration,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let capabilities = check_capabilities(&cx, &declaration);
    let scopes = check_scopes(&cx, &declaration, &capabilities);
    let context = check_context(&cx, &declaration);
    if let Err(error) = cx.check() {
        return error.to_compile_error();
    }
    expand(&declaration, &capabilities, &scopes, &context)
}

struct ContextWord<'a> {
    word: &'a Word,
    description: String,
    default: bool,
}

fn check_context<'a>(cx: &Ctxt, declaration: &'a Declaration) -> Vec<ContextWord<'a>> {
    if declaration.context.len() > MAX_SCOPES {
        cx.error_spanned_by(
            &declaration.context[MAX_SCOPES].ident,
            format!("a vocabulary has at most {MAX_SCOPES} context scopes"),
        );
    }
    check_names(
        cx,
        &declaration.context,
        "context scope",
        portos_vocabulary::scope_name_problem,
    );
    declaration
        .context
        .iter()
        .map(|word| {
            let mut default = false;
            for attr in non_doc(&word.attrs) {
                if attr.path().is_ident("default") && matches!(attr.meta, syn::Meta::Path(_)) {
                    default = true;
                } else {
                    cx.error_spanned_by(
                        attr,
                        "unknown context attribute: the only one is `#[default]` (an agent reads it until the owner chooses)",
                    );
                }
            }
            ContextWord {
                word,
                description: description(cx, word, "context scope", "what kind of item it is"),
                default,
            }
        })
        .collect()
}

struct CapabilityWord<'a> {
    word: &'a Word,
    description: String,
    open_world: bool,
}

enum Guard {
    /// The constants of what the scope can be granted, in order.
    Grants(Vec<Ident>),
    SignedIn,
    Trusted,
}

struct ScopeWord<'a> {
    word: &'a Word,
    description: String,
    guard: Guard,
    transport: Option<Ident>,
}

fn check_capabilities<'a>(cx: &Ctxt, declaration: &'a Declaration) -> Vec<CapabilityWord<'a>> {
    if !declaration.saw_capabilities {
        cx.error_at(
            declaration.end,
            "a vocabulary needs `capabilities { ... }` (it may be empty)",
        );
    }
    if declaration.capabilities.len() > MAX_CAPABILITIES {
        cx.error_spanned_by(
            &declaration.capabilities[MAX_CAPABILITIES].ident,
            format!("a vocabulary has at most {MAX_CAPABILITIES} capabilities"),
        );
    }
    check_names(
        cx,
        &declaration.capabilities,
        "capability",
        portos_vocabulary::capability_name_problem,
    );
    declaration
        .capabilities
        .iter()
        .map(|word| {
            let mut open_world = false;
            for attr in non_doc(&word.attrs) {
                if attr.path().is_ident("open_world") && matches!(attr.meta, syn::Meta::Path(_)) {
                    open_world = true;
                } else {
                    cx.error_spanned_by(
                        attr,
                        "unknown capability attribute: the only one is `#[open_world]` (holding it means reaching other machines)",
                    );
                }
            }
            CapabilityWord {
                word,
                description: description(cx, word, "capability", "what holding it allows"),
                open_world,
            }
        })
        .collect()
}

fn check_scopes<'a>(
    cx: &Ctxt,
    declaration: &'a Declaration,
    capabilities: &[CapabilityWord<'_>],
) -> Vec<ScopeWord<'a>> {
    if !declaration.saw_scopes {
        cx.error_at(
            declaration.end,
            "a vocabulary needs `scopes { ... }`: who the application's callers speak for",
        );
    }
    if declaration.scopes.len() > MAX_SCOPES {
        cx.error_spanned_by(
            &declaration.scopes[MAX_SCOPES].ident,
            format!("a vocabulary has at most {MAX_SCOPES} scopes"),
        );
    }
    check_names(
        cx,
        &declaration.scopes,
        "scope",
        portos_vocabulary::scope_name_problem,
    );
    let mut transports: Vec<String> = Vec::new();
    declaration
        .scopes
        .iter()
        .map(|word| {
            let mut guard = None;
            let mut transport = None;
            for attr in non_doc(&word.attrs) {
                let path = attr.path();
                let found = if path.is_ident("grants") {
                    grants(cx, attr, capabilities)
                } else if path.is_ident("signed_in") && matches!(attr.meta, syn::Meta::Path(_)) {
                    Some(Guard::SignedIn)
                } else if path.is_ident("trusted") && matches!(attr.meta, syn::Meta::Path(_)) {
                    Some(Guard::Trusted)
                } else if path.is_ident("transport") {
                    transport = parse_transport(cx, attr, &mut transports);
                    continue;
                } else {
                    cx.error_spanned_by(
                        attr,
                        "unknown scope attribute: a scope is `#[grants(...)]`, `#[signed_in]` or `#[trusted]`, and may add `#[transport(http)]` or `#[transport(mcp)]`",
                    );
                    continue;
                };
                if guard.is_some() {
                    cx.error_spanned_by(
                        attr,
                        "a scope has one guard: `#[grants(...)]`, `#[signed_in]` or `#[trusted]`",
                    );
                } else {
                    guard = found;
                }
            }
            let guard = guard.unwrap_or_else(|| {
                cx.error_spanned_by(
                    &word.ident,
                    format!(
                        "say how scope `{}` is guarded: `#[grants(...)]` (it holds capability grants), `#[signed_in]` (a person: writes need a signed-in caller) or `#[trusted]` (an in-process caller the application trusts)",
                        word.name.value()
                    ),
                );
                Guard::Trusted
            });
            ScopeWord {
                word,
                description: description(cx, word, "scope", "who speaks for it"),
                guard,
                transport,
            }
        })
        .collect()
}

/// `#[grants]` (every capability) or `#[grants(A, B)]`.
fn grants(cx: &Ctxt, attr: &Attribute, capabilities: &[CapabilityWord<'_>]) -> Option<Guard> {
    let listed: Vec<Ident> = match &attr.meta {
        syn::Meta::Path(_) => {
            return Some(Guard::Grants(
                capabilities.iter().map(|c| c.word.ident.clone()).collect(),
            ));
        }
        syn::Meta::List(list) => match list
            .parse_args_with(syn::punctuated::Punctuated::<Ident, syn::Token![,]>::parse_terminated)
        {
            Ok(idents) => idents.into_iter().collect(),
            Err(error) => {
                cx.syn_error(error);
                return None;
            }
        },
        syn::Meta::NameValue(_) => {
            cx.error_spanned_by(
                attr,
                "write `#[grants(CAPABILITY, ...)]`, or `#[grants]` for every capability",
            );
            return None;
        }
    };
    let mut seen: Vec<String> = Vec::new();
    for ident in &listed {
        let text = ident.to_string();
        if !capabilities.iter().any(|c| c.word.ident == text) {
            let known: Vec<String> = capabilities
                .iter()
                .map(|c| c.word.ident.to_string())
                .collect();
            cx.error_spanned_by(
                ident,
                format!(
                    "`{text}` is not a capability of this vocabulary; expected one of: {}",
                    known.join(", ")
                ),
            );
        } else if seen.contains(&text) {
            cx.error_spanned_by(ident, format!("`{text}` is listed twice: remove it"));
        }
        seen.push(text);
    }
    Some(Guard::Grants(listed))
}

fn parse_transport(cx: &Ctxt, attr: &Attribute, taken: &mut Vec<String>) -> Option<Ident> {
    let ident: Ident = match attr.parse_args() {
        Ok(ident) => ident,
        Err(_) => {
            cx.error_spanned_by(attr, "write `#[transport(http)]` or `#[transport(mcp)]`");
            return None;
        }
    };
    let text = ident.to_string();
    if text != "http" && text != "mcp" {
        cx.error_spanned_by(
            &ident,
            format!("unknown transport `{text}`; expected `http` or `mcp`"),
        );
        return None;
    }
    if taken.contains(&text) {
        cx.error_spanned_by(
            &ident,
            format!("another scope already speaks for the {text} transport: one scope each"),
        );
        return None;
    }
    taken.push(text);
    Some(ident)
}

fn check_names(cx: &Ctxt, words: &[Word], what: &str, problem: fn(&str) -> Option<String>) {
    for (index, word) in words.iter().enumerate() {
        let name = word.name.value();
        if let Some(problem) = problem(&name) {
            cx.error_spanned_by(
                &word.name,
                format!("invalid {what} name `{name}`: {problem}"),
            );
        }
        if words[..index].iter().any(|w| w.name.value() == name) {
            cx.error_spanned_by(
                &word.name,
                format!("{what} `{name}` is declared twice: remove it"),
            );
        }
    }
}

fn description(cx: &Ctxt, word: &Word, what: &str, say: &str) -> String {
    let text = doc::doc_text(&word.attrs);
    if text.is_empty() {
        cx.error_spanned_by(
            &word.ident,
            format!(
                "{what} `{}` needs a doc comment saying {say}",
                word.name.value()
            ),
        );
    }
    text
}

fn non_doc(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| !attr.path().is_ident("doc"))
}

fn expand(
    declaration: &Declaration,
    capabilities: &[CapabilityWord<'_>],
    scopes: &[ScopeWord<'_>],
    context: &[ContextWord<'_>],
) -> TokenStream {
    let private = krate::private_path(declaration.krate.as_ref());
    let capability_consts = constants(
        capabilities.iter().map(|c| c.word),
        &quote!(#private::Capability),
    );
    let scope_consts = constants(scopes.iter().map(|s| s.word), &quote!(#private::Scope));
    let context_consts = constants(
        context.iter().map(|c| c.word),
        &quote!(#private::ContextScope),
    );
    let context_terms = context.iter().map(|c| {
        let name = &c.word.name;
        let description = &c.description;
        let default = c.default;
        quote! {
            #private::ContextTerm {
                name: #name,
                description: #description,
                default: #default,
            }
        }
    });
    let capability_terms = capabilities.iter().map(|c| {
        let name = &c.word.name;
        let description = &c.description;
        let open_world = c.open_world;
        quote! {
            #private::CapabilityTerm {
                name: #name,
                description: #description,
                open_world: #open_world,
            }
        }
    });
    let scope_terms = scopes.iter().map(|s| {
        let name = &s.word.name;
        let description = &s.description;
        let guard = match &s.guard {
            Guard::Grants(idents) => quote!(#private::Guard::Grants(&[#(#idents),*])),
            Guard::SignedIn => quote!(#private::Guard::SignedIn),
            Guard::Trusted => quote!(#private::Guard::Trusted),
        };
        let transport = match s.transport.as_ref().map(ToString::to_string).as_deref() {
            Some("http") => quote!(::core::option::Option::Some(#private::Transport::Http)),
            Some(_) => quote!(::core::option::Option::Some(#private::Transport::Mcp)),
            None => quote!(::core::option::Option::None),
        };
        quote! {
            #private::ScopeTerm {
                name: #name,
                description: #description,
                guard: #guard,
                transport: #transport,
            }
        }
    });
    let words = crate::words::declared(
        &capabilities
            .iter()
            .map(|c| c.word.name.value())
            .collect::<Vec<_>>(),
        &scopes
            .iter()
            .map(|s| s.word.name.value())
            .collect::<Vec<_>>(),
    );
    quote! {
        #(#capability_consts)*
        #(#scope_consts)*
        #(#context_consts)*
        #words

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #private::register!(VOCABULARIES, __PORTOS_VOCABULARY: #private::Vocabulary = #private::Vocabulary {
                capabilities: &[#(#capability_terms),*],
                scopes: &[#(#scope_terms),*],
                context: &[#(#context_terms),*],
                location: #private::SourceLocation {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    column: ::core::column!(),
                },
            });
        };
    }
}

/// `pub const WORD: Type = Type::declared(index);` for each word, in order,
/// with the word's doc comment, spanned on its name.
fn constants<'a>(words: impl Iterator<Item = &'a Word>, ty: &TokenStream) -> Vec<TokenStream> {
    words
        .enumerate()
        .map(|(index, word)| {
            let ident = &word.ident;
            let docs = word.attrs.iter().filter(|attr| attr.path().is_ident("doc"));
            let index = index_literal(index);
            quote_spanned! {ident.span()=>
                #(#docs)*
                pub const #ident: #ty = #ty::declared(#index);
            }
        })
        .collect()
}

/// A `u8` literal (the count is checked to fit before expansion).
fn index_literal(index: usize) -> syn::LitInt {
    syn::LitInt::new(&format!("{index}u8"), Span::call_site())
}
