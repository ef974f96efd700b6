//! The engine's one source of time. Natively it is `std::time::Instant`. Under WebAssembly
//! (`wasm32-unknown-unknown`) `Instant::now()` panics, so the host gives the time instead: the
//! module imports `wuzi.now_ms`, which the JavaScript glue answers with `performance.now()`.
//! Everything the session, the search and the bench measure goes through this type.

#[cfg(not(target_arch = "wasm32"))]
pub use std::time::Instant;

#[cfg(target_arch = "wasm32")]
pub use host::Instant;

#[cfg(target_arch = "wasm32")]
mod host {
    use std::ops::Add;
    use std::time::Duration;

    #[link(wasm_import_module = "wuzi")]
    extern "C" {
        /// Milliseconds since an origin the host fixes, never decreasing (`performance.now()`).
        fn now_ms() -> f64;
    }

    /// A moment, in milliseconds on the host's monotonic clock.
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant(f64);

    impl Instant {
        pub fn now() -> Instant {
            // SAFETY: the import takes nothing and returns a number; the glue always provides it.
            Instant(unsafe { now_ms() })
        }

        /// Time from `earlier` to this moment, zero if `earlier` is later.
        pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
            Duration::from_secs_f64((self.0 - earlier.0).max(0.0) / 1000.0)
        }

        pub fn duration_since(&self, earlier: Instant) -> Duration {
            self.saturating_duration_since(earlier)
        }

        pub fn elapsed(&self) -> Duration {
            Instant::now().saturating_duration_since(*self)
        }
    }

    impl Add<Duration> for Instant {
        type Output = Instant;
        fn add(self, d: Duration) -> Instant {
            Instant(self.0 + d.as_secs_f64() * 1000.0)
        }
    }
}
