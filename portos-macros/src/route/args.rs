//! Parses and checks the `#[portos_route(...)]` arguments.

use proc_macro2::Span;
use quote::ToTokens;
use syn::parse::Parser;
use syn::{LitStr, Token, Type};

use crate::attr::Spanned;
use crate::ctxt::Ctxt;
use crate::names;

pub(super) const KEYS: &[&str] = &[
    "method",
    "path",
    "mount",
    "summary",
    "access",
    "side_effect",
    "tool",
    "replaceable",
    "crate",
    "server",
];

/// Keys of older releases whose facts now come from the handler's types,
/// with where each now comes from.
const DERIVED_KEYS: &[(&str, &str)] = &[
    (
        "query",
        "the query schema comes from the handler's `Query<T>` parameter",
    ),
    (
        "request",
        "the request body schema comes from the handler's `Body<T>` parameter",
    ),
    (
        "response",
        "the response schema comes from the handler's return type (`Json<T>`, `Created<T>`, …)",
    ),
    (
        "status",
        "the success status comes from the handler's return type (`Created<T>` is 201, `NoContent` 204)",
    ),
    (
        "errors",
        "the declared failures come from the extractors and the handler's error type (`#[derive(RouteErrors)]`)",
    ),
];

/// The keys of `tool(...)`, the `x-portos-tool` annotation
/// (docs/reference.md#openapi).
pub(super) const TOOL_KEYS: &[&str] = &["name", "privacy", "side_effect", "async"];

#[derive(Default)]
pub(super) struct RouteArgs {
    pub method: Option<Spanned<String>>,
    pub path: Option<Spanned<String>>,
    /// `mount = "tools"`: the path is under the application's prefix of
    /// that name.
    pub mount: Option<Spanned<String>>,
    pub summary: Option<Spanned<String>>,
    pub access: Option<Spanned<String>>,
    pub side_effect: Option<Spanned<String>>,
    pub tool: Option<ToolArg>,
    /// `replaceable`: a default another declaration of the same method and
    /// path replaces.
    pub replaceable: bool,
    /// `crate = path`: where portos-core is reached from the user's crate.
    pub krate: Option<syn::Path>,
    /// `server = path`: where portos-server is reached from it.
    pub server: Option<syn::Path>,
}

/// `tool(name = "clock.now", privacy = "internal", side_effect = "read", async)`:
/// the operation is also an HTTP tool, listed in tools.min.json.
pub(super) struct ToolArg {
    pub span: Span,
    pub name: Option<Spanned<String>>,
    pub privacy: Option<Spanned<String>>,
    pub side_effect: Option<Spanned<String>>,
    pub is_async: bool,
}

pub(super) fn parse(cx: &Ctxt, args: proc_macro2::TokenStream) -> RouteArgs {
    let mut out = RouteArgs::default();
    let mut seen: Vec<String> = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let key = meta.path.to_token_stream().to_string().replace(' ', "");
        let span = meta
            .path
            .segments
            .first()
            .map_or_else(Span::call_site, |s| s.ident.span());
        if seen.contains(&key) {
            cx.error_at(
                span,
                format!("duplicate portos_route key `{key}`: remove it"),
            );
        }
        seen.push(key.clone());
        match key.as_str() {
            "method" => out.method = Some(string(&meta)?),
            "path" => out.path = Some(string(&meta)?),
            "mount" => out.mount = Some(string(&meta)?),
            "summary" => out.summary = Some(string(&meta)?),
            "access" => out.access = Some(string(&meta)?),
            "side_effect" => out.side_effect = Some(string(&meta)?),
            "tool" => out.tool = tool(cx, &meta, span)?,
            "replaceable" => {
                if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                    cx.error_at(span, "`replaceable` is a flag: write it without a value");
                    meta.value()?.parse::<syn::Expr>()?;
                }
                out.replaceable = true;
            }
            "crate" => out.krate = crate::krate::parse_or_skip(cx, &meta)?,
            "server" => out.server = crate::krate::parse_or_skip(cx, &meta)?,
            other => {
                if meta.input.peek(Token![=]) {
                    // The old schema keys took a type, which is not always an expression.
                    if matches!(other, "query" | "request" | "response") {
                        meta.value()?.parse::<Type>()?;
                    } else {
                        meta.value()?.parse::<syn::Expr>()?;
                    }
                }
                let message = match DERIVED_KEYS.iter().find(|(key, _)| *key == other) {
                    Some((_, source)) => format!("`{other}` is not declared any more: {source}"),
                    None => format!(
                        "unknown portos_route key `{other}`; expected one of: {}",
                        KEYS.join(", ")
                    ),
                };
                cx.error_at(span, message);
            }
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    out
}

fn tool(
    cx: &Ctxt,
    meta: &syn::meta::ParseNestedMeta<'_>,
    span: Span,
) -> syn::Result<Option<ToolArg>> {
    let mut out = ToolArg {
        span,
        name: None,
        privacy: None,
        side_effect: None,
        is_async: false,
    };
    if !meta.input.peek(syn::token::Paren) {
        cx.error_at(
            span,
            "`tool` takes a list: `tool(name = \"clock.now\", privacy = \"internal\", side_effect = \"read\")`",
        );
        if meta.input.peek(Token![=]) {
            meta.value()?.parse::<syn::Expr>()?;
        }
        // One error is enough: nothing inside can be checked.
        return Ok(None);
    }
    meta.parse_nested_meta(|inner| {
        let key = inner.path.to_token_stream().to_string();
        let key_span = inner
            .path
            .segments
            .first()
            .map_or_else(Span::call_site, |s| s.ident.span());
        match key.as_str() {
            "name" => out.name = Some(string(&inner)?),
            "privacy" => out.privacy = Some(string(&inner)?),
            "side_effect" => out.side_effect = Some(string(&inner)?),
            "async" => out.is_async = true,
            other => {
                if inner.input.peek(Token![=]) {
                    inner.value()?.parse::<syn::Expr>()?;
                }
                cx.error_at(
                    key_span,
                    format!(
                        "unknown `tool` key `{other}`; expected one of: {}",
                        TOOL_KEYS.join(", ")
                    ),
                );
            }
        }
        Ok(())
    })?;
    Ok(Some(out))
}

