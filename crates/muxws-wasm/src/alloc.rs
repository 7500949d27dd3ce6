//! The module's allocator: free lists of power-of-two size classes over `memory.grow`, in place of
//! the standard library's dlmalloc (about 8 KB of code). A freed block is reused by the next
//! allocation of its class; memory is never returned (wasm memory cannot shrink anyway). The
//! module's allocations are few and of few sizes (frames, windows of at most the frame cap + 1
//! bytes, small records), so rounding up to a power of two costs little.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::arch::wasm32;
use std::cell::Cell;

/// Free-list heads by class (class `c` holds blocks of `2^c` bytes), the bump pointer and the end
/// of the memory the allocator owns. The module runs on one thread and never re-enters the
/// allocator, so plain cells suffice.
struct Heap {
    free: [Cell<usize>; 32],
    top: Cell<usize>,
    end: Cell<usize>,
}

// SAFETY: wasm32-unknown-unknown without the atomics feature has exactly one thread.
unsafe impl Sync for Heap {}

static HEAP: Heap = Heap {
    free: [const { Cell::new(0) }; 32],
    top: Cell::new(0),
    end: Cell::new(0),
};

/// The size class of `layout`: blocks of `2^class` bytes, at least 16 (alignment ≤ 16 follows
/// from bumping in steps of 16 and from the block size).
fn class(layout: Layout) -> Option<usize> {
    let size = layout
        .size()
        .max(layout.align())
        .max(16)
        .checked_next_power_of_two()?;
    let class = size.trailing_zeros() as usize;
    (class < 32 && layout.align() <= 16).then_some(class)
}

struct Classes;

// SAFETY: every block handed out is `2^class` bytes, 16-aligned, owned by the caller until
// `dealloc` with the same layout puts it back on its class's list; the first word of a free block
// links the list.
unsafe impl GlobalAlloc for Classes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class(layout) else {
            return std::ptr::null_mut();
        };
        let head = HEAP.free[class].get();
        if head != 0 {
            HEAP.free[class].set(unsafe { *(head as *const usize) });
            return head as *mut u8;
        }
        let size = 1usize << class;
        if HEAP.end.get() == 0 {
            let end = wasm32::memory_size(0) * 65_536;
            HEAP.end.set(end);
            HEAP.top.set(end);
        }
        let at = (HEAP.top.get() + 15) & !15;
        let Some(need) = at.checked_add(size) else {
            return std::ptr::null_mut();
        };
        if need > HEAP.end.get() {
            let pages = (need - HEAP.end.get()).div_ceil(65_536);
            if wasm32::memory_grow(0, pages) == usize::MAX {
                return std::ptr::null_mut();
            }
            HEAP.end.set(HEAP.end.get() + pages * 65_536);
        }
        HEAP.top.set(need);
        at as *mut u8
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if let Some(class) = class(layout) {
            unsafe { *(block as *mut usize) = HEAP.free[class].get() };
            HEAP.free[class].set(block as usize);
        }
    }
}

#[global_allocator]
static ALLOCATOR: Classes = Classes;
