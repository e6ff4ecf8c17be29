//! Emits the user's function unchanged plus a `static ToolDescriptor` in
//! portos_core's link-time slice.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::ast::{Adapter, ParamKind};
use crate::check::{self, Tool};
use crate::ctxt::Ctxt;
use crate::{attr, names};

pub fn portos_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => {
            // Not a function at all: say so and give the tokens back untouched.
            let message = syn::Error::new(
                error.span(),
                "#[portos_tool] goes on an `async fn` adapter",
            );
            let error = message.to_compile_error();
            return quote!(#error #item);
        }
    };

    let cx = Ctxt::new();
    let raw = attr::parse(&cx, args);
    let adapter = Adapter::from_item(&cx, &item);
    let tool = check::check(&cx, raw, doc_comment(&item), item.sig.ident.span());

    match cx.check() {
        // On any mistake, emit only the function and the errors: no descriptor
        // means no follow-on type errors hiding the real one.
        Err(error) => {
            let errors = error.to_compile_error();
            quote!(#errors #item)
        }
        Ok(()) => {
            let descriptor = descriptor(&tool, &adapter);
            quote!(#item #descriptor)
        }
    }
}

fn doc_comment(item: &ItemFn) -> Option<String> {
    let lines: Vec<String> = item
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

fn descriptor(tool: &Tool, adapter: &Adapter<'_>) -> TokenStream {
    let fn_name = &adapter.item.sig.ident;
    let static_name = format_ident!(
        "__PORTOS_TOOL_{}",
        fn_name.to_string().to_ascii_uppercase(),
        span = Span::call_site()
    );
    let private = quote!(::portos_core::__private);

    let Tool {
        name,
        version,
        description,
        provider_name,
        aliases,
        ..
    } = tool;
    let scopes = variants(quote!(::portos_core::Scope), &tool.scopes);
    let capabilities = variants(quote!(::portos_core::Capability), &tool.capabilities);
    let side_effect = variant(quote!(::portos_core::SideEffect), &tool.side_effect);
    let confirmation = variant(quote!(::portos_core::Confirmation), &tool.confirmation);
    let idempotent = tool.idempotent;
    let is_async = tool.is_async;
    let open_world = tool.open_world;
    let suppress_on_form_fill = tool.suppress_on_form_fill;
    let intent_group = match &tool.intent_group {
        Some(group) => {
            let group = variant(quote!(::portos_core::IntentGroup), group);
            quote!(::core::option::Option::Some(#group))
        }
        None => quote!(::core::option::Option::None),
    };

    // Type checks, each spanned on the user's token so the error lands there.
    let input_check = adapter.input.map(|ty| {
        quote_spanned! {ty.span()=>
            const _: () = #private::assert_tool_input::<#ty>();
        }
    });
    let output_ty = adapter.output;
    let output_check = output_ty.map(|ty| {
        quote_spanned! {ty.span()=>
            const _: () = #private::assert_adapter_return::<#ty>();
        }
    });

    let (input_schema, parse_input) = match adapter.input {
        Some(ty) => (
            quote!(#private::input_schema::<#ty>),
            quote!(let (__input, __normalized) = #private::parse_input::<#ty>(__arguments)?;),
        ),
        None => (
            quote!(#private::empty_input_schema),
            quote!(let __normalized = #private::parse_empty_input(__arguments)?;),
        ),
    };
    let output_schema = match output_ty {
        Some(ty) => quote!(#private::output_schema::<<#ty as #private::AdapterReturn>::Output>),
        None => quote!(#private::empty_input_schema),
    };

    let call_args = adapter.params.iter().map(|param| match param {
        ParamKind::ContextRef => quote!(&__ctx),
        ParamKind::ContextOwned => quote!(::core::clone::Clone::clone(&__ctx)),
        ParamKind::Input => quote!(__input),
    });
    let call = quote!(#fn_name(#(#call_args),*).await);
    let bind_fn: Ident = format_ident!("__portos_bind");

    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #input_check
            #output_check

            fn #bind_fn(
                __arguments: #private::serde_json::Value,
            ) -> ::core::result::Result<#private::BoundCall, #private::ArgumentError> {
                #parse_input
                ::core::result::Result::Ok(#private::BoundCall::new(
                    __normalized,
                    move |__ctx: ::portos_core::ToolContext| {
                        ::std::boxed::Box::pin(async move {
                            #private::into_outcome(#call)
                        })
                    },
                ))
            }

            #[#private::linkme::distributed_slice(#private::TOOLS)]
            #[linkme(crate = #private::linkme)]
            static #static_name: ::portos_core::ToolDescriptor = ::portos_core::ToolDescriptor {
                name: #name,
                version: #version,
                description: #description,
                provider_name: #provider_name,
                aliases: &[#(#aliases),*],
                policy: ::portos_core::PolicyDecl {
                    scopes: &[#(#scopes),*],
                    capabilities: &[#(#capabilities),*],
                    side_effect: #side_effect,
                    idempotent: #idempotent,
                    is_async: #is_async,
                    confirmation: #confirmation,
                    open_world: #open_world,
                },
                intent: ::portos_core::IntentRule {
                    group: #intent_group,
                    suppress_on_form_fill: #suppress_on_form_fill,
                },
                input_schema: #input_schema,
                output_schema: #output_schema,
                bind: #bind_fn,
                location: ::portos_core::SourceLocation {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    column: ::core::column!(),
                },
            };
        };
    }
}

fn variant(enum_path: TokenStream, value: &str) -> TokenStream {
    let ident = Ident::new(&names::variant_name(value), Span::call_site());
    quote!(#enum_path::#ident)
}

fn variants(enum_path: TokenStream, values: &[String]) -> Vec<TokenStream> {
    values
        .iter()
        .map(|value| variant(enum_path.clone(), value))
        .collect()
}
