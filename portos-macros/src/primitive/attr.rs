//! Parses `#[portos_resource(...)]` and `#[portos_prompt(...)]`: syntax
//! only (known keys, each once, value shapes); `check` applies the rules.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::Parser;

use crate::attr::{Spanned, list, skip_value, string};
use crate::ctxt::Ctxt;

/// Which attribute is parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Which {
    Resource,
    Prompt,
}

impl Which {
    pub(super) fn attr(self) -> &'static str {
        match self {
            Which::Resource => "portos_resource",
            Which::Prompt => "portos_prompt",
        }
    }

    /// The keys it understands, in the order they are documented.
    pub(super) fn keys(self) -> &'static [&'static str] {
        match self {
            Which::Resource => &[
                "uri",
                "uri_template",
                "name",
                "title",
                "description",
                "mime_type",
                "scopes",
                "capabilities",
                "complete",
                "crate",
            ],
            Which::Prompt => &[
                "name",
                "title",
                "description",
                "scopes",
                "capabilities",
                "complete",
                "crate",
            ],
        }
    }
}

/// `complete(argument = path::to::function)`: one entry.
pub(super) struct CompleteEntry {
    pub argument: Spanned<String>,
    pub function: syn::Path,
}

#[derive(Default)]
pub(super) struct PrimitiveArgs {
    pub uri: Option<Spanned<String>>,
    pub uri_template: Option<Spanned<String>>,
    pub name: Option<Spanned<String>>,
    pub title: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub mime_type: Option<Spanned<String>>,
    pub scopes: Option<Spanned<Vec<Spanned<String>>>>,
    pub capabilities: Option<Spanned<Vec<Spanned<String>>>>,
    pub complete: Vec<CompleteEntry>,
    pub krate: Option<Spanned<syn::Path>>,
    pub malformed: Vec<String>,
}

impl PrimitiveArgs {
    /// Whether some key's value was malformed (already reported), so the
    /// rules about missing keys stay quiet.
    pub(super) fn is_malformed(&self) -> bool {
        !self.malformed.is_empty()
    }
}

pub(super) fn parse(cx: &Ctxt, which: Which, args: TokenStream) -> PrimitiveArgs {
    let mut out = PrimitiveArgs::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta.path.to_token_stream().to_string().replace(' ', "");
        if !which.keys().contains(&key.as_str()) {
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "unknown {} key `{key}`; expected one of: {}",
                    which.attr(),
                    which.keys().join(", ")
                ),
            );
            return skip_value(meta.input);
        }
        if let Err(error) = parse_key(cx, which, &mut out, &key, &meta) {
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
    which: Which,
    out: &mut PrimitiveArgs,
    key: &str,
    meta: &syn::meta::ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let span = meta.path.segments[0].ident.span();
    let set = |slot: &mut Option<Spanned<String>>, value: Spanned<String>| {
        put(cx, which, slot, span, key, value);
    };
    match key {
        "uri" => set(&mut out.uri, string(meta, key)?),
        "uri_template" => set(&mut out.uri_template, string(meta, key)?),
        "name" => set(&mut out.name, string(meta, key)?),
        "title" => set(&mut out.title, string(meta, key)?),
        "description" => set(&mut out.description, string(meta, key)?),
        "mime_type" => set(&mut out.mime_type, string(meta, key)?),
        "scopes" => put(cx, which, &mut out.scopes, span, key, list(meta, key)?),
        "capabilities" => put(cx, which, &mut out.capabilities, span, key, list(meta, key)?),
        "complete" => meta.parse_nested_meta(|inner| {
            let argument = inner.path.to_token_stream().to_string();
            let span = inner.path.segments[0].ident.span();
            let function: syn::Path = inner.value()?.parse().map_err(|error| {
                syn::Error::new(
                    error.span(),
                    "`complete` takes `argument = path::to::function`: write `complete(city = suggest_cities)`",
                )
            })?;
            out.complete.push(CompleteEntry {
                argument: Spanned {
                    value: argument,
                    span,
                },
                function,
            });
            Ok(())
        })?,
        _ => {
            // "crate", the only key left.
            let path = crate::krate::parse(meta)?;
            put(cx, which, &mut out.krate, span, key, Spanned { value: path, span });
        }
    }
    Ok(())
}

fn put<T>(
    cx: &Ctxt,
    which: Which,
    slot: &mut Option<Spanned<T>>,
    span: Span,
    key: &str,
    value: Spanned<T>,
) {
    if slot.is_some() {
        cx.error_at(
            span,
            format!("duplicate {} key `{key}`: give each key once", which.attr()),
        );
    } else {
        *slot = Some(value);
    }
}
