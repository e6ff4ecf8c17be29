//! `#[portos_route]`: an axum handler declared with its method, path and
//! schemas, registered in portos-server's link-time route list. The router
//! is mounted from that list and the inventory and OpenAPI are derived from
//! it, so what is served and what is documented are the same list.

mod args;
mod server;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned as _;

use crate::ctxt::Ctxt;
use crate::names::{self, Term};

pub fn portos_route(args: TokenStream, item: &TokenStream) -> TokenStream {
    let item_fn: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => {
            let error = syn::Error::new(
                error.span(),
                "#[portos_route] goes on an `async fn` axum handler",
            )
            .to_compile_error();
            return quote!(#error #item);
        }
    };
    let cx = Ctxt::new();
    let parsed = args::parse(&cx, args);
    args::check(&cx, &parsed, item_fn.sig.ident.span());
    if item_fn.sig.asyncness.is_none() {
        cx.error_spanned_by(
            item_fn.sig.fn_token,
            "#[portos_route] needs an `async fn` handler",
        );
    }
    if !item_fn.sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &item_fn.sig.generics,
            "#[portos_route] handlers cannot be generic",
        );
    }
    match cx.check() {
        Err(error) => {
            let errors = error.to_compile_error();
            quote!(#errors #item_fn)
        }
        Ok(()) => {
            let registration = registration(&parsed, &item_fn);
            quote!(#item_fn #registration)
        }
    }
}

fn registration(args: &args::RouteArgs, item: &ItemFn) -> TokenStream {
    let fn_name = &item.sig.ident;
    let static_name = format_ident!(
        "__PORTOS_ROUTE_{}",
        fn_name.to_string().to_ascii_uppercase(),
        span = Span::call_site()
    );
    let private = crate::krate::private_path(args.krate.as_ref());
    let server::ServerPaths { method_route, axum } = server::server_paths();
    let method_name = args.method.as_ref().map_or("GET", |m| m.value.as_str());
    let method = variant(names::HTTP_METHODS, method_name);
    let filter = format_ident!("{}", method_name);
    let path = args.path.as_ref().map_or("/", |p| p.value.as_str());
    let summary = option_str(args.summary.as_ref().map(|s| s.value.as_str()));
    let description = crate::doc::doc_text(&item.attrs);
    let access = match &args.access {
        Some(a) => {
            let v = variant(names::ROUTE_ACCESS, &a.value);
            quote!(::core::option::Option::Some(#private::Access::#v))
        }
        None => quote!(::core::option::Option::None),
    };
    let side_effect = match &args.side_effect {
        Some(a) => {
            let v = variant(names::ROUTE_EFFECTS, &a.value);
            quote!(::core::option::Option::Some(#private::RouteEffect::#v))
        }
        None => quote!(::core::option::Option::None),
    };
    let schema = |ty: Option<&syn::Type>| match ty {
        Some(ty) => quote_spanned! {ty.span()=>
            ::core::option::Option::Some(
                #private::schemars::SchemaGenerator::subschema_for::<#ty> as #private::SchemaFn
            )
        },
        None => quote!(::core::option::Option::None),
    };
    let query = schema(args.query.as_ref());
    let request = schema(args.request.as_ref());
    let response = schema(args.response.as_ref());
    let status = args.status.as_ref().map_or(200, |s| s.value);
    let errors = args.errors.iter().map(|e| {
        let (status, code) = (e.status, &e.code);
        quote!(#private::ErrorSpec { status: #status, code: #code })
    });
    let tool = match &args.tool {
        Some(tool) => {
            let name = tool.name.as_ref().map_or("", |n| n.value.as_str());
            let privacy = variant(
                names::TOOL_PRIVACY,
                tool.privacy
                    .as_ref()
                    .map_or("internal", |p| p.value.as_str()),
            );
            let effect = variant(
                names::HTTP_TOOL_EFFECTS,
                tool.side_effect
                    .as_ref()
                    .map_or("read", |p| p.value.as_str()),
            );
            let is_async = tool.is_async;
            quote!(::core::option::Option::Some(#private::HttpToolSpec {
                name: #name,
                version: 1,
                privacy: #private::ToolPrivacy::#privacy,
                side_effect: #private::HttpToolEffect::#effect,
                is_async: #is_async,
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #[doc(hidden)]
        const _: () = {
            #private::register!(ROUTES, #static_name: #private::RouteEntry = #private::RouteEntry {
                spec: #private::RouteSpec {
                    method: #private::HttpMethod::#method,
                    path: #path,
                    summary: #summary,
                    description: #description,
                    access: #access,
                    side_effect: #side_effect,
                    query: #query,
                    request: #request,
                    response: #response,
                    success_status: #status,
                    errors: &[#(#errors),*],
                    tool: #tool,
                    location: #private::SourceLocation {
                        file: ::core::file!(),
                        line: ::core::line!(),
                        column: ::core::column!(),
                    },
                },
                handler: || {
                    // The concrete type is checked here, at compile time.
                    let handler: #method_route =
                        #axum::routing::on(#axum::routing::MethodFilter::#filter, #fn_name);
                    ::std::boxed::Box::new(handler)
                },
            });
        };
    }
}

/// The portos-core variant of a checked word (registration runs only when
/// every word was found in its table).
fn variant(terms: &[Term], name: &str) -> Ident {
    let variant = names::find(terms, name).map_or("Unknown", |term| term.variant);
    Ident::new(variant, Span::call_site())
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}
