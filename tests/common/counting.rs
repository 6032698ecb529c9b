//! A global allocator that counts allocations, for the tests that hold a per-frame call to
//! allocating nothing (`retarget_alloc`, `mirror_alloc`): each declares
//! `#[global_allocator] static GLOBAL: Counting = Counting;` and reads [`allocations`] around
//! the calls. The count is global: such a crate keeps its calls in one test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// Allocations (and reallocations) so far in this process.
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::SeqCst)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
