//! The link-time lists: every tool, route and event compiled into the
//! binary. Core reads them only through [`tools`], [`routes`] and
//! [`events`], and generated code writes to them only through the
//! `register!` macro of `__private::v1`, so the back end is one choice made
//! here:
//!
//! - by default, linkme's distributed slices (link sections, no code at
//!   start-up);
//! - with the `inventory-collector` feature, the `inventory` crate (a
//!   constructor per entry, run before `main`), for targets whose linker
//!   linkme does not support.
//!
//! Either way a crate that is only a Cargo dependency contributes nothing:
//! name it with [`link_tools!`](crate::link_tools).

use crate::descriptor::{EventSpec, RouteEntry, ToolDescriptor};
use crate::primitives::{PromptDescriptor, ResourceDescriptor};

// linkme: one distributed slice per list. Written out rather than generated
// by a local macro: linkme's declaration emits a `macro_export` macro that
// the entries' attribute reaches by path, and a macro-expanded one could not
// be reached that way from inside this crate.

/// Every `#[portos_tool]` linked into the binary (linkme back end only;
/// [`tools`] reads it under every back end).
#[cfg(not(feature = "inventory-collector"))]
#[linkme::distributed_slice]
pub static TOOLS: [ToolDescriptor];

/// Every `#[portos_route]` linked into the binary (linkme back end only).
#[cfg(not(feature = "inventory-collector"))]
#[linkme::distributed_slice]
pub static ROUTES: [RouteEntry];

/// Every `#[portos_event]` linked into the binary (linkme back end only).
#[cfg(not(feature = "inventory-collector"))]
#[linkme::distributed_slice]
pub static EVENTS: [EventSpec];

/// Every `#[portos_resource]` linked into the binary (linkme back end only).
#[cfg(not(feature = "inventory-collector"))]
#[linkme::distributed_slice]
pub static RESOURCES: [ResourceDescriptor];

/// Every `#[portos_prompt]` linked into the binary (linkme back end only).
#[cfg(not(feature = "inventory-collector"))]
#[linkme::distributed_slice]
pub static PROMPTS: [PromptDescriptor];

// inventory: one registry per collected type.
#[cfg(feature = "inventory-collector")]
inventory::collect!(ToolDescriptor);
#[cfg(feature = "inventory-collector")]
inventory::collect!(RouteEntry);
#[cfg(feature = "inventory-collector")]
inventory::collect!(EventSpec);
#[cfg(feature = "inventory-collector")]
inventory::collect!(ResourceDescriptor);
#[cfg(feature = "inventory-collector")]
inventory::collect!(PromptDescriptor);

/// Which back end collects the lists: `"linkme"` or `"inventory"`.
pub const COLLECTOR: &str = if cfg!(feature = "inventory-collector") {
    "inventory"
} else {
    "linkme"
};

/// Every tool linked into the binary, in no particular order. The
/// [`Registry`](crate::Registry) checks and orders them once at start-up.
pub fn tools() -> impl Iterator<Item = &'static ToolDescriptor> + Clone {
    #[cfg(not(feature = "inventory-collector"))]
    return TOOLS.iter();
    #[cfg(feature = "inventory-collector")]
    return inventory::iter::<ToolDescriptor>.into_iter();
}

/// Every route linked into the binary, in no particular order (the
/// [`Inventory`](crate::inventory::Inventory) sorts them).
pub fn routes() -> impl Iterator<Item = &'static RouteEntry> + Clone {
    #[cfg(not(feature = "inventory-collector"))]
    return ROUTES.iter();
    #[cfg(feature = "inventory-collector")]
    return inventory::iter::<RouteEntry>.into_iter();
}

/// Every event linked into the binary, in no particular order (the
/// [`EventInventory`](crate::inventory::EventInventory) sorts them).
pub fn events() -> impl Iterator<Item = &'static EventSpec> + Clone {
    #[cfg(not(feature = "inventory-collector"))]
    return EVENTS.iter();
    #[cfg(feature = "inventory-collector")]
    return inventory::iter::<EventSpec>.into_iter();
}

/// Every resource and resource template linked into the binary, in no
/// particular order (the registry sorts them).
pub fn resources() -> impl Iterator<Item = &'static ResourceDescriptor> + Clone {
    #[cfg(not(feature = "inventory-collector"))]
    return RESOURCES.iter();
    #[cfg(feature = "inventory-collector")]
    return inventory::iter::<ResourceDescriptor>.into_iter();
}

/// Every prompt linked into the binary, in no particular order.
pub fn prompts() -> impl Iterator<Item = &'static PromptDescriptor> + Clone {
    #[cfg(not(feature = "inventory-collector"))]
    return PROMPTS.iter();
    #[cfg(feature = "inventory-collector")]
    return inventory::iter::<PromptDescriptor>.into_iter();
}

/// `register!(TOOLS, NAME: Type = value)`: adds one entry to a list. The
/// generated code of the three attributes calls it through
/// `__private::v1::register`, so which back end collects it is decided by
/// portos-core's features, not by the crate that declares the entry.
#[cfg(not(feature = "inventory-collector"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __portos_register {
    ($list:ident, $name:ident: $ty:ty = $value:expr) => {
        #[$crate::__private::v1::linkme::distributed_slice($crate::__private::v1::$list)]
        #[linkme(crate = $crate::__private::v1::linkme)]
        static $name: $ty = $value;
    };
}

#[cfg(feature = "inventory-collector")]
#[doc(hidden)]
#[macro_export]
macro_rules! __portos_register {
    ($list:ident, $name:ident: $ty:ty = $value:expr) => {
        // The type is written out so a wrong value is reported as such, not
        // as a missing `Collect` impl.
        $crate::__private::v1::inventory::submit! {
            {
                const $name: $ty = $value;
                $name
            }
        }
    };
}
