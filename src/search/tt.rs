//! The transposition table: buckets of four entries in one cache line, two 64-bit words an
//! entry, sized in bytes, shared by every search thread without locks.

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
/// Entries per bucket: one 64-byte cache line.
const WAYS: usize = 4;
/// The generation field's bits (6): ages count searches modulo 64.
const GEN_MASK: u64 = 63;

/// Buckets of four entries, each bucket one 64-byte cache line; a position may sit in any
/// entry of its bucket. A store replaces the same position's entry, else an empty one, else
/// the one worth least: shallow and from old searches (`generation`).
///
/// Invariant: bucket `b` is `words[base + 8b .. base + 8b + 8]`, `base` the first word on a
/// 64-byte boundary; its entry `w` is `words[.. + 2w]` (the key xor the data) and
/// `words[.. + 2w + 1]` (the data, zero for an empty entry). An entry read while another thread
/// writes it may mix two entries; the xor then fails to give the key and the read is a miss, so
/// every entry returned was stored whole. Allocated zeroed, so untouched pages cost no memory.
pub struct TranspositionTable {
    words: Box<[AtomicU64]>,
    base: usize,
    buckets: usize,
    /// The current search's number (modulo 64), stored with every entry.
    generation: AtomicU64,
}

/// Words a bucket takes: four entries of two words, one cache line.
const BUCKET_WORDS: usize = 2 * WAYS;

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
    /// A table of at most `bytes` bytes (at least one bucket).
    pub fn new(bytes: usize) -> TranspositionTable {
        let buckets = Self::buckets_for(bytes);
        // One bucket's words more, so that the buckets can start on a cache line.
        let words = zeroed_words((buckets + 1) * BUCKET_WORDS);
        let misalign = (words.as_ptr() as usize % 64) / 8;
        TranspositionTable {
            words,
            base: (BUCKET_WORDS - misalign) % BUCKET_WORDS,
            buckets,
            generation: AtomicU64::new(0),
        }
    }

    fn buckets_for(bytes: usize) -> usize {
        (bytes / (ENTRY_BYTES * WAYS)).max(1)
    }

    /// Whether a table made by `new(bytes)` would have this table's size.
    pub fn fits(&self, bytes: usize) -> bool {
        self.buckets == Self::buckets_for(bytes)
    }

    pub fn bytes(&self) -> usize {
        self.buckets * BUCKET_WORDS * 8
    }

    pub fn slots(&self) -> usize {
        self.buckets * WAYS
    }

    pub fn clear(&mut self) {
        for w in self.words.iter_mut() {
            *w.get_mut() = 0;
        }
        *self.generation.get_mut() = 0;
    }

    /// Starts a new search: entries stored before it age by one.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// Permille of entries in use among the first thousand (cheap estimate).
    pub fn usage_permille(&self) -> usize {
        let n = self.slots().min(1000);
        (0..n)
            .filter(|&i| self.words[self.base + 2 * i + 1].load(Ordering::Relaxed) != 0)
            .count()
            * 1000
            / n.max(1)
    }

    /// The words of `key`'s bucket.
    fn bucket(&self, key: u64) -> &[AtomicU64] {
        let b = ((key as u128 * self.buckets as u128) >> 64) as usize;
        let at = self.base + b * BUCKET_WORDS;
        &self.words[at..at + BUCKET_WORDS]
    }

    /// Asks the processor to bring `key`'s bucket into the cache, so that a `probe` a little
    /// later (after the move is made on the board) does not wait for memory. A hint only: it
    /// changes no result.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket = self.bucket(key).as_ptr();
            // SAFETY: a prefetch never faults and reads nothing into the program; the address
            // is that of a live bucket, and SSE is part of every x86_64 target.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The data word of `key`'s entry in `b` and its way, if the bucket holds it.
    fn find(b: &[AtomicU64], key: u64) -> Option<(usize, u64)> {
        (0..WAYS).find_map(|w| {
            let data = b[2 * w + 1].load(Ordering::Relaxed);
            (data != 0 && b[2 * w].load(Ordering::Relaxed) ^ data == key).then_some((w, data))
        })
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        Self::find(self.bucket(key), key).map(|(_, data)| decode(data))
    }

    /// Stores `e` for `key`: over the same position's entry unless that one was searched
    /// deeper (and `e` is not exact), else over an empty entry, else over the entry of least
    /// depth minus eight plies per search of age.
    pub fn store(&self, key: u64, e: Entry) {
        let b = self.bucket(key);
        let generation = self.generation.load(Ordering::Relaxed) & GEN_MASK;
        let way = match Self::find(b, key) {
            Some((w, data)) => {
                if decode(data).depth > e.depth && e.bound != Bound::Exact {
                    return;
                }
                w
            }
            None => (0..WAYS)
                .min_by_key(|&w| {
                    let data = b[2 * w + 1].load(Ordering::Relaxed);
                    if data == 0 {
                        return i64::MIN;
                    }
                    let age = generation.wrapping_sub((data >> 10) & GEN_MASK) & GEN_MASK;
                    decode(data).depth as i64 - 8 * age as i64
                })
                .unwrap_or(0),
        };
        let bound = match e.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let depth = (e.depth.clamp(-64, 191) + 64) as u64;
        let mv = e.mv.map_or(NO_MOVE, u64::from);
        let data = ((e.score as u32 as u64) << 32)
            | (mv << 16)
            | (generation << 10)
            | (bound << 8)
            | depth;
        b[2 * way].store(key ^ data, Ordering::Relaxed);
        b[2 * way + 1].store(data, Ordering::Relaxed);
    }
}

