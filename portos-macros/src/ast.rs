//! The adapter function, modelled: which parameter is the context, which is the
//! typed input, which are server state (`Shared<T>`), and what it returns.

use quote::ToTokens;
use syn::{FnArg, GenericArgument, GenericParam, ItemFn, PathArguments, ReturnType, Type};

use crate::ctxt::Ctxt;

pub(crate) enum ParamKind {
    /// `ctx: &ToolContext`
    ContextRef,
    /// `ctx: ToolContext`
    ContextOwned,
    /// The typed arguments.
    Input,
    /// `name: Shared<T>`: the server's value of `T`, the n-th state need.
    State(usize),
}

/// Which attribute models the function: its messages name it.
pub(crate) struct Kind {
    /// `#[portos_tool]`
    pub attr: &'static str,
    /// `a tool adapter`
    pub noun: &'static str,
    /// `tool`: what the registry stores one of per function.
    pub what: &'static str,
    /// What a missing return type is told to write.
    pub returns: &'static str,
}

pub(crate) const TOOL: Kind = Kind {
    attr: "#[portos_tool]",
    noun: "a tool adapter",
    what: "tool",
    returns: "a tool adapter must return `Result<Output, Error>`: add `-> Result<YourOutput, YourError>`",
};

pub(crate) struct Adapter<'a> {
    pub item: &'a ItemFn,
    pub params: Vec<ParamKind>,
    pub input: Option<&'a Type>,
    /// The `T` of each `Shared<T>` parameter, in order, each once.
    pub state: Vec<&'a Type>,
    pub output: Option<Output<'a>>,
}

/// The written return type.
pub(crate) struct Output<'a> {
    pub ty: &'a Type,
    /// `(O, E)` when written as `Result<O, E>`, so each is checked under its
    /// own token; `None` for aliases such as `io::Result<T>`.
    pub ok_err: Option<(&'a Type, &'a Type)>,
}

