//! The transposition table: one entry per slot, two 64-bit words each, sized in bytes, shared by
//! every search thread without locks.

use std::sync::atomic::{AtomicU64, Ordering};

/// How a stored score bounds the true one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

/// What the table remembers about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub depth: i32,
    pub bound: Bound,
    pub score: i32,
    /// Best move as a cell index, if one was found.
    pub mv: Option<u16>,
}

const NO_MOVE: u64 = 0xFFFF;
/// Bytes per entry: the key word and the data word.
pub const ENTRY_BYTES: usize = 16;

/// Invariant: `words[base..]` holds `2 * slots` words; slot `i` is `words[base + 2i]` (the key
/// xor the data) and `words[base + 2i + 1]` (the data, zero for an empty slot). A slot read while
/// another thread writes it may mix two entries; the xor then fails to give the key and the read
/// is a miss, so every entry returned was stored whole. Allocated zeroed, so untouched pages cost
/// no memory. A large table starts on a huge-page boundary (`base` skips the words before it).
pub struct TranspositionTable {
    words: Box<[AtomicU64]>,
    base: usize,
    slots: usize,
}

/// The size of a huge page on x86_64 Linux: a table this large or larger is aligned to it.
const HUGE_PAGE: usize = 2 << 20;

/// `n` zeroed atomic words, allocated as plain zeroed memory so that the pages are only taken
/// from the system when first written.
fn zeroed_words(n: usize) -> Box<[AtomicU64]> {
    let plain: Box<[u64]> = vec![0u64; n].into_boxed_slice();
    let raw = Box::into_raw(plain) as *mut [AtomicU64];
    // SAFETY: `AtomicU64` has the same size, alignment and bit validity as `u64` (documented
    // in std), so a boxed slice of zeroed `u64`s is a valid boxed slice of `AtomicU64`s of the
    // same length; ownership moves from the old box to the new one.
    unsafe { Box::from_raw(raw) }
}