/// The entry a data word holds (bits 0-7 depth + 64, 8-9 bound, 10-15 generation, 16-31 move,
/// 32-63 score).
fn decode(data: u64) -> Entry {
    let bound = match (data >> 8) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        _ => Bound::Upper,
    };
    let mv = (data >> 16) & 0xFFFF;
    Entry {
        depth: (data & 0xFF) as i32 - 64,
        bound,
        score: (data >> 32) as u32 as i32,
        mv: (mv != NO_MOVE).then_some(mv as u16),
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
        let lost = Entry {
            score: -(super::super::WIN - 7),
            ..e
        };
        tt.store(0xDEAD_BEEF_1236, lost);
        assert_eq!(tt.probe(0xDEAD_BEEF_1236), Some(lost), "a mate score");
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
        let (w, _) = TranspositionTable::find(tt.bucket(key), key).expect("stored");
        tt.bucket(key)[2 * w + 1].store(0xFFFF_0000_0102, Ordering::Relaxed);
        assert_eq!(tt.probe(key), None);
    }

    /// Keys that share one bucket of `tt` (the top bits pick the bucket).
    fn same_bucket(n: u64) -> Vec<u64> {
        (1..=n).map(|k| 0x0123_4567_0000_0000 | k).collect()
    }

    fn entry(depth: i32) -> Entry {
        Entry {
            depth,
            bound: Bound::Lower,
            score: depth * 10,
            mv: None,
        }
    }

    #[test]
    fn a_bucket_keeps_four_positions_and_replaces_the_shallowest() {
        let tt = TranspositionTable::new(1 << 12);
        let keys = same_bucket(5);
        assert!(keys
            .iter()
            .all(|&k| std::ptr::eq(tt.bucket(k), tt.bucket(keys[0]))));
        assert_eq!(
            tt.bucket(keys[0]).as_ptr() as usize % 64,
            0,
            "one cache line"
        );
        for (k, d) in keys[..4].iter().zip([5, 2, 7, 4]) {
            tt.store(*k, entry(d));
        }
        for (k, d) in keys[..4].iter().zip([5, 2, 7, 4]) {
            assert_eq!(tt.probe(*k), Some(entry(d)), "all four kept");
        }
        tt.store(keys[4], entry(3));
        assert_eq!(tt.probe(keys[4]), Some(entry(3)));
        assert_eq!(tt.probe(keys[1]), None, "the depth-2 entry made room");
        assert_eq!(tt.probe(keys[2]), Some(entry(7)));
    }

    #[test]
    fn entries_of_old_searches_make_room_first() {
        let tt = TranspositionTable::new(1 << 12);
        let keys = same_bucket(5);
        tt.store(keys[0], entry(9));
        tt.new_search();
        tt.new_search();
        for &k in &keys[1..4] {
            tt.store(k, entry(1));
        }
        // Two searches old, depth 9 counts as 9 - 16: below the fresh depth-1 entries.
        tt.store(keys[4], entry(2));
        assert_eq!(tt.probe(keys[0]), None);
        assert!(keys[1..].iter().all(|&k| tt.probe(k).is_some()));
        assert!(tt.fits(1 << 12) && !tt.fits(1 << 13));
        assert_eq!(tt.bytes(), 1 << 12);
    }
}