impl<'a> Adapter<'a> {
    /// Models `item`, recording each signature mistake under its token.
    pub(crate) fn from_item(cx: &Ctxt, item: &'a ItemFn, kind: &Kind) -> Adapter<'a> {
        let sig = &item.sig;
        let Kind { attr, noun, .. } = kind;
        if sig.asyncness.is_none() {
            cx.error_spanned_by(
                sig.fn_token,
                format!(
                    "{attr} needs an `async fn`: write `async fn` so the registry can await it"
                ),
            );
        }
        if let Some(param) = sig.generics.params.first() {
            cx.error_spanned_by(
                &sig.generics,
                format!(
                    "{attr} functions cannot be generic (found `{}`): the registry stores one concrete function per {}; use concrete types",
                    generic_name(param),
                    kind.what
                ),
            );
        } else if let Some(clause) = &sig.generics.where_clause {
            cx.error_spanned_by(
                clause,
                format!("{attr} functions cannot have a where clause: use concrete types"),
            );
        }
        if let Some(variadic) = &sig.variadic {
            cx.error_spanned_by(variadic, format!("{attr} functions cannot be variadic"));
        }
        if let Some(abi) = &sig.abi {
            cx.error_spanned_by(abi, format!("{attr} functions cannot declare an ABI"));
        }

        let mut params = Vec::new();
        let mut input = None;
        let mut state: Vec<&Type> = Vec::new();
        let mut has_context = false;
        for arg in &sig.inputs {
            match arg {
                FnArg::Receiver(receiver) => cx.error_spanned_by(
                    receiver,
                    format!("{attr} must be a free function, not a method: remove `self`"),
                ),
                FnArg::Typed(pat_type) => {
                    let ty = &*pat_type.ty;
                    match context_kind(ty) {
                        Some(_) if has_context => cx.error_spanned_by(
                            ty,
                            format!("{noun} takes the `ToolContext` at most once: remove this argument"),
                        ),
                        Some(kind) => {
                            has_context = true;
                            params.push(kind);
                        }
                        None if is_mut_context(ty) => cx.error_spanned_by(
                            ty,
                            format!("{noun} cannot take `&mut ToolContext`: take `&ToolContext` or `ToolContext`"),
                        ),
                        None => match shared_type(ty) {
                            Some(inner) => {
                                let spelled = spelling(inner);
                                if state.iter().any(|seen| spelling(seen) == spelled) {
                                    cx.error_spanned_by(
                                        ty,
                                        format!("`Shared<{spelled}>` is taken twice: take it once"),
                                    );
                                }
                                params.push(ParamKind::State(state.len()));
                                state.push(inner);
                            }
                            None if input.is_some() => cx.error_spanned_by(
                                ty,
                                format!("{noun} takes at most one input argument besides `&ToolContext` \
                                 and its `Shared<T>` state: put every field in one struct deriving \
                                 Deserialize, Serialize and JsonSchema"),
                            ),
                            None => {
                                reject_impl_trait(cx, ty, "input", noun);
                                reject_non_object(cx, ty);
                                input = Some(ty);
                                params.push(ParamKind::Input);
                            }
                        },
                    }
                }
            }
        }

        let output = match &sig.output {
            ReturnType::Type(_, ty) => {
                reject_impl_trait(cx, ty, "return", noun);
                Some(Output {
                    ty,
                    ok_err: result_arguments(ty),
                })
            }
            ReturnType::Default => {
                // Spans `async fn name(...)`: the place the return type goes.
                cx.error_spanned_by(sig, kind.returns);
                None
            }
        };

        Adapter {
            item,
            params,
            input,
            state,
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
fn reject_impl_trait(cx: &Ctxt, ty: &Type, what: &str, noun: &str) {
    if let Type::ImplTrait(_) = ty {
        cx.error_spanned_by(
            ty,
            format!("{noun} needs a concrete {what} type, not `impl Trait`: name the type"),
        );
    }
}

/// `T` of a parameter written `Shared<T>` (any path ending in `Shared`).
fn shared_type(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    let PathArguments::AngleBracketed(arguments) = &segment.arguments else {
        return None;
    };
    match (segment.ident == "Shared", arguments.args.first()) {
        (true, Some(GenericArgument::Type(inner))) if arguments.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// A type as written, without the spaces token printing puts between
/// punctuation (`Arc<Mutex<u8>>`, not `Arc < Mutex < u8 > >`).
fn spelling(ty: &syn::Type) -> String {
    let printed = ty.to_token_stream().to_string();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let chars: Vec<char> = printed.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|&(at, &c)| {
            c != ' '
                || (word(at.checked_sub(1).map(|i| chars[i])) && word(chars.get(at + 1).copied()))
        })
        .map(|(_, &c)| c)
        .collect()
}

/// Every tool takes a JSON object, so a type that can only be some other
/// JSON value is refused where it is written, with the shape that fits
/// (a type this cannot see, such as a newtype, is refused at start-up).
fn reject_non_object(cx: &Ctxt, ty: &Type) {
    let Some(what) = non_object(ty) else { return };
    cx.error_spanned_by(
        ty,
        format!(
            "a tool's input is a JSON object, and {what} is not one: put the value in a field, \
             e.g. `struct Args {{ value: {} }}` deriving Deserialize, Serialize and JsonSchema",
            spelling(ty)
        ),
    );
}

/// What the type is, when it is plainly not a JSON object.
fn non_object(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Reference(_) => Some("a reference"),
        Type::Tuple(tuple) if tuple.elems.is_empty() => Some("`()`"),
        Type::Tuple(_) => Some("a tuple (a JSON array)"),
        Type::Array(_) | Type::Slice(_) => Some("an array"),
        Type::Paren(inner) => non_object(&inner.elem),
        Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?.ident.to_string();
            match last.as_str() {
                "String" | "str" | "char" | "Cow" => Some("a string"),
                "bool" => Some("a boolean"),
                "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
                | "u128" | "usize" | "f32" | "f64" => Some("a number"),
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "IndexSet" => Some("an array"),
                "Option" => Some("an `Option` (which may be null)"),
                _ => None,
            }
        }
        _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_is_spelled_as_written() {
        for written in [
            "Store",
            "crate::store::Store",
            "Arc<Mutex<u8>>",
            "&'static str",
            "Box<dyn Fn() + Send>",
        ] {
            let ty: syn::Type = syn::parse_str(written).expect("a type");
            assert_eq!(spelling(&ty), written.replace(" + ", "+"));
        }
    }
}
