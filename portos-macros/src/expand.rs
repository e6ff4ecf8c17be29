//! Emits the user's function unchanged plus a `static ToolDescriptor` in
//! portos_core's link-time list, naming only `<crate>::__private::v1` paths.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::ast::{Adapter, Output, ParamKind};
use crate::check::{self, Tool};
use crate::ctxt::Ctxt;
use crate::{attr, krate};

pub(crate) fn portos_tool(args: TokenStream, item: &TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => {
            // Not a function at all: say so and give the tokens back untouched.
            let message = format!(
                "#[portos_tool] goes on an `async fn` adapter, not on {}",
                item_kind(item)
            );
            let error = syn::Error::new(error.span(), message).to_compile_error();
            return quote!(#error #item);
        }
    };

    let cx = Ctxt::new();
    let raw = attr::parse(&cx, args);
    let adapter = Adapter::from_item(&cx, &item, &crate::ast::TOOL);
    let tool = check::check(
        &cx,
        &raw,
        Some(crate::doc::doc_text(&item.attrs)).filter(|text| !text.is_empty()),
        item.sig.ident.span(),
    );

    match (cx.check(), &adapter.output) {
        (Ok(()), Some(output)) => {
            let private = krate::private_path(raw.krate.as_ref().map(|k| &k.value));
            let descriptor = descriptor(&tool, &adapter, output, &private, &raw);
            quote!(#item #descriptor)
        }
        // On any mistake (a missing return type is one), emit only the
        // function and the errors: no descriptor means no follow-on errors.
        (result, _) => {
            let errors = result.err().map(|error| error.to_compile_error());
            quote!(#errors #item)
        }
    }
}

/// The `ask_first` glue: a function from the call's context and arguments
/// (already validated) to the author's questions, and the descriptor's
/// field naming it.
fn ask_first(
    tool: &Tool,
    adapter: &Adapter<'_>,
    private: &TokenStream,
) -> (TokenStream, TokenStream) {
    let Some(path) = &tool.ask_first else {
        return (quote!(), quote!(::core::option::Option::None));
    };
    let call = match adapter.input {
        Some(ty) => {
            let probe = quote!((&#private::Probe::<#ty>::NEW));
            quote! {
                let (__input, _) = #probe.parse_input(__arguments).map_err(|__error| {
                    #private::InputError::Failed(::std::string::ToString::to_string(&__error))
                })?;
                #path(&__ctx, &__input).await
            }
        }
        None => quote! {
            let _ = __arguments;
            #path(&__ctx).await
        },
    };
    let glue = quote! {
        fn __portos_ask_first(
            __ctx: #private::ToolContext,
            __arguments: #private::serde_json::Value,
        ) -> #private::BoxFuture<'static, ::core::result::Result<(), #private::InputError>> {
            ::std::boxed::Box::pin(async move { #call })
        }
    };
    (
        glue,
        quote!(::core::option::Option::Some(__portos_ask_first)),
    )
}

/// What the attribute was put on instead of a function, for the message.
pub(crate) fn item_kind(item: &TokenStream) -> &'static str {
    match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Struct(_)) => "a struct",
        Ok(syn::Item::Enum(_)) => "an enum",
        Ok(syn::Item::Union(_)) => "a union",
        Ok(syn::Item::Trait(_)) => "a trait",
        Ok(syn::Item::Impl(_)) => "an impl block",
        Ok(syn::Item::Mod(_)) => "a module",
        Ok(syn::Item::Const(_)) => "a const",
        Ok(syn::Item::Static(_)) => "a static",
        Ok(syn::Item::Type(_)) => "a type alias",
        Ok(syn::Item::Use(_)) => "a use declaration",
        _ => "this item (a function needs a body)",
    }
}

