//! Every rule that spans more than one token: vocabulary, naming, defaults and
//! their interplay. Produces the checked model that `expand` emits.

use proc_macro2::Span;

use crate::attr::{Spanned, ToolArgs};
use crate::ctxt::Ctxt;
use crate::names::{self, Term};

/// The checked tool attribute, ready to expand.
pub(crate) struct Tool {
    pub name: String,
    pub version: u32,
    pub description: String,
    pub provider_name: String,
    pub aliases: Vec<String>,
    pub idempotent: bool,
    pub is_async: bool,
    pub long_running: bool,
    pub open_world: bool,
    pub intent_group: Option<String>,
    pub suppress_on_form_fill: bool,
    /// Why the tool is offered unconstrained in the strict formats.
    pub not_strict: Option<String>,
    /// Why a write requires no capability.
    pub unguarded: Option<String>,
    /// What the caller must be able to answer: the variants of
    /// `InputKind` (`Elicitation`, `Sampling`, `Roots`).
    pub requires_client: Vec<&'static str>,
    /// `requires_client = ["tasks"]`: the caller must follow the tool's job
    /// (it is never waited on for a caller that cannot).
    pub requires_tasks: bool,
    /// `ask_first = path`: the function asking a long-running tool's
    /// questions before its job begins.
    pub ask_first: Option<syn::Path>,
    /// The application's words, spelled right and each once: which exist is
    /// the application's vocabulary, checked when the registry is built.
    pub scopes: Vec<String>,
    pub capabilities: Vec<String>,
    /// The variants of `side_effect` and `confirmation`, looked up in the
    /// framework's vocabulary.
    pub variants: Variants,
}

/// The portos-core variant of each checked word (unknown words are already
/// errors and are left out).
#[derive(Default)]
pub(crate) struct Variants {
    pub side_effect: &'static str,
    pub confirmation: &'static str,
}

