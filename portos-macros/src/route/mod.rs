//! `#[portos_route]`: an axum handler declared with its method, path and
//! schemas, registered in portos-server's link-time route list. The router
//! is mounted from that list and the inventory and OpenAPI are derived from
//! it, so what is served and what is documented are the same list.

mod args;
pub(crate) mod errors;
mod server;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned as _;

use crate::ctxt::Ctxt;
use crate::names::{self, Term};

/// What is wrong with a mount's name (`mount = "tools"`), shared by routes
/// and events: a lowercase word, `[a-z][a-z0-9-]*`.
pub(crate) fn mount_problem(mount: &str) -> Option<String> {
    let fits = mount.starts_with(|c: char| c.is_ascii_lowercase())
        && mount
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    (!fits).then(|| {
        format!(
            "invalid mount `{mount}`: a mount is named by a lowercase word (`[a-z][a-z0-9-]*`), e.g. \"tools\"; the application places it"
        )
    })
}

pub(crate) fn portos_route(args: TokenStream, item: &TokenStream) -> TokenStream {
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
    let server::ServerPaths {
        method_route,
        axum,
        io: io_path,
    } = server::server_paths(args.server.as_ref());
    let method_name = args.method.as_ref().map_or("GET", |m| m.value.as_str());
    let method = variant(names::HTTP_METHODS, method_name);
    let filter = format_ident!("{}", method_name);
    let path = args.path.as_ref().map_or("/", |p| p.value.as_str());
    let mount = option_str(args.mount.as_ref().map(|m| m.value.as_str()));
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
    let io = describe_io(item, &io_path);
    let replaceable = args.replaceable;
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
                    mount: #mount,
                    summary: #summary,
                    description: #description,
                    access: #access,
                    side_effect: #side_effect,
                    io: #io,
                    replaceable: #replaceable,
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

/// A function describing the handler from its signature: each parameter
/// type's `RouteInput`, then the return type's `RouteOutput` (which, for a
/// `Result`, adds its error type's `RouteErrors`). Each call is spanned on
/// its type, so a type that cannot describe itself is reported there.
fn describe_io(item: &ItemFn, io: &TokenStream) -> TokenStream {
    let inputs = item.sig.inputs.iter().filter_map(|input| match input {
        syn::FnArg::Typed(typed) => {
            let ty = &typed.ty;
            Some(quote_spanned! {ty.span()=>
                <#ty as #io::RouteInput>::describe(&mut described);
            })
        }
        syn::FnArg::Receiver(_) => None,
    });
    let output = match &item.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    };
    let output_span = match &item.sig.output {
        syn::ReturnType::Default => item.sig.ident.span(),
        syn::ReturnType::Type(_, ty) => ty.span(),
    };
    let describe_output = quote_spanned! {output_span=>
        <#output as #io::RouteOutput>::describe(&mut described);
    };
    quote! {
        || {
            let mut described = #io::RouteIo::default();
            #(#inputs)*
            #describe_output
            described
        }
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
