//! `#[portos_resource]` and `#[portos_prompt]`: the function is modelled
//! as a tool adapter is (`ast`), the attribute checked here, and a
//! descriptor emitted into portos-core's link-time lists, naming only
//! `<crate>::__private::v1` paths.

mod attr;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned as _;

use crate::ast::{Adapter, Kind};
use crate::check::word_list;
use crate::ctxt::Ctxt;
use crate::{krate, names};
use attr::{PrimitiveArgs, Which};

const RESOURCE: Kind = Kind {
    attr: "#[portos_resource]",
    noun: "a resource adapter",
    what: "resource",
    returns: "a resource adapter must return `Result<Body, Error>`: add `-> Result<String, AdapterError>` (or a `ResourceBody`, `ResourceContents`, `Vec<ResourceContents>`)",
};

const PROMPT: Kind = Kind {
    attr: "#[portos_prompt]",
    noun: "a prompt adapter",
    what: "prompt",
    returns: "a prompt adapter must return `Result<Messages, Error>`: add `-> Result<Vec<PromptMessage>, AdapterError>`",
};

pub(crate) fn portos_resource(args: TokenStream, item: &TokenStream) -> TokenStream {
    expand(Which::Resource, args, item)
}

pub(crate) fn portos_prompt(args: TokenStream, item: &TokenStream) -> TokenStream {
    expand(Which::Prompt, args, item)
}

/// The checked attribute.
struct Checked {
    uri: String,
    template: bool,
    name: String,
    title: Option<String>,
    description: String,
    mime_type: Option<String>,
    scopes: Vec<String>,
    capabilities: Vec<String>,
}

