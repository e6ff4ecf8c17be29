//! `#[portos_event]` on a payload type: declares a Socket.IO event (name,
//! direction, summary) in portos_core's link-time event list, and lets the
//! server emit the type by its event name.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::parse::Parser;
use syn::{DeriveInput, LitStr};

use crate::attr::Spanned;
use crate::ctxt::Ctxt;

/// `both` is the attribute's shorthand for the two directions of the table.
const BOTH: &str = "both";

fn directions() -> Vec<&'static str> {
    let mut all = crate::names::names(crate::names::EVENT_DIRECTIONS);
    all.push(BOTH);
    all
}

pub(crate) fn portos_event(args: TokenStream, item: &TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(item.clone()) {
        Ok(input) => input,
        Err(error) => {
            let error = syn::Error::new(
                error.span(),
                "#[portos_event] goes on the event's payload struct or enum",
            )
            .to_compile_error();
            return quote!(#error #item);
        }
    };
    let cx = Ctxt::new();
    let mut name: Option<Spanned<String>> = None;
    let mut direction: Option<Spanned<String>> = None;
    let mut summary: Option<Spanned<String>> = None;
    let mut mount: Option<Spanned<String>> = None;
    let mut krate: Option<syn::Path> = None;
    let parser = syn::meta::parser(|meta| {
        let key = meta.path.to_token_stream().to_string();
        if key == "crate" {
            if krate.is_some() {
                cx.error_spanned_by(&meta.path, "duplicate portos_event key `crate`: remove it");
            }
            krate = crate::krate::parse_or_skip(&cx, &meta)?;
            return Ok(());
        }
        let slot = match key.as_str() {
            "name" => &mut name,
            "direction" => &mut direction,
            "summary" => &mut summary,
            "mount" => &mut mount,
            other => {
                return Err(meta.error(format!(
                    "unknown portos_event key `{other}`; expected one of: name, direction, summary, mount, crate"
                )));
            }
        };
        let lit: LitStr = meta.value()?.parse()?;
        if slot.is_some() {
            cx.error_at(
                lit.span(),
                format!("duplicate portos_event key `{key}`: remove it"),
            );
        }
        *slot = Some(Spanned {
            value: lit.value(),
            span: lit.span(),
        });
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    let ident_span = input.ident.span();
    match &name {
        Some(n) if n.value.is_empty() || n.value.chars().any(char::is_whitespace) => {
            cx.error_at(
                n.span,
                "an event name is non-empty and has no whitespace, e.g. \"lab:host-added\"",
            );
        }
        Some(_) => {}
        None => cx.error_at(
            ident_span,
            "#[portos_event] needs `name = \"domain:event\"`",
        ),
    }
    if let Some(mount) = &mount
        && let Some(problem) = crate::route::mount_problem(&mount.value)
    {
        cx.error_at(mount.span, problem);
    }
    match &direction {
        Some(d) if !directions().contains(&d.value.as_str()) => cx.error_at(
            d.span,
            format!("unknown direction `{}`; expected one of: {}", d.value, directions().join(", ")),
        ),
        Some(_) => {}
        None => cx.error_at(
            ident_span,
            "#[portos_event] needs `direction = \"server-to-client\"` (or \"client-to-server\", \"both\")",
        ),
    }
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "#[portos_event] payload types cannot be generic",
        );
    }
    let summary = summary
        .map(|s| s.value)
        .unwrap_or_else(|| crate::doc::doc_text(&input.attrs));
    if summary.is_empty() {
        cx.error_at(
            ident_span,
            "#[portos_event] needs a summary: a doc comment or `summary = \"...\"`",
        );
    }
    if let Err(error) = cx.check() {
        let errors = error.to_compile_error();
        return quote!(#errors #input);
    }

    let private = crate::krate::private_path(krate.as_ref());
    let ty = &input.ident;
    let name = name.map(|n| n.value).unwrap_or_default();
    let mount = match mount {
        Some(mount) => {
            let mount = mount.value;
            quote!(::core::option::Option::Some(#mount))
        }
        None => quote!(::core::option::Option::None),
    };
    // Checked above: `both` (every direction, in the table's order) or one
    // word of the table.
    let chosen = direction.as_ref().map(|d| d.value.as_str());
    let variants = crate::names::EVENT_DIRECTIONS
        .iter()
        .filter(|term| chosen == Some(BOTH) || chosen == Some(term.name))
        .map(|term| proc_macro2::Ident::new(term.variant, Span::call_site()));
    let directions = quote!(&[#(#private::Direction::#variants),*]);
    let unit = matches!(&input.data, syn::Data::Struct(s) if matches!(s.fields, syn::Fields::Unit));
    let payload = if unit {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(
            #private::schemars::SchemaGenerator::subschema_for::<#ty>
                as #private::SchemaFn
        ))
    };
    let static_name = format_ident!(
        "__PORTOS_EVENT_{}",
        ty.to_string().to_ascii_uppercase(),
        span = Span::call_site()
    );
    quote! {
        #input

        impl #private::PortosEvent for #ty {
            const NAME: &'static str = #name;
            const MOUNT: ::core::option::Option<&'static str> = #mount;
        }

        #[doc(hidden)]
        const _: () = {
            #private::register!(EVENTS, #static_name: #private::EventSpec = #private::EventSpec {
                name: #name,
                mount: #mount,
                place: ::core::option::Option::None,
                directions: #directions,
                summary: #summary,
                payload: #payload,
                location: #private::SourceLocation {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    column: ::core::column!(),
                },
            });
        };
    }
}
