//! The return types resource and prompt adapters may have, checked the way
//! a tool's are: a `const` assertion spanned on the user's type, and a
//! probe that falls back to an inert value so the type is reported once.

use std::fmt;

use super::content::ToolContent;
use super::descriptor::{PromptMessages, ResourceOutcome};
use crate::adapter::{AdapterReturn, Probe};

/// What a resource adapter may return: `Result<Body, Error>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid portos resource return type",
    label = "a resource adapter must return `Result<Body, Error>`",
    note = "Body is a `String` (text), a `ResourceBody`, a `ResourceContents` or a `Vec<ResourceContents>`; Error implements Display (e.g. `portos_core::AdapterError`)"
)]
pub trait ResourceReturn {
    /// The read's outcome: the body as contents, or the `Err` value's text.
    fn into_outcome(self) -> Result<ResourceOutcome, String>;
}

impl<O: ResourceOutput, E: fmt::Display> ResourceReturn for Result<O, E> {
    fn into_outcome(self) -> Result<ResourceOutcome, String> {
        self.map(ResourceOutput::into_resource)
            .map_err(|error| error.to_string())
    }
}

/// What a resource adapter may answer.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource's body",
    label = "a resource adapter answers its body",
    note = "answer a `String` (text), a `ResourceBody` (text or bytes), a `ResourceContents` or a `Vec<ResourceContents>`"
)]
pub trait ResourceOutput {
    /// The body as the read's contents.
    fn into_resource(self) -> ResourceOutcome;
}

/// Text, a body, or contents written whole: each converts as
/// [`ResourceOutcome`]'s `From` says.
macro_rules! resource_outputs {
    ($($body:ty),+) => {
        $(impl ResourceOutput for $body {
            fn into_resource(self) -> ResourceOutcome {
                self.into()
            }
        })+
    };
}

resource_outputs!(
    String,
    super::content::ResourceBody,
    super::content::ResourceContents,
    Vec<super::content::ResourceContents>
);

/// What a prompt adapter may return: `Result<Messages, Error>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid portos prompt return type",
    label = "a prompt adapter must return `Result<Messages, Error>`",
    note = "Messages is a `Vec<PromptMessage>` or a `PromptMessages`; Error implements Display (e.g. `portos_core::AdapterError`)"
)]
pub trait PromptReturn {
    /// The prompt's messages, or the `Err` value's text.
    fn into_messages(self) -> Result<PromptMessages, String>;
}

impl<O: PromptOutput, E: fmt::Display> PromptReturn for Result<O, E> {
    fn into_messages(self) -> Result<PromptMessages, String> {
        self.map(PromptOutput::into_prompt)
            .map_err(|error| error.to_string())
    }
}

/// What a prompt adapter may answer.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt's messages",
    label = "a prompt adapter answers its messages",
    note = "answer a `Vec<PromptMessage>`, or a `PromptMessages` (with a description)"
)]
pub trait PromptOutput {
    /// The answer as the prompt's messages.
    fn into_prompt(self) -> PromptMessages;
}

impl PromptOutput for PromptMessages {
    fn into_prompt(self) -> PromptMessages {
        self
    }
}

impl PromptOutput for Vec<super::descriptor::PromptMessage> {
    fn into_prompt(self) -> PromptMessages {
        self.into()
    }
}

/// Checks that `R` is a `Result` a resource adapter may return
/// ([`ResourceReturn`]).
pub const fn assert_resource_return<R: ResourceReturn>() {}
/// Checks that `R` is a `Result` a prompt adapter may return
/// ([`PromptReturn`]).
pub const fn assert_prompt_return<R: PromptReturn>() {}

/// Chosen when the return type fits.
pub trait ResourceReturnProbe<R> {
    /// The adapter's return value as the read's outcome.
    fn resource_outcome(&self, value: R) -> Result<ResourceOutcome, String>;
}

impl<R: ResourceReturn> ResourceReturnProbe<R> for Probe<R> {
    fn resource_outcome(&self, value: R) -> Result<ResourceOutcome, String> {
        value.into_outcome()
    }
}

/// The fallback for a return type that does not fit (never runs: the
/// assertion has failed the build).
pub trait ResourceReturnFallback<R> {
    /// Always an error; never runs, the build has failed.
    fn resource_outcome(&self, value: R) -> Result<ResourceOutcome, String>;
}

impl<R> ResourceReturnFallback<R> for &Probe<R> {
    fn resource_outcome(&self, _value: R) -> Result<ResourceOutcome, String> {
        Err("the resource's return type does not fit".to_owned())
    }
}

/// Chosen when the return type fits.
pub trait PromptReturnProbe<R> {
    /// The adapter's return value as the prompt's messages.
    fn prompt_messages(&self, value: R) -> Result<PromptMessages, String>;
}

impl<R: PromptReturn> PromptReturnProbe<R> for Probe<R> {
    fn prompt_messages(&self, value: R) -> Result<PromptMessages, String> {
        value.into_messages()
    }
}

/// The fallback for a return type that does not fit (never runs: the
/// assertion has failed the build).
pub trait PromptReturnFallback<R> {
    /// Always an error; never runs, the build has failed.
    fn prompt_messages(&self, value: R) -> Result<PromptMessages, String>;
}

impl<R> PromptReturnFallback<R> for &Probe<R> {
    fn prompt_messages(&self, _value: R) -> Result<PromptMessages, String> {
        Err("the prompt's return type does not fit".to_owned())
    }
}

/// Chosen when a tool adapter returns [`ToolContent`]: its output is
/// content items (MCP answers them as the call's `content`).
pub trait ContentProbe {
    /// `true`: the output is content items.
    fn content_output(&self) -> bool;
}

impl<R: AdapterReturn<Output = ToolContent>> ContentProbe for Probe<R> {
    fn content_output(&self) -> bool {
        true
    }
}

/// Any other output: structured.
pub trait ContentFallback {
    /// `false`: the output is structured JSON.
    fn content_output(&self) -> bool;
}

impl<R> ContentFallback for &Probe<R> {
    fn content_output(&self) -> bool {
        false
    }
}