fn descriptor(
    tool: &Tool,
    adapter: &Adapter<'_>,
    output: &Output<'_>,
    private: &TokenStream,
    raw: &attr::ToolArgs,
) -> TokenStream {
    let fn_name = &adapter.item.sig.ident;
    let static_name = format_ident!(
        "__PORTOS_TOOL_{}",
        fn_name.to_string().to_ascii_uppercase(),
        span = Span::call_site()
    );
    let Tool {
        name,
        version,
        description,
        provider_name,
        aliases,
        ..
    } = tool;
    let scopes = &tool.scopes;
    let capabilities = &tool.capabilities;
    let side_effect = variant(&quote!(#private::SideEffect), tool.variants.side_effect);
    let confirmation = variant(&quote!(#private::Confirmation), tool.variants.confirmation);
    let idempotent = tool.idempotent;
    let is_async = tool.is_async;
    let long_running = tool.long_running;
    let open_world = tool.open_world;
    let suppress_on_form_fill = tool.suppress_on_form_fill;
    let unguarded = match &tool.unguarded {
        Some(reason) => quote!(::core::option::Option::Some(#reason)),
        None => quote!(::core::option::Option::None),
    };
    let requires_tasks = tool.requires_tasks;
    let requires_client = tool
        .requires_client
        .iter()
        .map(|kind| variant(&quote!(#private::InputKind), kind));
    let not_strict = match &tool.not_strict {
        Some(reason) => quote!(::core::option::Option::Some(#reason)),
        None => quote!(::core::option::Option::None),
    };
    let intent_group = match &tool.intent_group {
        Some(group) => quote!(::core::option::Option::Some(#group)),
        None => quote!(::core::option::Option::None),
    };

    let checks = type_checks(adapter.input, output, private);
    let word_checks = crate::words::checks(&raw.scopes, &raw.capabilities);
    // Spanned on each type: one that is not `Send + Sync` is reported there.
    let state = adapter.state.iter().map(|ty| {
        quote_spanned! {ty.span()=> #private::StateNeed::of::<#ty>()}
    });
    let probe = |ty: &syn::Type| quote!((&#private::Probe::<#ty>::NEW));
    let (input_schema, parse_input) = match adapter.input {
        Some(ty) => {
            let probe = probe(ty);
            (
                quote!(#probe.input_schema()),
                quote!(let (__input, __normalized) = #probe.parse_input(__arguments)?;),
            )
        }
        None => (
            quote!(#private::empty_input_schema()),
            quote!(let __normalized = #private::parse_empty_input(__arguments)?;),
        ),
    };
    let output_probe = probe(output.ty);
    let (ask_first_fn, ask_first) = ask_first(tool, adapter, private);
    let (call, take_state) = adapter_call(adapter, private);
    let bind_fn: Ident = format_ident!("__portos_bind");

    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #word_checks
            #checks

            // The probes pick the real behaviour, or an inert fallback when a
            // type does not fit, so only the checks above report it.
            #[allow(unused_imports)]
            use #private::{
                ContentFallback as _, ContentProbe as _, InputFallback as _, InputProbe as _,
                ReturnFallback as _, ReturnProbe as _, StateFallback as _, StateProbe as _,
            };

            fn __portos_input_schema() -> #private::serde_json::Value {
                #input_schema
            }

            fn __portos_output_schema() -> #private::serde_json::Value {
                #output_probe.output_schema()
            }

            fn __portos_content_output() -> bool {
                #output_probe.content_output()
            }

            #ask_first_fn

            fn #bind_fn(
                __arguments: #private::serde_json::Value,
            ) -> ::core::result::Result<#private::BoundCall, #private::ArgumentError> {
                #parse_input
                ::core::result::Result::Ok(#private::BoundCall::new(
                    __normalized,
                    move |__ctx: #private::ToolContext| {
                        ::std::boxed::Box::pin(async move {
                            #(#take_state)*
                            #output_probe.outcome(#call)
                        })
                    },
                ))
            }

            #private::register!(TOOLS, #static_name: #private::ToolDescriptor = #private::ToolDescriptor {
                name: #name,
                version: #version,
                description: #description,
                provider_name: #provider_name,
                aliases: &[#(#aliases),*],
                policy: #private::PolicyDecl {
                    scopes: &[#(#scopes),*],
                    capabilities: &[#(#capabilities),*],
                    side_effect: #side_effect,
                    idempotent: #idempotent,
                    is_async: #is_async,
                    long_running: #long_running,
                    confirmation: #confirmation,
                    open_world: #open_world,
                    unguarded: #unguarded,
                },
                intent: #private::IntentRule {
                    group: #intent_group,
                    suppress_on_form_fill: #suppress_on_form_fill,
                },
                input_schema: __portos_input_schema,
                output_schema: __portos_output_schema,
                bind: #bind_fn,
                state: &[#(#state),*],
                not_strict: #not_strict,
                content_output: __portos_content_output,
                requires_client: &[#(#requires_client),*],
                requires_tasks: #requires_tasks,
                ask_first: #ask_first,
                location: #private::SourceLocation {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    column: ::core::column!(),
                },
            });
        };
    }
}

/// The adapter's call (`name(&__ctx, __input, __state0).await`) and the
/// statements that take each `Shared<T>` from `__ctx` before it: shared by
/// every attribute whose function the registry runs.
pub(crate) fn adapter_call(
    adapter: &Adapter<'_>,
    private: &TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    let fn_name = &adapter.item.sig.ident;
    let call_args = adapter.params.iter().map(|param| match param {
        ParamKind::ContextRef => quote!(&__ctx),
        ParamKind::ContextOwned => quote!(::core::clone::Clone::clone(&__ctx)),
        ParamKind::Input => quote!(__input),
        ParamKind::State(index) => {
            let name = format_ident!("__state{index}");
            quote!(#name)
        }
    });
    // Each `Shared<T>` taken before the call; the registry checked at
    // start-up that the server has every one, so the error is for a
    // context put together by hand.
    let take_state = adapter.state.iter().enumerate().map(|(index, ty)| {
        let name = format_ident!("__state{index}");
        quote! {
            let #name = match (&#private::Probe::<#ty>::NEW).shared(&__ctx) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(missing) => {
                    return ::core::result::Result::Err(::std::string::ToString::to_string(&missing));
                }
            };
        }
    });
    let call = quote!(#fn_name(#(#call_args),*).await);
    (call, take_state.collect())
}

/// The type checks, each in a `const` item spanned on the user's own token so
/// a type that does not fit is reported there, with the note of its
/// `#[diagnostic::on_unimplemented]` trait, and nowhere else.
fn type_checks(
    input: Option<&syn::Type>,
    output: &Output<'_>,
    private: &TokenStream,
) -> TokenStream {
    let check = |ty: &syn::Type, assert: &str| {
        let assert = Ident::new(assert, Span::call_site());
        quote_spanned! {ty.span()=>
            const _: () = #private::#assert::<#ty>();
        }
    };
    let input = input.map(|ty| check(ty, "assert_tool_input"));
    let output = match output.ok_err {
        Some((ok, err)) => {
            let ok_check = check(ok, "assert_tool_output");
            let err_check = check(err, "assert_tool_error");
            // `Result` might be some other type of that name; then the return
            // type itself is the mistake, reported here and only here.
            let ty = output.ty;
            let same = quote_spanned! {ty.span()=>
                const _: () = {
                    let _: ::core::marker::PhantomData<::core::result::Result<#ok, #err>> =
                        ::core::marker::PhantomData::<#ty>;
                };
            };
            quote!(#ok_check #err_check #same)
        }
        None => check(output.ty, "assert_adapter_return"),
    };
    quote!(#input #output)
}

/// `Enum::Variant`, the variant named by the vocabulary's table.
fn variant(enum_path: &TokenStream, variant: &str) -> TokenStream {
    let ident = Ident::new(variant, Span::call_site());
    quote!(#enum_path::#ident)
}