/// Asks Linux to back `words` with huge pages. Probes land anywhere in the table, so with
/// 4 KiB pages nearly every probe of a large table also misses the address-translation cache;
/// with 2 MiB pages far fewer do. A hint only: where it is refused, nothing changes.
#[cfg(target_os = "linux")]
fn advise_huge_pages(words: &[AtomicU64]) {
    const MADV_HUGEPAGE: i32 = 14;
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    // SAFETY: the range is memory this table owns (a huge-page-aligned start inside its
    // allocation, `len` bytes within it); MADV_HUGEPAGE changes how the kernel backs the pages,
    // never their contents (still zero), and its result is ignored.
    unsafe {
        madvise(
            words.as_ptr() as *mut std::ffi::c_void,
            std::mem::size_of_val(words),
            MADV_HUGEPAGE,
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &[AtomicU64]) {}

impl TranspositionTable {
    /// A table of at most `bytes` bytes (at least one slot).
    pub fn new(bytes: usize) -> TranspositionTable {
        let slots = (bytes / ENTRY_BYTES).max(1);
        let huge = slots * ENTRY_BYTES >= HUGE_PAGE;
        let pad = if huge { HUGE_PAGE / 8 } else { 0 };
        let words = zeroed_words(slots * 2 + pad);
        let base = if huge {
            let addr = words.as_ptr() as usize;
            (addr.next_multiple_of(HUGE_PAGE) - addr) / 8
        } else {
            0
        };
        if huge {
            advise_huge_pages(&words[base..base + slots * 2]);
        }
        TranspositionTable { words, base, slots }
    }

    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Word `i` of the table proper.
    #[inline]
    fn word(&self, i: usize) -> &AtomicU64 {
        &self.words[self.base + i]
    }

    pub fn clear(&mut self) {
        for w in self.words.iter_mut() {
            *w.get_mut() = 0;
        }
    }

    /// Permille of slots in use among the first thousand (cheap estimate).
    pub fn usage_permille(&self) -> usize {
        let n = self.slots().min(1000);
        (0..n)
            .filter(|&i| self.word(2 * i + 1).load(Ordering::Relaxed) != 0)
            .count()
            * 1000
            / n.max(1)
    }

    fn slot(&self, key: u64) -> usize {
        ((key as u128 * self.slots() as u128) >> 64) as usize
    }

    /// Asks the processor to bring `key`'s slot into the cache, so that a `probe` a little later
    /// (after the move is made on the board) does not wait for memory. A hint only: it changes
    /// no result.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot = self.word(2 * self.slot(key));
            // SAFETY: a prefetch never faults and reads nothing into the program; the address
            // is that of a live element of `words`, and SSE is part of every x86_64 target.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.as_ptr() as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let s = self.slot(key);
        let data = self.word(2 * s + 1).load(Ordering::Relaxed);
        if data == 0 || self.word(2 * s).load(Ordering::Relaxed) ^ data != key {
            return None;
        }
        let bound = match (data >> 8) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        let mv = (data >> 16) & 0xFFFF;
        Some(Entry {
            depth: (data & 0xFF) as i32 - 64,
            bound,
            score: (data >> 32) as u32 as i32,
            mv: (mv != NO_MOVE).then_some(mv as u16),
        })
    }

    /// Stores unless the slot holds the same position searched deeper.
    pub fn store(&self, key: u64, e: Entry) {
        let s = self.slot(key);
        if let Some(old) = self.probe(key) {
            if old.depth > e.depth && e.bound != Bound::Exact {
                return;
            }
        }
        let bound = match e.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let depth = (e.depth.clamp(-64, 191) + 64) as u64;
        let mv = e.mv.map_or(NO_MOVE, u64::from);
        let data = ((e.score as u32 as u64) << 32) | (mv << 16) | (bound << 8) | depth;
        self.word(2 * s).store(key ^ data, Ordering::Relaxed);
        self.word(2 * s + 1).store(data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_reads_back() {
        let tt = TranspositionTable::new(1 << 16);
        let e = Entry {
            depth: 7,
            bound: Bound::Lower,
            score: -12345,
            mv: Some(300),
        };
        tt.store(0xDEAD_BEEF_1234, e);
        assert_eq!(tt.probe(0xDEAD_BEEF_1234), Some(e));
        assert_eq!(tt.probe(0xDEAD_BEEF_1235), None);
        let shallow = Entry { depth: 2, ..e };
        tt.store(0xDEAD_BEEF_1234, shallow);
        assert_eq!(tt.probe(0xDEAD_BEEF_1234), Some(e), "deeper entry kept");
    }

    #[test]
    fn a_large_table_starts_on_a_huge_page_and_keeps_every_slot() {
        let tt = TranspositionTable::new(4 << 20);
        assert_eq!(tt.slots(), (4 << 20) / ENTRY_BYTES);
        assert_eq!(tt.word(0).as_ptr() as usize % HUGE_PAGE, 0);
        assert!(tt.base + 2 * tt.slots() <= tt.words.len());
        // The first and the last slot are both usable.
        for key in [0x10u64, u64::MAX - 0x10] {
            let e = Entry {
                depth: 5,
                bound: Bound::Exact,
                score: key as i32 & 0xFFF,
                mv: None,
            };
            tt.prefetch(key);
            tt.store(key, e);
            assert_eq!(tt.probe(key), Some(e));
        }
        assert_eq!(tt.slot(0x10), 0);
        assert_eq!(tt.slot(u64::MAX - 0x10), tt.slots() - 1);
    }

    #[test]
    fn a_torn_entry_reads_as_a_miss() {
        let tt = TranspositionTable::new(1 << 10);
        let key = 0x1234_5678_9ABC_DEF0;
        let e = Entry {
            depth: 3,
            bound: Bound::Exact,
            score: 77,
            mv: Some(5),
        };
        tt.store(key, e);
        // Another thread's data word lands beside this key word.
        let s = tt.slot(key);
        tt.word(2 * s + 1)
            .store(0xFFFF_0000_0102, Ordering::Relaxed);
        assert_eq!(tt.probe(key), None);
    }
}
