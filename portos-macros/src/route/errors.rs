//! `#[derive(RouteErrors)]`: an enum of a route family's failures, each
//! variant either one answer (`#[route_error(status = 404, code = "…")]`,
//! its message the variant's `Display`), a `transparent` wrapper of another
//! `RouteErrors` type, or an `internal` fault (500, not documented). The
//! documented list and the answer come from the same attribute, so they
//! cannot disagree.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Fields, LitInt, LitStr};

use crate::ctxt::Ctxt;

/// How one variant answers.
enum Answer {
    /// `status = 404, code = "GOAL_NOT_FOUND"`
    Declared { status: u16, code: String },
    /// `transparent`: the single field answers, and declares, for itself.
    Transparent,
    /// `internal`: a fault of the server, 500 `INTERNAL_ERROR`, logged.
    Internal,
}

pub(crate) fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let Data::Enum(data) = &input.data else {
        cx.error_spanned_by(
            &input.ident,
            "#[derive(RouteErrors)] goes on an enum of a route family's failures",
        );
        return errors_of(cx);
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "#[derive(RouteErrors)] enums cannot be generic",
        );
    }
    let mut variants = Vec::new();
    for variant in &data.variants {
        let answer = answer(&cx, variant);
        let single_field = matches!(&variant.fields, Fields::Unnamed(f) if f.unnamed.len() == 1)
            || matches!(&variant.fields, Fields::Named(f) if f.named.len() == 1);
        if matches!(answer, Some(Answer::Transparent | Answer::Internal)) && !single_field {
            cx.error_spanned_by(
                &variant.ident,
                "a `transparent` or `internal` variant has exactly one field, the error it wraps",
            );
        }
        variants.push((variant, answer));
    }
    if let Err(error) = cx.check() {
        return error.to_compile_error();
    }
    expand(&input, &variants)
}

fn errors_of(cx: Ctxt) -> TokenStream {
    cx.check()
        .err()
        .map(|e| e.to_compile_error())
        .unwrap_or_default()
}

/// Reads the variant's one `#[route_error(...)]`.
fn answer(cx: &Ctxt, variant: &syn::Variant) -> Option<Answer> {
    let attrs: Vec<_> = variant
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("route_error"))
        .collect();
    let Some(attr) = attrs.first() else {
        cx.error_spanned_by(
            &variant.ident,
            "each variant needs `#[route_error(status = 404, code = \"NOT_FOUND\")]`, `#[route_error(transparent)]` or `#[route_error(internal)]`",
        );
        return None;
    };
    if let Some(extra) = attrs.get(1) {
        cx.error_spanned_by(extra, "one `#[route_error(...)]` per variant");
    }
    let mut status: Option<LitInt> = None;
    let mut code: Option<LitStr> = None;
    let mut transparent = false;
    let mut internal = false;
    let parsed = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("status") {
            status = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("code") {
            code = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("transparent") {
            transparent = true;
        } else if meta.path.is_ident("internal") {
            internal = true;
        } else {
            return Err(meta.error(
                "unknown route_error key; expected `status` and `code`, `transparent` or `internal`",
            ));
        }
        Ok(())
    });
    if let Err(error) = parsed {
        cx.syn_error(error);
        return None;
    }
    match (status, code, transparent, internal) {
        (Some(status), Some(code), false, false) => {
            let status_value = match status.base10_parse::<u16>() {
                Ok(value) => value,
                Err(error) => {
                    cx.syn_error(error);
                    return None;
                }
            };
            super::args::check_error(cx, status_value, status.span(), &code);
            Some(Answer::Declared {
                status: status_value,
                code: code.value(),
            })
        }
        (None, None, true, false) => Some(Answer::Transparent),
        (None, None, false, true) => Some(Answer::Internal),
        _ => {
            cx.error_spanned_by(
                attr,
                "write `status = …, code = \"…\"` together, or `transparent`, or `internal`",
            );
            None
        }
    }
}

fn expand(input: &DeriveInput, variants: &[(&syn::Variant, Option<Answer>)]) -> TokenStream {
    let name = &input.ident;
    let io = super::server::server_paths(None).io;
    let mut describe = Vec::new();
    let mut arms = Vec::new();
    for (variant, answer) in variants {
        let ident = &variant.ident;
        let span = variant.span();
        let pattern = match &variant.fields {
            Fields::Unit => quote!(#name::#ident),
            Fields::Unnamed(_) => quote!(#name::#ident(..)),
            Fields::Named(_) => quote!(#name::#ident { .. }),
        };
        match answer {
            Some(Answer::Declared { status, code }) => {
                describe.push(quote!(io.error(#status, #code);));
                arms.push(quote! {
                    error @ #pattern => #io::ApiError::new(
                        #io::status(#status),
                        #code,
                        ::std::string::ToString::to_string(&error),
                    )
                });
            }
            Some(Answer::Transparent | Answer::Internal) => {
                let field = variant.fields.iter().next().map(|f| &f.ty);
                let binding = match &variant.fields {
                    Fields::Named(fields) => {
                        let field = fields.named.iter().next().and_then(|f| f.ident.as_ref());
                        quote!(#name::#ident { #field: inner })
                    }
                    _ => quote!(#name::#ident(inner)),
                };
                if matches!(answer, Some(Answer::Transparent)) {
                    describe.push(quote_spanned! {span=>
                        <#field as #io::RouteErrors>::describe(io);
                    });
                    arms.push(quote!(#binding => #io::ApiError::from(inner)));
                } else {
                    arms.push(quote! {
                        #binding => #io::ApiError::internal(::std::string::ToString::to_string(&inner))
                    });
                }
            }
            None => {}
        }
    }
    let span = Span::call_site();
    quote_spanned! {span=>
        #[automatically_derived]
        impl #io::RouteErrors for #name {
            fn describe(io: &mut #io::RouteIo) {
                let _ = &io;
                #(#describe)*
            }
        }

        #[automatically_derived]
        impl ::core::convert::From<#name> for #io::ApiError {
            fn from(error: #name) -> #io::ApiError {
                match error {
                    #(#arms,)*
                }
            }
        }

        #[automatically_derived]
        impl #io::IntoResponse for #name {
            fn into_response(self) -> #io::Response {
                #io::IntoResponse::into_response(#io::ApiError::from(self))
            }
        }
    }
}
