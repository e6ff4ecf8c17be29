//! Shared helpers for the black-box tests in `tests/tests/`.
//!
//! Linking `portos_extra_tools` here proves a tool crate contributes to the
//! link-time list only when it is named (DESIGN "Link-time registration").

portos_core::link_tools!(portos_extra_tools);