fn string(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Spanned<String>> {
    let lit: LitStr = meta.value()?.parse()?;
    Ok(Spanned {
        value: lit.value(),
        span: lit.span(),
    })
}

/// A declared failure: a 3xx–5xx status and a SCREAMING_SNAKE_CASE code.
pub(super) fn check_error(cx: &Ctxt, status: u16, status_span: Span, code: &LitStr) {
    if !(300..=599).contains(&status) {
        cx.error_at(status_span, "an error status must be between 300 and 599");
    }
    let text = code.value();
    if text.is_empty()
        || !text
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    {
        cx.error_at(
            code.span(),
            "an error code is SCREAMING_SNAKE_CASE, e.g. \"VALIDATION_ERROR\"",
        );
    }
}

/// Cross-field and vocabulary rules; returns false when anything is wrong.
pub(super) fn check(cx: &Ctxt, args: &RouteArgs, fn_span: Span) {
    match &args.method {
        Some(method) if names::find(names::HTTP_METHODS, &method.value).is_none() => cx.error_at(
            method.span,
            format!(
                "unknown method `{}`; expected one of: {}",
                method.value,
                names::names(names::HTTP_METHODS).join(", ")
            ),
        ),
        Some(_) => {}
        None => cx.error_at(
            fn_span,
            "#[portos_route] needs `method = \"GET\"` (or POST, PUT, PATCH, DELETE)",
        ),
    }
    if let Some(mount) = &args.mount
        && let Some(problem) = super::mount_problem(&mount.value)
    {
        cx.error_at(mount.span, problem);
    }
    match (&args.path, &args.mount) {
        // Under a mount, the path may be empty: the mount's prefix itself.
        (Some(path), Some(_)) if path.value.is_empty() => {}
        (Some(path), _) => check_path(cx, path),
        (None, _) => cx.error_at(fn_span, "#[portos_route] needs `path = \"/api/...\"`"),
    }
    for (value, allowed, what) in [
        (&args.access, names::ROUTE_ACCESS, "access"),
        (&args.side_effect, names::ROUTE_EFFECTS, "side_effect"),
    ] {
        if let Some(value) = value
            && names::find(allowed, &value.value).is_none()
        {
            cx.error_at(
                value.span,
                format!(
                    "unknown {what} `{}`; expected one of: {}",
                    value.value,
                    names::names(allowed).join(", ")
                ),
            );
        }
    }
    if let Some(tool) = &args.tool {
        check_tool(cx, tool);
    }
}

fn check_tool(cx: &Ctxt, tool: &ToolArg) {
    match &tool.name {
        Some(name) => {
            let value = &name.value;
            let valid = (1..=100).contains(&value.len())
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
            if !valid {
                cx.error_at(
                    name.span,
                    "a tool name is 1 to 100 of `A-Z a-z 0-9 . _ -`, e.g. \"clock.now\"",
                );
            }
        }
        None => cx.error_at(tool.span, "`tool(...)` needs `name = \"...\"`"),
    }
    for (value, allowed, what) in [
        (&tool.privacy, names::TOOL_PRIVACY, "privacy"),
        (&tool.side_effect, names::HTTP_TOOL_EFFECTS, "side_effect"),
    ] {
        match value {
            Some(value) if names::find(allowed, &value.value).is_none() => cx.error_at(
                value.span,
                format!(
                    "unknown tool {what} `{}`; expected one of: {}",
                    value.value,
                    names::names(allowed).join(", ")
                ),
            ),
            Some(_) => {}
            None => cx.error_at(
                tool.span,
                format!(
                    "`tool(...)` needs `{what} = \"...\"` (one of: {})",
                    names::names(allowed).join(", ")
                ),
            ),
        }
    }
}

fn check_path(cx: &Ctxt, path: &Spanned<String>) {
    let value = &path.value;
    if !value.starts_with('/') {
        cx.error_at(path.span, "a route path starts with `/`");
        return;
    }
    for segment in value.split('/').skip(1) {
        let bad = if segment.is_empty() && value != "/" {
            Some("empty segment (`//` or a trailing `/`)".to_owned())
        } else if segment.starts_with(':') || segment.starts_with('*') {
            Some(format!("`{segment}`: write path parameters as `{{name}}`"))
        } else if segment.contains(['{', '}'])
            && !(segment.starts_with('{')
                && segment.ends_with('}')
                && segment.len() > 2
                && segment[1..segment.len() - 1]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        {
            Some(format!(
                "`{segment}`: a parameter is a whole segment `{{name}}` of letters, digits and `_`"
            ))
        } else {
            None
        };
        if let Some(problem) = bad {
            cx.error_at(path.span, format!("invalid route path: {problem}"));
        }
    }
}
