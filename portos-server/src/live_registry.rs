//! [`LiveRegistry`]: the registry a tool is served in, for the few tools
//! that read the catalog they run in (a saved recipe is checked against the
//! live catalog when it is written). The registry is built from the state,
//! so the state cannot hold it yet: the runtime puts an empty handle in the
//! state of every registry it builds and fills it once the registry exists.

use std::sync::{Arc, OnceLock, Weak};

use portos_core::Registry;

/// A late-bound, weak handle on the registry (weak: the registry owns its
/// state, and a strong pointer back would keep both alive forever).
#[derive(Clone, Debug, Default)]
pub struct LiveRegistry(Arc<OnceLock<Weak<Registry>>>);

impl LiveRegistry {
    /// The registry, once bound and while it is alive.
    pub fn get(&self) -> Option<Arc<Registry>> {
        self.0.get().and_then(Weak::upgrade)
    }

    /// Binds the handle found in `registry`'s own state to `registry`; the
    /// runtime does it for every registry it builds (served or alone).
    /// False when the state has no handle or it was bound already.
    pub fn bind(registry: &Arc<Registry>) -> bool {
        registry
            .state()
            .get::<LiveRegistry>()
            .is_some_and(|handle| handle.0.set(Arc::downgrade(registry)).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use portos_core::StateMap;

    use super::*;

    #[test]
    fn a_handle_is_empty_until_bound_and_weak_after() {
        let handle = LiveRegistry::default();
        let mut state = StateMap::new();
        state.insert(handle.clone());
        let registry = Registry::builder()
            .state(state)
            .descriptors([])
            .build()
            .expect("an empty registry");
        assert!(handle.get().is_none());
        assert!(LiveRegistry::bind(&registry));
        assert!(!LiveRegistry::bind(&registry), "bound once");
        assert!(handle.get().is_some_and(|r| Arc::ptr_eq(&r, &registry)));
        drop(registry);
        assert!(handle.get().is_none(), "the handle keeps nothing alive");
    }
}
