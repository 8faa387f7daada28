//! Parts of a limit derived from its own data and built the first time they are needed: a
//! table's boundary chains, seeds and bound pyramid, which fitting, baking, reading a file and
//! the inside test never use.

use std::sync::OnceLock;

/// A value derived from the data beside it, built on first use. It takes no part in equality
/// (two tables with equal grids are equal whether or not either has built it).
#[derive(Clone)]
pub(crate) struct Derived<T>(OnceLock<T>);

impl<T> Derived<T> {
    /// Nothing built yet.
    pub(crate) fn new() -> Derived<T> {
        Derived(OnceLock::new())
    }

    /// The value, built by `build` on the first call.
    #[inline]
    pub(crate) fn get_or_build(&self, build: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(build)
    }

    /// The value when built (never waits for a build under way).
    #[inline(always)]
    pub(crate) fn get(&self) -> Option<&T> {
        self.0.get()
    }
}

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Derived<T>) -> bool {
        true
    }
}

impl<T> std::fmt::Debug for Derived<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "built"
        } else {
            "not built"
        })
    }
}