fn expand(which: Which, args: TokenStream, item: &TokenStream) -> TokenStream {
    let kind = match which {
        Which::Resource => &RESOURCE,
        Which::Prompt => &PROMPT,
    };
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => {
            let message = format!(
                "{} goes on an `async fn` adapter, not on {}",
                kind.attr,
                crate::expand::item_kind(item)
            );
            let error = syn::Error::new(error.span(), message).to_compile_error();
            return quote!(#error #item);
        }
    };
    let cx = Ctxt::new();
    let raw = attr::parse(&cx, which, args);
    let adapter = Adapter::from_item(&cx, &item, kind);
    let checked = check(&cx, which, &raw, &adapter, &item);
    match (cx.check(), &adapter.output) {
        (Ok(()), Some(output)) => {
            let private = krate::private_path(raw.krate.as_ref().map(|k| &k.value));
            let descriptor = descriptor(which, &checked, &raw, &adapter, output.ty, &private);
            quote!(#item #descriptor)
        }
        (result, _) => {
            let errors = result.err().map(|error| error.to_compile_error());
            quote!(#errors #item)
        }
    }
}

fn check(
    cx: &Ctxt,
    which: Which,
    args: &PrimitiveArgs,
    adapter: &Adapter<'_>,
    item: &ItemFn,
) -> Checked {
    let fn_span = item.sig.ident.span();
    let attr = which.attr();
    let (uri, template) = match (which, &args.uri, &args.uri_template) {
        (Which::Prompt, ..) => (String::new(), false),
        (Which::Resource, Some(uri), None) => {
            if adapter.input.is_some() {
                cx.error_at(
                    uri.span,
                    "a resource at a fixed `uri` takes no input: declare `uri_template = \"...{var}...\"` to read variables into it",
                );
            }
            (uri.value.clone(), false)
        }
        (Which::Resource, None, Some(template)) => {
            if adapter.input.is_none() && !args.is_malformed() {
                cx.error_at(
                    template.span,
                    "a resource template reads its `{variables}` into an input struct: take one (a `String` field per variable) deriving Deserialize, Serialize and JsonSchema",
                );
            }
            (template.value.clone(), true)
        }
        (Which::Resource, Some(_), Some(both)) => {
            cx.error_at(
                both.span,
                "give `uri` (one resource) or `uri_template` (a family of them), not both",
            );
            (String::new(), false)
        }
        (Which::Resource, None, None) => {
            if !args.is_malformed() {
                cx.error_at(
                    fn_span,
                    "#[portos_resource] needs `uri = \"scheme://...\"` or `uri_template = \"scheme://{var}\"`",
                );
            }
            (String::new(), false)
        }
    };
    if let Some(value) = [&args.uri, &args.uri_template].into_iter().flatten().next() {
        if value.value.trim().is_empty() || value.value.chars().any(char::is_whitespace) {
            cx.error_at(value.span, "a URI has no whitespace and is not empty");
        } else if !value.value.contains(':') {
            cx.error_at(
                value.span,
                "a URI starts with its scheme: write `scheme://...` (e.g. `notes://today`)",
            );
        }
    }
    let name = match &args.name {
        Some(name) => {
            if let Some(problem) = name_problem(&name.value) {
                cx.error_at(
                    name.span,
                    format!("invalid name `{}`: {problem}", name.value),
                );
            }
            name.value.clone()
        }
        None => item.sig.ident.to_string(),
    };
    let description = args
        .description
        .as_ref()
        .map(|d| d.value.clone())
        .or_else(|| Some(crate::doc::doc_text(&item.attrs)).filter(|text| !text.is_empty()))
        .unwrap_or_else(|| {
            cx.error_at(
                fn_span,
                format!("#[{attr}] needs a description: write a `///` doc comment, or `description = \"...\"`"),
            );
            String::new()
        });
    let scopes = match &args.scopes {
        Some(scopes) if scopes.value.is_empty() => {
            cx.error_at(scopes.span, "`scopes` names at least one scope");
            Vec::new()
        }
        Some(scopes) => word_list(cx, &scopes.value, names::scope_name_problem, "scope"),
        None => {
            if !args.malformed.iter().any(|key| key == "scopes") {
                cx.error_at(
                    fn_span,
                    format!("#[{attr}] needs `scopes = [...]`: who may see it, in the application's words"),
                );
            }
            Vec::new()
        }
    };
    let capabilities = args.capabilities.as_ref().map_or_else(Vec::new, |list| {
        word_list(
            cx,
            &list.value,
            names::capability_name_problem,
            "capability",
        )
    });
    let mut seen: Vec<&str> = Vec::new();
    for entry in &args.complete {
        if seen.contains(&entry.argument.value.as_str()) {
            cx.error_at(
                entry.argument.span,
                format!(
                    "`{}` is completed twice: give one function",
                    entry.argument.value
                ),
            );
        }
        seen.push(&entry.argument.value);
    }
    Checked {
        uri,
        template,
        name,
        title: args.title.as_ref().map(|t| t.value.clone()),
        description,
        mime_type: args.mime_type.as_ref().map(|m| m.value.clone()),
        scopes,
        capabilities,
    }
}

/// Resource and prompt names: 1 to 100 of `[A-Za-z0-9._-]`, as tools.
fn name_problem(name: &str) -> Option<&'static str> {
    let valid = !name.is_empty()
        && name.len() <= 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    (!valid).then_some("a name is 1 to 100 of A-Z, a-z, 0-9, `.`, `_` and `-`")
}

fn descriptor(
    which: Which,
    checked: &Checked,
    args: &PrimitiveArgs,
    adapter: &Adapter<'_>,
    returns: &syn::Type,
    private: &TokenStream,
) -> TokenStream {
    let fn_name = &adapter.item.sig.ident;
    let upper = fn_name.to_string().to_ascii_uppercase();
    let (list, static_name, descriptor_ty, outcome_ty, assert, finish) = match which {
        Which::Resource => (
            quote!(RESOURCES),
            format_ident!("__PORTOS_RESOURCE_{}", upper, span = Span::call_site()),
            quote!(#private::ResourceDescriptor),
            quote!(#private::ResourceOutcome),
            quote!(assert_resource_return),
            quote!(resource_outcome),
        ),
        Which::Prompt => (
            quote!(PROMPTS),
            format_ident!("__PORTOS_PROMPT_{}", upper, span = Span::call_site()),
            quote!(#private::PromptDescriptor),
            quote!(#private::PromptMessages),
            quote!(assert_prompt_return),
            quote!(prompt_messages),
        ),
    };
    let input_check = adapter.input.map(|ty| {
        quote_spanned! {ty.span()=> const _: () = #private::assert_tool_input::<#ty>(); }
    });
    let return_check = quote_spanned! {returns.span()=>
        const _: () = #private::#assert::<#returns>();
    };
    let (input_schema, parse_input) = match adapter.input {
        Some(ty) => (
            quote!((&#private::Probe::<#ty>::NEW).input_schema()),
            quote!(let (__input, _) = (&#private::Probe::<#ty>::NEW).parse_input(__arguments)?;),
        ),
        None => (
            quote!(#private::empty_input_schema()),
            quote!(#private::parse_empty_input(__arguments)?;),
        ),
    };
    let (call, take_state) = crate::expand::adapter_call(adapter, private);
    let state = adapter.state.iter().map(|ty| {
        quote_spanned! {ty.span()=> #private::StateNeed::of::<#ty>()}
    });
    let completers = args.complete.iter().enumerate().map(|(index, entry)| {
        let wrapper = format_ident!("__portos_complete_{index}");
        let function = &entry.function;
        let argument = &entry.argument.value;
        let run = quote_spanned! {function.span()=>
            #function(&__ctx, __request).await
        };
        (
            quote! {
                fn #wrapper(
                    __ctx: #private::ToolContext,
                    __request: #private::CompletionRequest,
                ) -> #private::BoxFuture<'static, ::std::vec::Vec<::std::string::String>> {
                    ::std::boxed::Box::pin(async move { #run })
                }
            },
            quote!(#private::Completer { argument: #argument, complete: #wrapper }),
        )
    });
    let (completer_fns, completer_entries): (Vec<_>, Vec<_>) = completers.unzip();
    let option = |value: &Option<String>| match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let Checked {
        uri,
        template,
        name,
        description,
        scopes,
        capabilities,
        ..
    } = checked;
    let title = option(&checked.title);
    let common = quote! {
        name: #name,
        title: #title,
        description: #description,
        scopes: &[#(#scopes),*],
        capabilities: &[#(#capabilities),*],
        input_schema: __portos_input_schema,
        bind: __portos_bind,
        completions: &[#(#completer_entries),*],
        state: &[#(#state),*],
        location: #private::SourceLocation {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
        },
    };
    let fields = match which {
        Which::Resource => {
            let mime_type = option(&checked.mime_type);
            quote!(uri: #uri, template: #template, mime_type: #mime_type, #common)
        }
        Which::Prompt => common,
    };
    let word_checks = crate::words::checks(&args.scopes, &args.capabilities);
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #word_checks
            #input_check
            #return_check

            #[allow(unused_imports)]
            use #private::{
                InputFallback as _, InputProbe as _, PromptReturnFallback as _,
                PromptReturnProbe as _, ResourceReturnFallback as _, ResourceReturnProbe as _,
                StateFallback as _, StateProbe as _,
            };

            fn __portos_input_schema() -> #private::serde_json::Value {
                #input_schema
            }

            fn __portos_bind(
                __arguments: #private::serde_json::Value,
            ) -> ::core::result::Result<#private::Bound<#outcome_ty>, #private::ArgumentError> {
                #parse_input
                ::core::result::Result::Ok(#private::Bound::new(
                    move |__ctx: #private::ToolContext| {
                        ::std::boxed::Box::pin(async move {
                            #(#take_state)*
                            (&#private::Probe::<#returns>::NEW).#finish(#call)
                        })
                    },
                ))
            }

            #(#completer_fns)*

            #private::register!(#list, #static_name: #descriptor_ty = #descriptor_ty { #fields });
        };
    }
}
