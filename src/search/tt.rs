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

/// Invariant: `words.len()` is even; slot `i` is `words[2i]` (the key xor the data) and
/// `words[2i+1]` (the data, zero for an empty slot). A slot read while another thread writes it
/// may mix two entries; the xor then fails to give the key and the read is a miss, so every
/// entry returned was stored whole. Allocated zeroed, so untouched pages cost no memory.
pub struct TranspositionTable {
    words: Box<[AtomicU64]>,
}

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

impl TranspositionTable {
    /// A table of at most `bytes` bytes (at least one slot).
    pub fn new(bytes: usize) -> TranspositionTable {
        let slots = (bytes / ENTRY_BYTES).max(1);
        TranspositionTable {
            words: zeroed_words(slots * 2),
        }
    }

    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    pub fn slots(&self) -> usize {
        self.words.len() / 2
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
            .filter(|&i| self.words[2 * i + 1].load(Ordering::Relaxed) != 0)
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
            let slot = &self.words[2 * self.slot(key)];
            // SAFETY: a prefetch never faults and reads nothing into the program; the address
            // is that of a live element of `words`, and SSE is part of every x86_64 target.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.as_ptr() as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let s = self.slot(key);
        let data = self.words[2 * s + 1].load(Ordering::Relaxed);
        if data == 0 || self.words[2 * s].load(Ordering::Relaxed) ^ data != key {
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
        self.words[2 * s].store(key ^ data, Ordering::Relaxed);
        self.words[2 * s + 1].store(data, Ordering::Relaxed);
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
        tt.prefetch(0xDEAD_BEEF_1234);
        tt.store(0xDEAD_BEEF_1234, e);
        assert_eq!(tt.probe(0xDEAD_BEEF_1234), Some(e));
        assert_eq!(tt.probe(0xDEAD_BEEF_1235), None);
        let shallow = Entry { depth: 2, ..e };
        tt.store(0xDEAD_BEEF_1234, shallow);
        assert_eq!(tt.probe(0xDEAD_BEEF_1234), Some(e), "deeper entry kept");
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
        tt.words[2 * s + 1].store(0xFFFF_0000_0102, Ordering::Relaxed);
        assert_eq!(tt.probe(key), None);
    }
}
