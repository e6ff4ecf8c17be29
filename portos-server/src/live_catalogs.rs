//! [`LiveCatalogs`]: the catalogs the server serves, for the routes and
//! tools that read a catalog of their own principal (an in-process agent
//! offered the tools it was granted). The catalogs are built from the
//! registry, which is built from the state, so the state cannot hold them
//! yet: the runtime puts an empty handle in the state and fills it once the
//! catalogs exist, as it does for [`crate::LiveRegistry`].

use std::sync::{Arc, OnceLock, Weak};

use portos_core::Catalogs;

/// A late-bound, weak handle on the served catalogs (weak: the catalogs
/// own the registry, which owns its state, so a strong pointer back would
/// keep all three alive forever).
///
/// ```
/// use portos_server::LiveCatalogs;
///
/// // Empty until the server that holds it is built.
/// assert!(LiveCatalogs::default().get().is_none());
/// ```
#[derive(Clone, Debug, Default)]
pub struct LiveCatalogs(Arc<OnceLock<Weak<Catalogs>>>);

impl LiveCatalogs {
    /// The catalogs, once bound and while the server lives.
    pub fn get(&self) -> Option<Arc<Catalogs>> {
        self.0.get().and_then(Weak::upgrade)
    }

    /// Binds the handle in the registry's state to `catalogs`; the runtime
    /// does it for the server it builds. False when the state has no
    /// handle or it was bound already.
    pub(crate) fn bind(catalogs: &Arc<Catalogs>) -> bool {
        catalogs
            .registry()
            .state()
            .get::<LiveCatalogs>()
            .is_some_and(|handle| handle.0.set(Arc::downgrade(catalogs)).is_ok())
    }
}