/// Checks `args`; `doc` is the function's doc comment, `fn_span` points at its
/// name for errors about missing keys (a user token, so rustc adds no "in
/// this macro" note). A key whose value was malformed is not also "missing".
pub(crate) fn check(cx: &Ctxt, args: &ToolArgs, doc: Option<String>, fn_span: Span) -> Tool {
    let missing = |key: &str, message: &str| {
        if !args.is_malformed(key) {
            cx.error_at(fn_span, message);
        }
    };
    let name = match &args.name {
        Some(name) => {
            check_canonical_name(cx, name);
            name.value.clone()
        }
        None => {
            missing(
                "name",
                "#[portos_tool] needs a canonical name: add `name = \"domain.action\"`",
            );
            String::new()
        }
    };

    let version = match &args.version {
        Some(version) if version.value != 1 => {
            cx.error_at(
                version.span,
                format!(
                    "unsupported tool version {}: the contract's only schema version is 1; write `version = 1` or leave it out",
                    version.value
                ),
            );
            1
        }
        _ => 1,
    };

    let description = match (&args.description, doc) {
        (Some(description), _) => {
            let text = collapse_whitespace(&description.value);
            if text.is_empty() {
                cx.error_at(
                    description.span,
                    "the tool description must not be empty: say what the tool does, or remove `description` to use the doc comment",
                );
            }
            text
        }
        (None, Some(doc)) if !doc.trim().is_empty() => collapse_whitespace(&doc),
        (None, _) if !args.is_malformed("description") => {
            cx.error_at(
                fn_span,
                "#[portos_tool] needs a description: write a doc comment on the function or add `description = \"...\"`",
            );
            String::new()
        }
        (None, _) => String::new(),
    };

    let provider_name = match &args.provider_name {
        Some(provider) => {
            if let Some(problem) = names::provider_name_problem(&provider.value) {
                cx.error_at(
                    provider.span,
                    format!("invalid provider_name for OpenAI, Anthropic and MCP: {problem}"),
                );
            }
            provider.value.clone()
        }
        None => derived_provider_name(cx, args.name.as_ref()),
    };

    let aliases = match &args.aliases {
        Some(aliases) => {
            let mut seen = Vec::new();
            for alias in &aliases.value {
                if let Some(problem) = names::callable_name_problem(&alias.value) {
                    cx.error_at(alias.span, format!("invalid alias: {problem}"));
                } else if alias.value == name {
                    cx.error_at(
                        alias.span,
                        "an alias must differ from the canonical name: remove it (the name is always callable)",
                    );
                } else if seen.contains(&alias.value) {
                    cx.error_at(
                        alias.span,
                        format!("duplicate alias `{}`: remove it", alias.value),
                    );
                }
                seen.push(alias.value.clone());
            }
            seen
        }
        // The contract's usual case: the provider name doubles as the alias.
        None => vec![provider_name.clone()],
    };

    let mut variants = Variants::default();
    let scopes = match &args.scopes {
        Some(scopes) => {
            if scopes.value.is_empty() {
                cx.error_at(
                    scopes.span,
                    "a tool needs at least one scope: list who may call it, in the application's words (`scopes = [\"ui\"]`)",
                );
            }
            word_list(cx, &scopes.value, names::scope_name_problem, "scope")
        }
        None => {
            missing(
                "scopes",
                "#[portos_tool] needs `scopes = [...]`: who may call it, in the application's words",
            );
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

    let side_effect = match &args.side_effect {
        Some(side_effect) => {
            vocabulary(cx, side_effect, names::SIDE_EFFECTS, "side_effect");
            side_effect.value.clone()
        }
        None => {
            missing(
                "side_effect",
                &format!(
                    "#[portos_tool] needs `side_effect = \"read\"` (or {})",
                    quoted(&names::SIDE_EFFECTS[1..])
                ),
            );
            "read".to_owned()
        }
    };
    let is_read = side_effect == "read";

    let confirmation = match &args.confirmation {
        Some(confirmation) => {
            vocabulary(cx, confirmation, names::CONFIRMATIONS, "confirmation");
            confirmation.value.clone()
        }
        None if is_read => "none".to_owned(),
        None => "capability-grant".to_owned(),
    };
    let unguarded = check_guarded(cx, args, is_read, &capabilities, fn_span);
    variants.side_effect = variant_of(names::SIDE_EFFECTS, &side_effect);
    variants.confirmation = variant_of(names::CONFIRMATIONS, &confirmation);

    // Which groups exist is the application's choice (checked when its
    // catalogs are built); only the spelling is checked here.
    let intent_group = args.intent_group.as_ref().map(|group| {
        if let Some(problem) = names::intent_group_problem(&group.value) {
            cx.error_at(
                group.span,
                format!("invalid intent_group `{}`: {problem}", group.value),
            );
        }
        group.value.clone()
    });

    Tool {
        name,
        version,
        description,
        provider_name,
        aliases,
        idempotent: args.idempotent.as_ref().map_or(is_read, |flag| flag.value),
        is_async: args.is_async.as_ref().is_some_and(|flag| flag.value),
        long_running: args.long_running.as_ref().is_some_and(|flag| flag.value),
        open_world: args.open_world.as_ref().is_some_and(|flag| flag.value),
        intent_group,
        suppress_on_form_fill: args
            .suppress_on_form_fill
            .as_ref()
            .is_some_and(|flag| flag.value),
        not_strict: args.not_strict.as_ref().map(|reason| {
            if reason.value.trim().is_empty() {
                cx.error_at(
                    reason.span,
                    "not_strict needs a reason: say why the input cannot be strict",
                );
            }
            reason.value.trim().to_owned()
        }),
        unguarded,
        requires_client: requires_client(cx, args),
        requires_tasks: requires_tasks(cx, args),
        ask_first: ask_first(cx, args),
        scopes,
        capabilities,
        variants,
    }
}

/// A side effect that is one of the vocabulary's (an unknown one is already
/// an error; the guard rule then has nothing to say).
fn known_side_effect(args: &ToolArgs) -> bool {
    match &args.side_effect {
        Some(side_effect) => names::find(names::SIDE_EFFECTS, &side_effect.value).is_some(),
        None => !args.is_malformed("side_effect"),
    }
}

/// `requires_client`: each a kind of question a caller answers, or
/// `tasks` (see [`requires_tasks`]), once.
fn requires_client(cx: &Ctxt, args: &ToolArgs) -> Vec<&'static str> {
    const KINDS: [(&str, &str); 3] = [
        ("elicitation", "Elicitation"),
        ("sampling", "Sampling"),
        ("roots", "Roots"),
    ];
    let mut out = Vec::new();
    let mut tasks = false;
    for word in args.requires_client.iter().flat_map(|list| &list.value) {
        if word.value == TASKS {
            if tasks {
                cx.error_at(word.span, "duplicate requires_client `tasks`: remove it");
            }
            tasks = true;
            continue;
        }
        match KINDS.iter().find(|(name, _)| *name == word.value) {
            Some((_, variant)) if out.contains(variant) => cx.error_at(
                word.span,
                format!("duplicate requires_client `{}`: remove it", word.value),
            ),
            Some((_, variant)) => out.push(*variant),
            None => cx.error_at(
                word.span,
                format!(
                    "unknown requires_client `{}`; expected one of: \"elicitation\", \"sampling\", \"roots\", \"tasks\"",
                    word.value
                ),
            ),
        }
    }
    out
}

/// `ask_first`: only a `long_running` tool has a job to begin after its
/// questions (any other tool asks in its own adapter).
fn ask_first(cx: &Ctxt, args: &ToolArgs) -> Option<syn::Path> {
    let path = args.ask_first.as_ref()?;
    let long_running = args.long_running.as_ref().is_some_and(|flag| flag.value);
    if !long_running && !args.is_malformed("long_running") {
        cx.error_at(
            path.span,
            "ask_first is for a `long_running` tool (questions asked before its job begins); any other tool asks in its adapter with `ctx.ask`",
        );
    }
    Some(path.value.clone())
}

/// The word of `requires_client` for a caller that follows jobs.
const TASKS: &str = "tasks";

/// `requires_client = ["tasks"]`: only a `long_running` tool answers with a
/// job a caller could follow.
fn requires_tasks(cx: &Ctxt, args: &ToolArgs) -> bool {
    let Some(word) = args
        .requires_client
        .iter()
        .flat_map(|list| &list.value)
        .find(|word| word.value == TASKS)
    else {
        return false;
    };
    let long_running = args.long_running.as_ref().is_some_and(|flag| flag.value);
    if !long_running && !args.is_malformed("long_running") {
        cx.error_at(
            word.span,
            "requires_client `tasks` is for a `long_running` tool: only a job can be followed as a task",
        );
    }
    true
}

/// A tool that changes anything must name the capability that guards it,
/// or say why any principal of its scopes may run it: a write left open by
/// forgetting `capabilities` is the mistake this rule exists for.
fn check_guarded(
    cx: &Ctxt,
    args: &ToolArgs,
    is_read: bool,
    capabilities: &[String],
    fn_span: Span,
) -> Option<String> {
    let unguarded = args.unguarded.as_ref();
    match unguarded {
        None if !is_read
            && capabilities.is_empty()
            && known_side_effect(args)
            && !args.is_malformed("capabilities")
            && !args.is_malformed("unguarded") =>
        {
            let span = args.side_effect.as_ref().map_or(fn_span, |s| s.span);
            cx.error_at(
                span,
                "a tool that is not a read must name the capability that guards it: add `capabilities = [\"...\"]` (a capability of the application's vocabulary), or `unguarded = \"why any caller may run it\"` to leave it open on purpose",
            );
            None
        }
        None => None,
        Some(reason) if reason.value.trim().is_empty() => {
            cx.error_at(
                reason.span,
                "`unguarded` needs a reason: say why any caller may run this tool",
            );
            None
        }
        Some(reason) if is_read => {
            cx.error_at(
                reason.span,
                "`unguarded` is for tools that change something; a read needs no reason: remove it",
            );
            None
        }
        Some(reason) if !capabilities.is_empty() => {
            cx.error_at(
                reason.span,
                "this tool requires a capability, so it is guarded: remove `unguarded`",
            );
            None
        }
        Some(reason) => Some(collapse_whitespace(&reason.value)),
    }
}

fn check_canonical_name(cx: &Ctxt, name: &Spanned<String>) {
    let value = &name.value;
    if value.trim() != value {
        cx.error_at(
            name.span,
            "the tool name must not have leading or trailing whitespace: remove it",
        );
    } else if let Some(problem) = names::callable_name_problem(value) {
        cx.error_at(name.span, format!("invalid tool name: {problem}"));
    }
}

/// The contract's default provider name. When a valid name derives one that
/// is too long, the error goes under the name: that is what produced it.
fn derived_provider_name(cx: &Ctxt, name: Option<&Spanned<String>>) -> String {
    let Some(name) = name else {
        return String::new();
    };
    let derived = names::provider_name_for(&name.value);
    if names::is_callable_name(&name.value) && !names::is_provider_name(&derived) {
        cx.error_at(
            name.span,
            format!(
                "the provider name derived from this name, `{derived}`, is {} characters long \
                 (at most {} for OpenAI, Anthropic and MCP): add a shorter `provider_name = \"...\"`",
                derived.len(),
                names::PROVIDER_NAME_MAX_CHARS
            ),
        );
    }
    derived
}

/// The variant of a word; the empty string for an unknown word (already an
/// error, so nothing is expanded).
fn variant_of(terms: &[Term], name: &str) -> &'static str {
    names::find(terms, name).map_or("", |term| term.variant)
}

fn vocabulary(cx: &Ctxt, value: &Spanned<String>, allowed: &[Term], what: &str) {
    if names::find(allowed, &value.value).is_none() {
        cx.error_at(
            value.span,
            format!(
                "unknown {what} `{}`; expected one of: {}",
                value.value,
                quoted(allowed)
            ),
        );
    }
}

/// The application's words of one key, each spelled by its rule and listed
/// once; whether the application declares them is the registry build's
/// check (the vocabulary lives in another crate).
pub(crate) fn word_list(
    cx: &Ctxt,
    values: &[Spanned<String>],
    problem: fn(&str) -> Option<String>,
    what: &str,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for value in values {
        if let Some(problem) = problem(&value.value) {
            cx.error_at(
                value.span,
                format!("invalid {what} `{}`: {problem}", value.value),
            );
        } else if out.contains(&value.value) {
            cx.error_at(
                value.span,
                format!("duplicate {what} `{}`: remove it", value.value),
            );
        } else {
            out.push(value.value.clone());
        }
    }
    out
}

fn quoted(values: &[Term]) -> String {
    values
        .iter()
        .map(|v| format!("\"{}\"", v.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
