//! The adapter function, modelled: which parameter is the context, which is the
//! typed input, and what it returns.

use syn::{FnArg, GenericArgument, GenericParam, ItemFn, PathArguments, ReturnType, Type};

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
    pub output: Option<Output<'a>>,
}

/// The written return type.
pub struct Output<'a> {
    pub ty: &'a Type,
    /// `(O, E)` when written as `Result<O, E>`, so each is checked under its
    /// own token; `None` for aliases such as `io::Result<T>`.
    pub ok_err: Option<(&'a Type, &'a Type)>,
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
                    "#[portos_tool] functions cannot be generic (found `{}`): the registry stores one concrete function per tool; use concrete types",
                    generic_name(param)
                ),
            );
        } else if let Some(clause) = &sig.generics.where_clause {
            cx.error_spanned_by(
                clause,
                "#[portos_tool] functions cannot have a where clause: use concrete types",
            );
        }
        if let Some(variadic) = &sig.variadic {
            cx.error_spanned_by(variadic, "#[portos_tool] functions cannot be variadic");
        }
        if let Some(abi) = &sig.abi {
            cx.error_spanned_by(abi, "#[portos_tool] functions cannot declare an ABI");
        }

        let mut params = Vec::new();
        let mut input = None;
        let mut has_context = false;
        for arg in &sig.inputs {
            match arg {
                FnArg::Receiver(receiver) => cx.error_spanned_by(
                    receiver,
                    "#[portos_tool] must be a free function, not a method: remove `self`",
                ),
                FnArg::Typed(pat_type) => {
                    let ty = &*pat_type.ty;
                    match context_kind(ty) {
                        Some(_) if has_context => cx.error_spanned_by(
                            ty,
                            "a tool adapter takes the `ToolContext` at most once: remove this argument",
                        ),
                        Some(kind) => {
                            has_context = true;
                            params.push(kind);
                        }
                        None if is_mut_context(ty) => cx.error_spanned_by(
                            ty,
                            "a tool adapter cannot take `&mut ToolContext`: take `&ToolContext` or `ToolContext`",
                        ),
                        None if input.is_some() => cx.error_spanned_by(
                            ty,
                            "a tool adapter takes at most one input argument besides `&ToolContext`: \
                             put every field in one struct deriving Deserialize, Serialize and JsonSchema",
                        ),
                        None => {
                            reject_impl_trait(cx, ty, "input");
                            input = Some(ty);
                            params.push(ParamKind::Input);
                        }
                    }
                }
            }
        }

        let output = match &sig.output {
            ReturnType::Type(_, ty) => {
                reject_impl_trait(cx, ty, "return");
                Some(Output {
                    ty,
                    ok_err: result_arguments(ty),
                })
            }
            ReturnType::Default => {
                // Spans `async fn name(...)`: the place the return type goes.
                cx.error_spanned_by(
                    sig,
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

/// The registry shares the context, so `&mut` is a mistake worth naming
/// rather than reporting `&mut ToolContext` as an unfit input type.
fn is_mut_context(ty: &Type) -> bool {
    matches!(ty, Type::Reference(reference)
        if reference.mutability.is_some() && is_context_path(&reference.elem))
}

/// The generated code names the type, which `impl Trait` cannot be.
fn reject_impl_trait(cx: &Ctxt, ty: &Type, what: &str) {
    if let Type::ImplTrait(_) = ty {
        cx.error_spanned_by(
            ty,
            format!("a tool adapter needs a concrete {what} type, not `impl Trait`: name the type"),
        );
    }
}

/// `O` and `E` of a type written `Result<O, E>` (any path ending in `Result`).
fn result_arguments(ty: &Type) -> Option<(&Type, &Type)> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    let PathArguments::AngleBracketed(arguments) = &segment.arguments else {
        return None;
    };
    if path.qself.is_some() || segment.ident != "Result" || arguments.args.len() != 2 {
        return None;
    }
    match (&arguments.args[0], &arguments.args[1]) {
        (GenericArgument::Type(ok), GenericArgument::Type(err)) => Some((ok, err)),
        _ => None,
    }
}

/// `T`, `'a` or `N`: the parameter's name without its bounds.
fn generic_name(param: &GenericParam) -> String {
    match param {
        GenericParam::Type(param) => param.ident.to_string(),
        GenericParam::Lifetime(param) => param.lifetime.to_string(),
        GenericParam::Const(param) => param.ident.to_string(),
    }
}

fn is_context_path(ty: &Type) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            path.path.segments.last().is_some_and(|segment| {
                segment.ident == "ToolContext" && segment.arguments.is_none()
            })
        }
        Type::Paren(inner) => is_context_path(&inner.elem),
        _ => false,
    }
}
