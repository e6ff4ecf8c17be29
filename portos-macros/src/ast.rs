//! The adapter function, modelled: which parameter is the context, which is the
//! typed input, and what it returns.

use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, ReturnType, Type};

use crate::ctxt::Ctxt;

pub enum ParamKind {
    /// `ctx: &ToolContext`
    ContextRef,
    /// `ctx: ToolContext`
    ContextOwned,
    /// The typed arguments.
    Input,
}

pub struct Adapter<'a> {
    pub item: &'a ItemFn,
    pub params: Vec<ParamKind>,
    pub input: Option<&'a Type>,
    pub output: Option<&'a Type>,
}

impl<'a> Adapter<'a> {
    /// Models `item`, recording each signature mistake under its token.
    pub fn from_item(cx: &Ctxt, item: &'a ItemFn) -> Adapter<'a> {
        let sig = &item.sig;
        if sig.asyncness.is_none() {
            cx.error_spanned_by(
                sig.fn_token,
                "#[portos_tool] needs an `async fn`: write `async fn` so the registry can await it",
            );
        }
        if let Some(param) = sig.generics.params.first() {
            cx.error_spanned_by(
                &sig.generics,
                format!(
                    "#[portos_tool] functions cannot be generic (found `{}`): the registry stores one concrete function per tool",
                    quote::quote!(#param)
                ),
            );
        } else if let Some(clause) = &sig.generics.where_clause {
            cx.error_spanned_by(clause, "#[portos_tool] functions cannot have a where clause");
        }
        if let Some(variadic) = &sig.variadic {
            cx.error_spanned_by(variadic, "#[portos_tool] functions cannot be variadic");
        }
        if let Some(abi) = &sig.abi {
            cx.error_spanned_by(abi, "#[portos_tool] functions cannot declare an ABI");
        }

        let mut params = Vec::new();
        let mut input = None;
        for arg in &sig.inputs {
            match arg {
                FnArg::Receiver(receiver) => cx.error_spanned_by(
                    receiver,
                    "#[portos_tool] must be a free function, not a method: remove `self`",
                ),
                FnArg::Typed(pat_type) => {
                    let ty = &*pat_type.ty;
                    match context_kind(ty) {
                        Some(kind) => params.push(kind),
                        None if input.is_none() => {
                            input = Some(ty);
                            params.push(ParamKind::Input);
                        }
                        None => cx.error_at(
                            ty.span(),
                            "a tool adapter takes at most one input argument besides `&ToolContext`: \
                             put every field in one struct deriving Deserialize, Serialize and JsonSchema",
                        ),
                    }
                }
            }
        }
        let contexts = params
            .iter()
            .filter(|p| !matches!(p, ParamKind::Input))
            .count();
        if contexts > 1 {
            cx.error_spanned_by(&sig.inputs, "a tool adapter takes the `ToolContext` at most once");
        }

        let output = match &sig.output {
            ReturnType::Type(_, ty) => Some(&**ty),
            ReturnType::Default => {
                cx.error_spanned_by(
                    sig.fn_token,
                    "a tool adapter must return `Result<Output, Error>`: add `-> Result<YourOutput, YourError>`",
                );
                None
            }
        };

        Adapter {
            item,
            params,
            input,
            output,
        }
    }
}

/// `ToolContext` (any path ending in it), by reference or by value.
fn context_kind(ty: &Type) -> Option<ParamKind> {
    match ty {
        Type::Reference(reference) if reference.mutability.is_none() => {
            is_context_path(&reference.elem).then_some(ParamKind::ContextRef)
        }
        other => is_context_path(other).then_some(ParamKind::ContextOwned),
    }
}

fn is_context_path(ty: &Type) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "ToolContext" && segment.arguments.is_none()),
        Type::Paren(inner) => is_context_path(&inner.elem),
        _ => false,
    }
}
