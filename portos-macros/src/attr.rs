//! Parses the `#[portos_tool(...)]` arguments into raw, spanned values.
//!
//! Only syntax is checked here (known keys, no duplicates, value shapes);
//! vocabulary and cross-field rules live in `check`.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{LitBool, LitInt, LitStr, Token, bracketed};

use crate::ctxt::Ctxt;

/// The keys `#[portos_tool]` understands, in the order they are documented.
pub(crate) const KEYS: &[&str] = &[
    "name",
    "version",
    "description",
    "provider_name",
    "aliases",
    "scopes",
    "capabilities",
    "side_effect",
    "idempotent",
    "async",
    "long_running",
    "confirmation",
    "open_world",
    "intent_group",
    "suppress_on_form_fill",
    "not_strict",
    "unguarded",
    "requires_client",
    "ask_first",
    "crate",
];

/// A value with the span of its token, so `check` can point at it.
#[derive(Clone)]
pub(crate) struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

#[derive(Default)]
pub(crate) struct ToolArgs {
    pub name: Option<Spanned<String>>,
    pub version: Option<Spanned<u32>>,
    pub description: Option<Spanned<String>>,
    pub provider_name: Option<Spanned<String>>,
    pub aliases: Option<Spanned<Vec<Spanned<String>>>>,
    pub scopes: Option<Spanned<Vec<Spanned<String>>>>,
    pub capabilities: Option<Spanned<Vec<Spanned<String>>>>,
    pub side_effect: Option<Spanned<String>>,
    pub idempotent: Option<Spanned<bool>>,
    pub is_async: Option<Spanned<bool>>,
    /// `long_running = true`: calls answer with a durable job.
    pub long_running: Option<Spanned<bool>>,
    pub confirmation: Option<Spanned<String>>,
    pub open_world: Option<Spanned<bool>>,
    pub intent_group: Option<Spanned<String>>,
    pub suppress_on_form_fill: Option<Spanned<bool>>,
    /// `not_strict = "why"`: offered unconstrained in the strict formats.
    pub not_strict: Option<Spanned<String>>,
    /// `unguarded = "why"`: a write that requires no capability.
    pub unguarded: Option<Spanned<String>>,
    /// `requires_client = ["sampling"]`: what the caller must be able to
    /// answer.
    pub requires_client: Option<Spanned<Vec<Spanned<String>>>>,
    /// `ask_first = path::to::function`: a long-running tool's questions,
    /// asked in the call before its job begins.
    pub ask_first: Option<Spanned<syn::Path>>,
    /// `crate = path`: where portos-core is reached from the user's crate.
    pub krate: Option<Spanned<syn::Path>>,
    /// Keys that were given with a value of the wrong shape (already
    /// reported), so `check` does not report them missing as well.
    pub malformed: Vec<String>,
}

impl ToolArgs {
    pub(crate) fn is_malformed(&self, key: &str) -> bool {
        self.malformed.iter().any(|k| k == key)
    }
}

