//! Error accumulator: every mistake is recorded under its own span and all of
//! them are reported in one compile.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

#[derive(Default)]
pub(crate) struct Ctxt {
    errors: RefCell<Option<syn::Error>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(None),
        }
    }

    /// Records an error spanning `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at `span`.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    pub(crate) fn syn_error(&self, error: syn::Error) {
        let mut slot = self.errors.borrow_mut();
        match slot.as_mut() {
            Some(existing) => existing.combine(error),
            None => *slot = Some(error),
        }
    }

    /// Finishes collecting: `Ok` when nothing was recorded.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        match self.errors.into_inner() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
