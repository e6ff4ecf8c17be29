//! The framework's words and naming rules come from `portos-vocabulary`, the
//! one list portos-core's enums are generated from.

pub(crate) use portos_vocabulary::{
    CONFIRMATIONS, EVENT_DIRECTIONS, HTTP_METHODS, HTTP_TOOL_EFFECTS, PROVIDER_NAME_MAX_CHARS,
    ROUTE_ACCESS, ROUTE_EFFECTS, SIDE_EFFECTS, TOOL_PRIVACY, Term, callable_name_problem,
    capability_name_problem, find, intent_group_problem, is_callable_name, is_provider_name, names,
    provider_name_for, provider_name_problem, scope_name_problem,
};