/// Parses the attribute arguments, recording every problem in `cx`.
pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> ToolArgs {
    let mut out = ToolArgs::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta.path.to_token_stream().to_string().replace(' ', "");
        if let Err(error) = parse_key(cx, &mut out, &key, &meta) {
            // Report a malformed value and go on with the next key, so one
            // typo neither hides the keys after it nor makes this key
            // "missing".
            cx.syn_error(error);
            out.malformed.push(key);
            skip_value(meta.input)?;
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    out
}

fn parse_key(
    cx: &Ctxt,
    out: &mut ToolArgs,
    key: &str,
    meta: &syn::meta::ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let span = meta.path.segments[0].ident.span();
    match key {
        "name" => set(cx, &mut out.name, span, key, string(meta, key)?),
        "description" => set(cx, &mut out.description, span, key, string(meta, key)?),
        "provider_name" => set(cx, &mut out.provider_name, span, key, string(meta, key)?),
        "side_effect" => set(cx, &mut out.side_effect, span, key, string(meta, key)?),
        "confirmation" => set(cx, &mut out.confirmation, span, key, string(meta, key)?),
        "intent_group" => set(cx, &mut out.intent_group, span, key, string(meta, key)?),
        "not_strict" => set(cx, &mut out.not_strict, span, key, string(meta, key)?),
        "unguarded" => set(cx, &mut out.unguarded, span, key, string(meta, key)?),
        "version" => set(cx, &mut out.version, span, key, integer(meta, key)?),
        "aliases" => set(cx, &mut out.aliases, span, key, list(meta, key)?),
        "scopes" => set(cx, &mut out.scopes, span, key, list(meta, key)?),
        "capabilities" => set(cx, &mut out.capabilities, span, key, list(meta, key)?),
        "requires_client" => set(cx, &mut out.requires_client, span, key, list(meta, key)?),
        // The key of earlier releases: say where state is named now.
        "state" => {
            cx.error_spanned_by(
                &meta.path,
                "`state = [...]` is gone: take each piece of server state as a parameter of the adapter, e.g. `store: Shared<Store>` (`portos_core::Shared`)",
            );
            skip_value(meta.input)?;
        }
        "idempotent" => set(cx, &mut out.idempotent, span, key, flag(meta, key, span)?),
        "async" => set(cx, &mut out.is_async, span, key, flag(meta, key, span)?),
        "long_running" => set(cx, &mut out.long_running, span, key, flag(meta, key, span)?),
        "open_world" => set(cx, &mut out.open_world, span, key, flag(meta, key, span)?),
        "ask_first" => {
            let path: syn::Path = meta.value()?.parse().map_err(|_| {
                syn::Error::new(
                    span,
                    "`ask_first` takes a function: write `ask_first = ask_for_name`",
                )
            })?;
            set(
                cx,
                &mut out.ask_first,
                span,
                key,
                Spanned { value: path, span },
            );
        }
        "crate" => {
            let path = crate::krate::parse(meta)?;
            set(cx, &mut out.krate, span, key, Spanned { value: path, span });
        }
        "suppress_on_form_fill" => set(
            cx,
            &mut out.suppress_on_form_fill,
            span,
            key,
            flag(meta, key, span)?,
        ),
        _ => {
            cx.error_spanned_by(&meta.path, unknown_key_message(key));
            // Skip the value so one unknown key does not hide the next ones.
            skip_value(meta.input)?;
        }
    }
    Ok(())
}

/// Skips what is left of a value, up to the comma before the next key.
pub(crate) fn skip_value(input: ParseStream<'_>) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

fn unknown_key_message(key: &str) -> String {
    format!(
        "unknown portos_tool key `{key}`; expected one of: {}",
        KEYS.join(", ")
    )
}

fn set<T>(cx: &Ctxt, slot: &mut Option<Spanned<T>>, span: Span, key: &str, value: Spanned<T>) {
    if slot.is_some() {
        cx.error_at(
            span,
            format!("duplicate portos_tool key `{key}`: give each key once"),
        );
    } else {
        *slot = Some(value);
    }
}

/// Replaces syn's "expected ..." with what this key takes, at the same token.
fn shape_error(error: &syn::Error, expected: String) -> syn::Error {
    syn::Error::new(error.span(), expected)
}

pub(crate) fn string(
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<Spanned<String>> {
    let lit: LitStr = meta
        .value()
        .and_then(|value| value.parse())
        .map_err(|error| {
            shape_error(
                &error,
                format!("`{key}` takes a string: write `{key} = \"...\"`"),
            )
        })?;
    Ok(Spanned {
        value: lit.value(),
        span: lit.span(),
    })
}

fn integer(meta: &syn::meta::ParseNestedMeta<'_>, key: &str) -> syn::Result<Spanned<u32>> {
    let parse = || -> syn::Result<Spanned<u32>> {
        let lit: LitInt = meta.value()?.parse()?;
        Ok(Spanned {
            value: lit.base10_parse()?,
            span: lit.span(),
        })
    };
    parse().map_err(|error| {
        shape_error(
            &error,
            format!("`{key}` takes an integer: write `{key} = 1`"),
        )
    })
}

/// `key` alone means `true`; `key = true|false` is explicit.
fn flag(
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
    span: Span,
) -> syn::Result<Spanned<bool>> {
    if !meta.input.peek(Token![=]) {
        return Ok(Spanned { value: true, span });
    }
    let lit: LitBool = meta
        .value()
        .and_then(|value| value.parse())
        .map_err(|error| {
            shape_error(
                &error,
                format!("`{key}` takes `true` or `false`: write `{key} = false`, or `{key}` alone for true"),
            )
        })?;
    Ok(Spanned {
        value: lit.value,
        span: lit.span,
    })
}

pub(crate) fn list(
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<Spanned<Vec<Spanned<String>>>> {
    let parse = || -> syn::Result<Spanned<Vec<Spanned<String>>>> {
        let input = meta.value()?;
        let content;
        let bracket = bracketed!(content in input);
        // Consume the whole list even when an item is wrong, so syn does not
        // add an "unexpected token" error of its own.
        let items = parse_strings(&content);
        skip_all(&content)?;
        Ok(Spanned {
            value: items?
                .into_iter()
                .map(|lit| Spanned {
                    value: lit.value(),
                    span: lit.span(),
                })
                .collect(),
            span: bracket.span.join(),
        })
    };
    parse().map_err(|error| {
        shape_error(
            &error,
            format!("`{key}` takes a list of strings: write `{key} = [\"...\", \"...\"]`"),
        )
    })
}

fn parse_strings(input: ParseStream<'_>) -> syn::Result<Vec<LitStr>> {
    let items = Punctuated::<LitStr, Token![,]>::parse_terminated(input)?;
    Ok(items.into_iter().collect())
}

fn skip_all(input: ParseStream<'_>) -> syn::Result<()> {
    while !input.is_empty() {
        input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}
