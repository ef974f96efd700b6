//! The leaves a search has worked out: what a child's preview (`Searcher::preview`) reads from
//! the position after a move, kept by that position's key, so that the next iteration, or a
//! transposition, does not walk the lines and the network again for it. Everything kept is a
//! function of the position alone (the evaluation before its correction, and the correction
//! history's entry for it), so a search gives the same results with or without it.

use std::cell::Cell;

/// Entries (a power of two): 1 MiB a search thread, within `THREAD_MEMORY`'s share.
const ENTRIES: usize = 1 << 16;

/// What a preview keeps of a position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct KeptLeaf {
    /// The static evaluation, not corrected.
    pub eval: i32,
    /// Its correction history entry (`correct::index`).
    pub corr: u32,
    /// `Searcher::quick_win` of it.
    pub win: Option<i32>,
    /// Whether it is open (`open_tally`).
    pub open: bool,
    /// Whether its side to move has a four (with `qfours`).
    pub fours: bool,
}

/// One slot: the position's key and the leaf packed in a word (0: empty).
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    packed: u64,
}

/// A direct-mapped table of kept leaves, filled through a shared reference (the preview reads
/// the board only).
pub(super) struct Leaves {
    slots: Vec<Cell<Slot>>,
}

const VALID: u64 = 1 << 63;

impl Leaves {
    pub fn new() -> Leaves {
        Leaves {
            slots: vec![Cell::new(Slot::default()); ENTRIES],
        }
    }

    /// Starts fetching `key`'s slot into the cache, for a `get` soon after.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot = self.slots[key as usize & (ENTRIES - 1)].as_ptr();
            // SAFETY: a prefetch never faults and reads nothing into the program; the address
            // is that of a live slot, and SSE is part of every x86_64 target.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The leaf kept for `key`, if any.
    #[inline]
    pub fn get(&self, key: u64) -> Option<KeptLeaf> {
        let slot = self.slots[key as usize & (ENTRIES - 1)].get();
        if slot.key != key || slot.packed & VALID == 0 {
            return None;
        }
        let p = slot.packed;
        let win = (p >> 50) & 0xFF;
        Some(KeptLeaf {
            eval: p as u32 as i32,
            corr: ((p >> 32) & 0x3FFFF) as u32,
            win: (win != 0).then_some(win as i32 - 1),
            open: p >> 58 & 1 != 0,
            fours: p >> 59 & 1 != 0,
        })
    }

    /// Keeps `leaf` for `key` (replacing whatever its slot held); not kept if it does not fit.
    #[inline]
    pub fn put(&self, key: u64, leaf: &KeptLeaf) {
        let win = match leaf.win {
            None => 0,
            Some(w) if (0..255).contains(&w) => w as u64 + 1,
            Some(_) => return,
        };
        if leaf.corr >= 1 << 18 {
            return;
        }
        let packed = leaf.eval as u32 as u64
            | (leaf.corr as u64) << 32
            | win << 50
            | (leaf.open as u64) << 58
            | (leaf.fours as u64) << 59
            | VALID;
        self.slots[key as usize & (ENTRIES - 1)].set(Slot { key, packed });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_leaf_reads_back_whole() {
        let leaves = Leaves::new();
        let leaf = KeptLeaf {
            eval: -1234,
            corr: (1 << 17) - 1,
            win: Some(5),
            open: true,
            fours: false,
        };
        assert_eq!(leaves.get(42), None);
        leaves.put(42, &leaf);
        assert_eq!(leaves.get(42), Some(leaf));
        // Another key in the same slot replaces it.
        let other = KeptLeaf {
            eval: 77,
            corr: 3,
            win: None,
            open: false,
            fours: true,
        };
        leaves.put(42 + ENTRIES as u64, &other);
        assert_eq!(leaves.get(42), None);
        assert_eq!(leaves.get(42 + ENTRIES as u64), Some(other));
    }
}
