//! The `crate = path` key of every attribute, like serde's
//! `#[serde(crate = "...")]`: a crate that re-exports portos-core names the
//! path it is reached by, and the generated code goes through it.
//!
//! Generated code names only items under `<crate>::__private::v1`, a
//! versioned module, so the macros and portos-core can change their private
//! contract without breaking code expanded by another release.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Lit, Path, Token};

use crate::ctxt::Ctxt;

/// `<crate>::__private::v1`, for the given `crate` key or `::portos_core`.
pub(crate) fn private_path(krate: Option<&Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path::__private::v1),
        None => quote!(::portos_core::__private::v1),
    }
}

/// Parses `crate = ...`; on a malformed value, records the error in `cx`
/// and skips to the next key, so the attribute's other keys are still read
/// (one error, not a cascade of "missing key" ones).
pub(crate) fn parse_or_skip(
    cx: &Ctxt,
    meta: &syn::meta::ParseNestedMeta<'_>,
) -> syn::Result<Option<Path>> {
    match parse(meta) {
        Ok(path) => Ok(Some(path)),
        Err(error) => {
            cx.syn_error(error);
            while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                meta.input.parse::<proc_macro2::TokenTree>()?;
            }
            Ok(None)
        }
    }
}

/// Parses the value of `crate = ...`: a plain path, not a string.
pub(crate) fn parse(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Path> {
    const EXAMPLE: &str = "write `crate = my_sdk::portos_core`";
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(format!(
            "`crate` takes the path portos-core is reached by: {EXAMPLE}"
        )));
    }
    let value = meta.value()?;
    if value.peek(Lit) {
        let lit: Lit = value.parse()?;
        let hint = match &lit {
            Lit::Str(_) => format!("`crate` takes a path, not a string: {EXAMPLE}"),
            _ => format!("`crate` takes a path: {EXAMPLE}"),
        };
        return Err(syn::Error::new_spanned(lit, hint));
    }
    let path: Path = value.parse().map_err(|error| {
        syn::Error::new(error.span(), format!("`crate` takes a path: {EXAMPLE}"))
    })?;
    if let Some(segment) = path.segments.iter().find(|s| !s.arguments.is_none()) {
        return Err(syn::Error::new_spanned(
            &segment.arguments,
            format!(
                "`crate` takes a plain path, without generic arguments: remove `{}`",
                segment
                    .arguments
                    .to_token_stream()
                    .to_string()
                    .replace(' ', "")
            ),
        ));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    fn expansions(krate: &TokenStream) -> Vec<String> {
        vec![
            crate::expand::portos_tool(
                quote!(#krate name = "demo.a", scopes = ["ui", "mind"], capabilities = ["readPortos"], side_effect = "supervised-write", intent_group = "feeds"),
                &quote!(#[doc = "Do a."] async fn a(ctx: &ToolContext, args: Args) -> Result<Out, E> { Ok(Out::from(args)) }),
            ),
            crate::route::portos_route(
                quote!(#krate method = "POST", path = "/api/demo/{id}", access = "loopback", tool(name = "demo.b", privacy = "internal", side_effect = "read")),
                &quote!(#[doc = "Do b."] async fn b() {}),
            ),
            crate::event::portos_event(
                quote!(#krate name = "demo:c", direction = "both"),
                &quote!(#[doc = "C happened."] struct C { ok: bool }),
            ),
        ]
        .into_iter()
        .map(|tokens| tokens.to_string())
        .collect()
    }

    /// The only private paths are `v1` ones, portos-core's and the
    /// server's alike.
    fn assert_versioned(text: &str) {
        assert!(!text.contains("compile_error"), "{text}");
        for (at, _) in text.match_indices("__private ::") {
            assert!(
                text[at..].starts_with("__private :: v1 ::"),
                "an unversioned private path in: {}",
                &text[at.saturating_sub(40)..(at + 40).min(text.len())]
            );
        }
    }

    #[test]
    fn by_default_generated_code_names_portos_core_v1() {
        for text in expansions(&TokenStream::new()) {
            assert_versioned(&text);
            assert!(
                text.contains(":: portos_core :: __private :: v1 ::"),
                "{text}"
            );
        }
    }

    /// `server = path` on a route: the server's paths go through it.
    #[test]
    fn a_route_with_a_server_path_never_names_portos_server() {
        let text = crate::route::portos_route(
            quote!(
                crate = my_sdk::core,
                server = my_sdk::server,
                method = "GET",
                path = "/api/demo"
            ),
            &quote!(
                async fn b() {}
            ),
        )
        .to_string();
        assert_versioned(&text);
        assert!(!text.contains("portos_server"), "{text}");
        assert!(!text.contains("portos_core"), "{text}");
        assert!(
            text.contains("my_sdk :: server :: __private :: v1 :: MethodRoute"),
            "{text}"
        );
    }

    #[test]
    fn with_a_crate_path_generated_code_never_names_portos_core() {
        for text in expansions(&quote!(crate = my_sdk::core,)) {
            assert_versioned(&text);
            assert!(!text.contains("portos_core"), "{text}");
            assert!(
                text.contains("my_sdk :: core :: __private :: v1 ::"),
                "{text}"
            );
        }
    }

    /// A malformed `crate` is one error; the keys after it are still read.
    #[test]
    fn a_malformed_crate_is_one_error_in_every_attribute() {
        let outputs = [
            crate::expand::portos_tool(
                quote!(
                    crate = "sdk",
                    name = "demo.a",
                    scopes = ["ui"],
                    side_effect = "read"
                ),
                &quote!(
                    #[doc = "Do a."]
                    async fn a() -> Result<Out, E> {
                        Ok(Out::default())
                    }
                ),
            ),
            crate::route::portos_route(
                quote!(crate = "sdk", method = "GET", path = "/api/demo"),
                &quote!(
                    async fn b() {}
                ),
            ),
            crate::event::portos_event(
                quote!(crate = "sdk", name = "demo:c", direction = "both"),
                &quote!(
                    #[doc = "C happened."]
                    struct C;
                ),
            ),
        ];
        for output in outputs {
            let text = output.to_string();
            assert_eq!(text.matches("compile_error").count(), 1, "{text}");
            assert!(text.contains("not a string"), "{text}");
        }
    }
}
