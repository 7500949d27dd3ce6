//! What each of the package's wasm modules needs of its one thread, written once: see
//! [`one_thread_module!`](crate::one_thread_module).

/// Defines, in the crate of a wasm module, `OneThread<T>` (a `Sync` wrapper for the module's
/// `static` state: wasm32 without the `atomics` target feature runs exactly one thread) and, on
/// wasm32 only, the module's allocator (`lol_alloc`'s free list, assumed single-threaded, far
/// smaller than dlmalloc; the crate depends on `lol_alloc` there) and a panic handler that traps
/// (no code path panics on any input; were one to, the module traps instead of pulling in std's
/// panic and formatting machinery). How the state is borrowed stays the module's own.
#[macro_export]
macro_rules! one_thread_module {
    () => {
        /// A value of the module's one thread: without the `atomics` target feature a wasm module
        /// runs on exactly one, so a `static` of it is safe.
        struct OneThread<T>(T);

        // SAFETY: wasm32-unknown-unknown without the `atomics` feature has exactly one thread.
        #[allow(unsafe_code)]
        unsafe impl<T> Sync for OneThread<T> {}

        #[cfg(target_arch = "wasm32")]
        #[global_allocator]
        // SAFETY: the module is single-threaded (see `OneThread`).
        #[allow(unsafe_code)]
        static ALLOCATOR: ::lol_alloc::AssumeSingleThreaded<::lol_alloc::FreeListAllocator> =
            unsafe { ::lol_alloc::AssumeSingleThreaded::new(::lol_alloc::FreeListAllocator::new()) };

        /// The module traps on a panic (none is reachable).
        #[cfg(target_arch = "wasm32")]
        #[panic_handler]
        fn panic(_: &::core::panic::PanicInfo) -> ! {
            ::core::arch::wasm32::unreachable()
        }
    };
}
