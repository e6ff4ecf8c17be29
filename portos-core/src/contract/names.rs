//! The contract's naming rules, from `portos-vocabulary`: the macros check
//! the same functions at compile time.

pub use portos_vocabulary::{is_callable_name, is_provider_name, provider_name_for};
