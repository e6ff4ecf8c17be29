//! Parses the `#[portos_tool(...)]` arguments into raw, spanned values.
//!
//! Only syntax is checked here (known keys, no duplicates, value shapes);
//! vocabulary and cross-field rules live in `check`.

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{LitBool, LitInt, LitStr, Token, bracketed};

use crate::ctxt::Ctxt;

/// The keys `#[portos_tool]` understands, in the order they are documented.
pub const KEYS: &[&str] = &[
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
    "confirmation",
    "open_world",
    "intent_group",
    "suppress_on_form_fill",
];

/// A value with the span of its token, so `check` can point at it.
#[derive(Clone)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

#[derive(Default)]
pub struct ToolArgs {
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
    pub confirmation: Option<Spanned<String>>,
    pub open_world: Option<Spanned<bool>>,
    pub intent_group: Option<Spanned<String>>,
    pub suppress_on_form_fill: Option<Spanned<bool>>,
}

/// Parses the attribute arguments, recording every problem in `cx`.
pub fn parse(cx: &Ctxt, args: TokenStream) -> ToolArgs {
    let mut out = ToolArgs::default();
    let parser = syn::meta::parser(|meta| {
        let Some(ident) = meta.path.get_ident().map(ToString::to_string) else {
            return Err(meta.error(unknown_key_message("this path")));
        };
        let span = meta.path.segments[0].ident.span();
        match ident.as_str() {
            "name" => set(cx, &mut out.name, span, "name", string(&meta)?),
            "description" => set(cx, &mut out.description, span, "description", string(&meta)?),
            "provider_name" => set(cx, &mut out.provider_name, span, "provider_name", string(&meta)?),
            "side_effect" => set(cx, &mut out.side_effect, span, "side_effect", string(&meta)?),
            "confirmation" => set(cx, &mut out.confirmation, span, "confirmation", string(&meta)?),
            "intent_group" => set(cx, &mut out.intent_group, span, "intent_group", string(&meta)?),
            "version" => set(cx, &mut out.version, span, "version", integer(&meta)?),
            "aliases" => set(cx, &mut out.aliases, span, "aliases", list(&meta)?),
            "scopes" => set(cx, &mut out.scopes, span, "scopes", list(&meta)?),
            "capabilities" => set(cx, &mut out.capabilities, span, "capabilities", list(&meta)?),
            "idempotent" => set(cx, &mut out.idempotent, span, "idempotent", flag(&meta, span)?),
            "async" => set(cx, &mut out.is_async, span, "async", flag(&meta, span)?),
            "open_world" => set(cx, &mut out.open_world, span, "open_world", flag(&meta, span)?),
            "suppress_on_form_fill" => set(
                cx,
                &mut out.suppress_on_form_fill,
                span,
                "suppress_on_form_fill",
                flag(&meta, span)?,
            ),
            other => {
                // Skip the value so one unknown key does not hide the next ones.
                if meta.input.peek(Token![=]) {
                    let value = meta.value()?;
                    value.parse::<syn::Expr>()?;
                }
                cx.error_at(span, unknown_key_message(&format!("`{other}`")));
            }
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    out
}

fn unknown_key_message(what: &str) -> String {
    format!(
        "unknown portos_tool key {what}; expected one of: {}",
        KEYS.join(", ")
    )
}

fn set<T>(cx: &Ctxt, slot: &mut Option<Spanned<T>>, span: Span, key: &str, value: Spanned<T>) {
    if slot.is_some() {
        cx.error_at(span, format!("duplicate portos_tool key `{key}`"));
    } else {
        *slot = Some(Spanned {
            value: value.value,
            span: value.span,
        });
    }
}

fn string(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Spanned<String>> {
    let lit: LitStr = meta.value()?.parse()?;
    Ok(Spanned {
        value: lit.value(),
        span: lit.span(),
    })
}

fn integer(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Spanned<u32>> {
    let lit: LitInt = meta.value()?.parse()?;
    Ok(Spanned {
        value: lit.base10_parse()?,
        span: lit.span(),
    })
}

/// `key` alone means `true`; `key = true|false` is explicit.
fn flag(meta: &syn::meta::ParseNestedMeta<'_>, span: Span) -> syn::Result<Spanned<bool>> {
    if meta.input.peek(Token![=]) {
        let lit: LitBool = meta.value()?.parse()?;
        Ok(Spanned {
            value: lit.value,
            span: lit.span,
        })
    } else {
        Ok(Spanned { value: true, span })
    }
}

fn list(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Spanned<Vec<Spanned<String>>>> {
    let input = meta.value()?;
    let content;
    let bracket = bracketed!(content in input);
    let items = parse_strings(&content)?;
    Ok(Spanned {
        value: items
            .into_iter()
            .map(|lit| Spanned {
                value: lit.value(),
                span: lit.span(),
            })
            .collect(),
        span: bracket.span.join(),
    })
}

fn parse_strings(input: ParseStream<'_>) -> syn::Result<Vec<LitStr>> {
    let items = Punctuated::<LitStr, Token![,]>::parse_terminated(input)?;
    Ok(items.into_iter().collect())
}
