//! Line patterns: for every empty cell, direction and colour, the shape a stone of that colour
//! would make there along that line (five, open four, four, open three, three, open two, two,
//! one, dead; overline under exact-five rules), read from the five cells on each side through a
//! table built once per rule; the four directions combined into a pattern code per cell and
//! colour, and a threat class (the vocabulary of move generation and the threat search).

use std::sync::OnceLock;

use super::grid::Color;
use crate::rules::Rule;

/// Cells looked at on each side of the centre.
pub const HALF: usize = 5;
/// Neighbour slots of a line key: offsets -5..=-1 are slots 0..=4, offsets 1..=5 slots 5..=9.
pub const SLOTS: usize = 2 * HALF;
/// What a slot holds (2 bits): empty, black, white, or a wall (off the board, or a blocked cell).
pub const EMPTY: u32 = 0;
pub const WALL: u32 = 3;
/// Line keys: 2 bits per slot.
pub const KEYS: usize = 1 << (2 * SLOTS);

/// The code of a colour's stone in a line key.
pub const fn stone_code(c: Color) -> u32 {
    match c {
        Color::Black => 1,
        Color::White => 2,
    }
}

/// The slot of the neighbour `k` cells away (`k` in -5..=-1 or 1..=5).
pub const fn slot(k: isize) -> usize {
    if k < 0 {
        (k + HALF as isize) as usize
    } else {
        (k + HALF as isize - 1) as usize
    }
}

/// What a stone makes along one line. Ordered from nothing to five; `Overline` (a run of six or
/// more where only exactly five wins) counts as nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Shape {
    Dead = 0,
    Overline,
    /// A move makes a two.
    One,
    /// A move makes a three (not an open one).
    Two,
    /// A move makes an open three.
    OpenTwo,
    /// A move makes a four (not an open one).
    Three,
    /// A move makes an open four (or two fours on the line).
    OpenThree,
    /// One five point.
    Four,
    /// Two five points: a straight four, or two fours on one line.
    OpenFour,
    Five,
}

/// Number of shapes.
pub const SHAPES: usize = 10;

impl Shape {
    pub const ALL: [Shape; SHAPES] = [
        Shape::Dead,
        Shape::Overline,
        Shape::One,
        Shape::Two,
        Shape::OpenTwo,
        Shape::Three,
        Shape::OpenThree,
        Shape::Four,
        Shape::OpenFour,
        Shape::Five,
    ];

    pub const fn from_u8(v: u8) -> Shape {
        Shape::ALL[v as usize]
    }

    pub fn name(self) -> &'static str {
        match self {
            Shape::Dead => "dead",
            Shape::Overline => "overline",
            Shape::One => "one",
            Shape::Two => "two",
            Shape::OpenTwo => "open-two",
            Shape::Three => "three",
            Shape::OpenThree => "open-three",
            Shape::Four => "four",
            Shape::OpenFour => "open-four",
            Shape::Five => "five",
        }
    }
}

/// What a stone on a cell makes over its four lines, strongest last. Under renju the classes
/// of black's double fours, double threes and overlines are not fouls yet: the exact check
/// (`renju::foul`) decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Class {
    #[default]
    None = 0,
    One,
    Two,
    /// A closed three (a move then makes a four), nothing better.
    ClosedThree,
    OpenTwo,
    /// Two open twos, or an open two and a closed three.
    TwoPlus,
    /// One open three.
    Three,
    /// An open three and an open two or a closed three.
    ThreePlus,
    DoubleThree,
    /// One four and nothing above an open two.
    Four,
    /// A four and a closed three or open twos.
    FourPlus,
    FourThree,
    /// An open four, or fours on two lines: two five points.
    OpenFour,
    Five,
}

impl Class {
    pub const fn from_u8(v: u8) -> Class {
        [
            Class::None,
            Class::One,
            Class::Two,
            Class::ClosedThree,
            Class::OpenTwo,
            Class::TwoPlus,
            Class::Three,
            Class::ThreePlus,
            Class::DoubleThree,
            Class::Four,
            Class::FourPlus,
            Class::FourThree,
            Class::OpenFour,
            Class::Five,
        ][v as usize]
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::None => "none",
            Class::One => "one",
            Class::Two => "two",
            Class::ClosedThree => "closed-three",
            Class::OpenTwo => "open-two",
            Class::TwoPlus => "two-plus",
            Class::Three => "three",
            Class::ThreePlus => "three-plus",
            Class::DoubleThree => "double-three",
            Class::Four => "four",
            Class::FourPlus => "four-plus",
            Class::FourThree => "four-three",
            Class::OpenFour => "open-four",
            Class::Five => "five",
        }
    }

    /// Whether a stone here makes at least one four (it forces a reply).
    pub fn is_four(self) -> bool {
        self >= Class::Four
    }
}

/// Number of threat classes.
pub const CLASSES: usize = 14;

/// Number of threat levels (`threat_level`).
pub const LEVELS: usize = 7;

/// How far a side's threats go, from how many empty cells give it each class: 0 nothing from
/// an open three up; 1 a three; 2 a double three; 3 a four; 4 a four and a three on other
/// cells; 5 one point that makes an open four or a four-three; 6 more than one such point.
pub fn threat_level(counts: &[u16; CLASSES]) -> usize {
    let n = |c: Class| counts[c as usize];
    let wins = n(Class::FourThree) + n(Class::OpenFour);
    let fours = n(Class::Four) + n(Class::FourPlus);
    let threes = n(Class::Three) + n(Class::ThreePlus) + n(Class::DoubleThree);
    if wins > 0 {
        4 + wins.min(2) as usize
    } else if fours > 0 {
        3 + (threes > 0) as usize
    } else if n(Class::DoubleThree) > 0 {
        2
    } else {
        (threes > 0) as usize
    }
}

/// Pattern codes: the multisets of four shapes (one per direction).
pub const PCODES: usize = 715;

/// `PCODE[((s0 * 10 + s1) * 10 + s2) * 10 + s3]`: the pattern code of four shapes in any order.
static PCODE: [u16; 10_000] = pcode_table();
/// The sorted shapes of each pattern code.
static PCODE_SHAPES: [[u8; 4]; PCODES] = pcode_shapes();
/// The threat class of each pattern code.
static PCODE_CLASS: [u8; PCODES] = pcode_classes();

const fn pcode_shapes() -> [[u8; 4]; PCODES] {
    let mut t = [[0u8; 4]; PCODES];
    let mut n = 0;
    let mut a = 0;
    while a < SHAPES {
        let mut b = a;
        while b < SHAPES {
            let mut c = b;
            while c < SHAPES {
                let mut d = c;
                while d < SHAPES {
                    t[n] = [a as u8, b as u8, c as u8, d as u8];
                    n += 1;
                    d += 1;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    t
}

const fn pcode_table() -> [u16; 10_000] {
    let shapes = pcode_shapes();
    let mut t = [0u16; 10_000];
    let mut k = 0;
    while k < PCODES {
        let s = shapes[k];
        // Every order of the four shapes maps to k.
        let perms: [[usize; 4]; 24] = [
            [0, 1, 2, 3],
            [0, 1, 3, 2],
            [0, 2, 1, 3],
            [0, 2, 3, 1],
            [0, 3, 1, 2],
            [0, 3, 2, 1],
            [1, 0, 2, 3],
            [1, 0, 3, 2],
            [1, 2, 0, 3],
            [1, 2, 3, 0],
            [1, 3, 0, 2],
            [1, 3, 2, 0],
            [2, 0, 1, 3],
            [2, 0, 3, 1],
            [2, 1, 0, 3],
            [2, 1, 3, 0],
            [2, 3, 0, 1],
            [2, 3, 1, 0],
            [3, 0, 1, 2],
            [3, 0, 2, 1],
            [3, 1, 0, 2],
            [3, 1, 2, 0],
            [3, 2, 0, 1],
            [3, 2, 1, 0],
        ];
        let mut p = 0;
        while p < 24 {
            let o = perms[p];
            let idx = ((s[o[0]] as usize * 10 + s[o[1]] as usize) * 10 + s[o[2]] as usize) * 10
                + s[o[3]] as usize;
            t[idx] = k as u16;
            p += 1;
        }
        k += 1;
    }
    t
}

/// The threat class of four shapes.
const fn class_of(s: [u8; 4]) -> u8 {
    let mut count = [0u8; SHAPES];
    let mut i = 0;
    while i < 4 {
        count[s[i] as usize] += 1;
        i += 1;
    }
    let five = count[Shape::Five as usize];
    let open4 = count[Shape::OpenFour as usize];
    let four = count[Shape::Four as usize];
    let open3 = count[Shape::OpenThree as usize];
    let three = count[Shape::Three as usize];
    let open2 = count[Shape::OpenTwo as usize];
    let two = count[Shape::Two as usize];
    let one = count[Shape::One as usize];
    let class = if five > 0 {
        Class::Five
    } else if open4 > 0 || four >= 2 {
        Class::OpenFour
    } else if four == 1 && open3 > 0 {
        Class::FourThree
    } else if four == 1 && (three > 0 || open2 > 0) {
        Class::FourPlus
    } else if four == 1 {
        Class::Four
    } else if open3 >= 2 {
        Class::DoubleThree
    } else if open3 == 1 && (three > 0 || open2 > 0) {
        Class::ThreePlus
    } else if open3 == 1 {
        Class::Three
    } else if open2 >= 2 || (open2 == 1 && three > 0) {
        Class::TwoPlus
    } else if open2 == 1 {
        Class::OpenTwo
    } else if three > 0 {
        Class::ClosedThree
    } else if two > 0 {
        Class::Two
    } else if one > 0 {
        Class::One
    } else {
        Class::None
    };
    class as u8
}

const fn pcode_classes() -> [u8; PCODES] {
    let shapes = pcode_shapes();
    let mut t = [0u8; PCODES];
    let mut k = 0;
    while k < PCODES {
        t[k] = class_of(shapes[k]);
        k += 1;
    }
    t
}

/// The pattern code of four directional shapes.
#[inline]
pub fn pcode(s: [u8; 4]) -> u16 {
    PCODE[((s[0] as usize * 10 + s[1] as usize) * 10 + s[2] as usize) * 10 + s[3] as usize]
}

/// The four shapes (sorted) of a pattern code.
pub fn pcode_shapes_of(code: u16) -> [Shape; 4] {
    PCODE_SHAPES[code as usize].map(Shape::from_u8)
}

/// The threat class of a pattern code.
#[inline]
pub fn class(code: u16) -> Class {
    Class::from_u8(PCODE_CLASS[code as usize])
}

/// How a rule wins a line, for one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Win {
    /// Five or more in a row.
    AtLeastFive,
    /// Exactly five; longer runs win nothing.
    ExactlyFive,
    /// Six or more, or five not blocked by the opponent at both ends (rule 8).
    Caro,
    /// Exactly five not blocked by the opponent at both ends (rule 9).
    CaroExact,
}

impl Win {
    fn of(rule: Rule, c: Color) -> Win {
        match (rule, c) {
            (Rule::Freestyle, _) | (Rule::Renju, Color::White) => Win::AtLeastFive,
            (Rule::Standard, _) | (Rule::Renju, Color::Black) => Win::ExactlyFive,
            (Rule::Caro, _) => Win::Caro,
            (Rule::CaroExact, _) => Win::CaroExact,
        }
    }
}

/// What the slot `s` of a key holds.
#[inline]
const fn at(key: u32, s: usize) -> u32 {
    (key >> (2 * s)) & 3
}

/// The run of `own` stones through the centre: how many on each side.
fn run(key: u32, own: u32) -> (usize, usize) {
    let mut left = 0;
    while left < HALF && at(key, HALF - 1 - left) == own {
        left += 1;
    }
    let mut right = 0;
    while right < HALF && at(key, HALF + right) == own {
        right += 1;
    }
    (left, right)
}

/// Whether a stone of `own` on the centre of `key` wins along the line.
fn wins(win: Win, key: u32, own: u32) -> bool {
    let (left, right) = run(key, own);
    let len = left + right + 1;
    // The cells just beyond a five are inside the key (a five reaches four cells out).
    let blocked_both = || {
        let opp = 3 - own;
        len == 5 && at(key, HALF - 1 - left) == opp && at(key, HALF + right) == opp
    };
    match win {
        Win::AtLeastFive => len >= 5,
        Win::ExactlyFive => len == 5,
        Win::Caro => len >= 6 || (len == 5 && !blocked_both()),
        Win::CaroExact => len == 5 && !blocked_both(),
    }
}

fn overline(win: Win, key: u32, own: u32) -> bool {
    let (left, right) = run(key, own);
    matches!(win, Win::ExactlyFive | Win::CaroExact) && left + right + 1 > 5
}

/// The stones of `own` in a line key (one bit per slot, at the slot's low bit).
fn own_mask(key: u32, own: u32) -> u32 {
    let lo = key & 0x55555;
    let hi = (key >> 1) & 0x55555;
    if own == 1 {
        lo & !hi
    } else {
        hi & !lo
    }
}

/// One side of a key (the five slots, 2 bits each, as `key & 0x3FF` or `key >> 10`) with every
/// slot beyond its first blocker (the slot nearest the centre that holds neither nothing nor an
/// `own` stone) made a wall. `left`: the side of slots 0..5, whose slot 4 touches the centre.
fn side_canonical(side: u32, own: u32, left: bool) -> u32 {
    for j in 0..HALF {
        // The j-th slot out from the centre.
        let s = if left { HALF - 1 - j } else { j };
        let v = (side >> (2 * s)) & 3;
        if v != EMPTY && v != own {
            let beyond = if left {
                (1 << (2 * s)) - 1
            } else {
                0x3FF & !((1 << (2 * s + 2)) - 1)
            };
            return side | beyond;
        }
    }
    side
}

/// The shape table of one way of winning and one colour: indexed by line key, the shape a stone
/// of that colour makes on the centre. Nothing beyond a blocker (an opponent's stone or a wall)
/// changes a shape, so only the canonical keys, whose slots beyond each side's first blocker
/// are walls (8,836 of the 1,048,576), are classified, and every other key copies its
/// canonical key's shape. Keys with more own stones are classified first, so that a key's
/// shape is read from the shapes one own stone further on (themselves canonical keys: a stone
/// on an empty slot moves no blocker).
fn build(win: Win, own: u32) -> Box<[u8]> {
    let sides: [Vec<u32>; 2] = [true, false].map(|left| {
        (0..1 << (2 * HALF))
            .map(|v| side_canonical(v, own, left))
            .collect()
    });
    let canonical =
        |key: u32| sides[0][(key & 0x3FF) as usize] | sides[1][(key >> 10) as usize] << 10;
    let mut by_count: Vec<Vec<u32>> = vec![Vec::new(); SLOTS + 1];
    for key in (0..KEYS as u32).filter(|&k| canonical(k) == k) {
        by_count[own_mask(key, own).count_ones() as usize].push(key);
    }
    let mut t = vec![0u8; KEYS].into_boxed_slice();
    for keys in by_count.iter().rev() {
        for &key in keys {
            t[key as usize] = classify(&t, win, own, key) as u8;
        }
    }
    for key in 0..KEYS as u32 {
        t[key as usize] = t[canonical(key) as usize];
    }
    t
}

fn classify(t: &[u8], win: Win, own: u32, key: u32) -> Shape {
    if wins(win, key, own) {
        return Shape::Five;
    }
    if overline(win, key, own) {
        return Shape::Overline;
    }
    let mut fives = 0;
    let mut best = Shape::Dead;
    for s in 0..SLOTS {
        if at(key, s) != EMPTY {
            continue;
        }
        let next = key | own << (2 * s);
        if wins(win, next, own) {
            fives += 1;
        } else {
            best = best.max(Shape::from_u8(t[next as usize]));
        }
    }
    match (fives, best) {
        (2.., _) => Shape::OpenFour,
        (1, _) => Shape::Four,
        (_, Shape::OpenFour) => Shape::OpenThree,
        (_, Shape::Four) => Shape::Three,
        (_, Shape::OpenThree) => Shape::OpenTwo,
        (_, Shape::Three) => Shape::Two,
        (_, Shape::OpenTwo | Shape::Two) => Shape::One,
        _ => Shape::Dead,
    }
}

/// The shapes of both colours for every line key under one rule: black's in the low four
/// bits, white's in the high four (one byte a key, so that the table takes 1 MB of cache, not 2).
/// Under freestyle a shape never depends on the fifth cell out on either side (a run of five or
/// more through the centre always holds a five within four cells of it), so its table is read
/// by the middle eight slots only: 64 KB of cache instead of 1 MB, and the cells five away from
/// a new stone need no new read. Built on first use, one per rule.
#[derive(Clone, Copy, Debug)]
pub struct LineTable {
    /// Indexed by `(key >> shift) & mask`; only that many entries are ever read.
    entries: &'static [u8; KEYS],
    shift: u32,
    mask: u32,
    /// How many cells on each side of the centre the shapes depend on (4 or `HALF`).
    pub reach: usize,
}

impl LineTable {
    /// Both colours' shapes for the line `key` (see `entry_shape`).
    #[inline]
    pub fn entry(&self, key: u32) -> u8 {
        self.entries[((key >> self.shift) & self.mask) as usize & (KEYS - 1)]
    }

    /// The neighbour slots whose cells the shapes depend on, as a range of slot numbers.
    #[inline]
    pub fn slots(&self) -> std::ops::Range<usize> {
        HALF - self.reach..HALF + self.reach
    }
}

static TABLES: [OnceLock<LineTable>; 5] = [const { OnceLock::new() }; 5];

/// The shape of colour index `c` (0 black, 1 white) in an entry of a rule's `table`.
#[inline]
pub const fn entry_shape(entry: u8, c: usize) -> u8 {
    (entry >> (4 * c)) & 15
}

/// Exchanges black and white stones in a line key.
fn swap_colours(key: u32) -> u32 {
    let lo = key & 0x55555;
    let hi = (key >> 1) & 0x55555;
    let stones = lo ^ hi; // slots holding exactly one of the two bits
    key ^ (stones | stones << 1)
}

/// Both colours' shapes for every full line key under `rule`.
fn full_table(rule: Rule) -> Vec<u8> {
    let (wb, ww) = (Win::of(rule, Color::Black), Win::of(rule, Color::White));
    let black = build(wb, stone_code(Color::Black));
    let white = if ww == wb {
        // The same way of winning: white's shapes are black's with the colours swapped.
        None
    } else {
        Some(build(ww, stone_code(Color::White)))
    };
    (0..KEYS as u32)
        .map(|key| {
            let w = match &white {
                Some(t) => t[key as usize],
                None => black[swap_colours(key) as usize],
            };
            black[key as usize] | w << 4
        })
        .collect()
}

/// The shape table of `rule`: `entry_shape(table(rule).entry(key), colour)`.
pub fn table(rule: Rule) -> LineTable {
    let k = Rule::ALL.iter().position(|&r| r == rule).unwrap_or(0);
    *TABLES[k].get_or_init(|| {
        let full = full_table(rule);
        let (entries, shift, mask, reach) = if rule == Rule::Freestyle {
            // Slots 1..=8 (offsets -4..=4) are bits 2..18 of a key.
            let reach = HALF - 1;
            let mut short = vec![0u8; KEYS];
            for (mid, e) in short.iter_mut().enumerate().take(1 << (4 * reach)) {
                *e = full[mid << 2];
            }
            (short, 2, (1 << (4 * reach)) - 1, reach)
        } else {
            (full, 0, KEYS as u32 - 1, HALF)
        };
        let entries: Box<[u8; KEYS]> = entries
            .into_boxed_slice()
            .try_into()
            .expect("one entry per key");
        LineTable {
            entries: Box::leak(entries),
            shift,
            mask,
            reach,
        }
    })
}

/// The shape a stone of `c` makes on the centre of the line `key` under `rule`.
pub fn shape(rule: Rule, c: Color, key: u32) -> Shape {
    Shape::from_u8(entry_shape(table(rule).entry(key), c.index()))
}

/// Four directional shapes as one index: `s0 + 10 s1 + 100 s2 + 1000 s3` (direction order).
pub const SHAPE_INDICES: usize = 10_000;
/// Tables by shape index have this many entries, a power of two, so that a masked index needs
/// no bounds check; entries from `SHAPE_INDICES` on are never read.
pub const INDEX_SPAN: usize = 1 << 14;
/// What one shape step in direction `d` adds to a shape index.
pub const POWERS: [u16; 4] = [1, 10, 100, 1000];

/// The pattern code of a shape index.
pub fn pcode_of_index(index: u16) -> u16 {
    let i = index as usize;
    pcode([i % 10, i / 10 % 10, i / 100 % 10, i / 1000].map(|s| s as u8))
}

const fn index_classes() -> [Class; INDEX_SPAN] {
    let mut t = [Class::None; INDEX_SPAN];
    let mut i = 0;
    while i < SHAPE_INDICES {
        let s = [
            (i % 10) as u8,
            (i / 10 % 10) as u8,
            (i / 100 % 10) as u8,
            (i / 1000) as u8,
        ];
        t[i] = Class::from_u8(class_of(s));
        i += 1;
    }
    t
}

/// The threat class of every shape index.
static INDEX_CLASS: [Class; INDEX_SPAN] = index_classes();

/// The threat class of a shape index.
#[inline]
pub fn class_of_index(index: u16) -> Class {
    INDEX_CLASS[index as usize & (INDEX_SPAN - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key classified in turn, as `build` did before it classified only canonical keys.
    fn build_every_key(win: Win, own: u32) -> Box<[u8]> {
        let mut t = vec![0u8; KEYS].into_boxed_slice();
        let mut by_count: Vec<Vec<u32>> = vec![Vec::new(); SLOTS + 1];
        for key in 0..KEYS as u32 {
            by_count[own_mask(key, own).count_ones() as usize].push(key);
        }
        for keys in by_count.iter().rev() {
            for &key in keys {
                t[key as usize] = classify(&t, win, own, key) as u8;
            }
        }
        t
    }

    #[test]
    fn canonical_keys_build_the_same_tables() {
        for win in [
            Win::AtLeastFive,
            Win::ExactlyFive,
            Win::Caro,
            Win::CaroExact,
        ] {
            for own in [1, 2] {
                let fast = build(win, own);
                let slow = build_every_key(win, own);
                let diff = (0..KEYS).find(|&k| fast[k] != slow[k]);
                assert_eq!(diff, None, "{win:?}, own {own}: key {diff:?} differs");
            }
        }
    }

    /// A key from a line picture of the ten neighbours: `X` black, `O` white, `#` wall, `.`
    /// empty; the centre (`_`) in the middle is left out.
    fn key(line: &str) -> u32 {
        let cells: Vec<char> = line.chars().filter(|&c| c != '_').collect();
        assert_eq!(cells.len(), SLOTS, "{line}");
        cells.iter().enumerate().fold(0, |k, (s, ch)| {
            let v = match ch {
                'X' => 1,
                'O' => 2,
                '#' => 3,
                _ => 0,
            };
            k | v << (2 * s)
        })
    }

    fn shape_of(rule: Rule, c: Color, line: &str) -> Shape {
        shape(rule, c, key(line))
    }

    #[test]
    fn every_rule_table_reads_as_the_full_table() {
        // Freestyle's short table must give every full key's shapes from its middle slots.
        for rule in Rule::ALL {
            let (full, short) = (full_table(rule), table(rule));
            let differ = (0..KEYS as u32)
                .filter(|&k| full[k as usize] != short.entry(k))
                .count();
            assert_eq!(differ, 0, "{rule:?}");
        }
        assert_eq!(table(Rule::Freestyle).reach, 4);
        assert_eq!(table(Rule::Standard).reach, HALF);
    }

    #[test]
    fn black_shapes_in_freestyle() {
        let b = |l: &str| shape_of(Rule::Freestyle, Color::Black, l);
        assert_eq!(b("...XX_XX..."), Shape::Five);
        assert_eq!(b("..XXX_XX..."), Shape::Five);
        assert_eq!(b("....X_XX..."), Shape::OpenFour);
        assert_eq!(b("...OX_XX..."), Shape::Four);
        assert_eq!(b("..XX._X...."), Shape::Four);
        assert_eq!(b("....._XX..."), Shape::OpenThree);
        assert_eq!(b("....X_.X..."), Shape::OpenThree);
        assert_eq!(b("...OX_X...."), Shape::Three);
        assert_eq!(b("....._X...."), Shape::OpenTwo);
        assert_eq!(b("....O_X...."), Shape::Two);
        assert_eq!(b("....._....."), Shape::One);
        assert_eq!(b("...O._..O.."), Shape::Dead);
        assert_eq!(b("..O.._...O."), Shape::One);
        assert_eq!(b("#...._X...."), Shape::OpenTwo);
        assert_eq!(b("####._XX.##"), Shape::Three);
    }

    #[test]
    fn exact_rules_see_overlines() {
        let std = |l: &str| shape_of(Rule::Standard, Color::White, l);
        // O O _ O O O : six, not five.
        let w = |l: &str| l.replace('X', "O");
        assert_eq!(std(&w("...XX_XXX..")), Shape::Overline);
        assert_eq!(std(&w("...XX_XX...")), Shape::Five);
        // A four whose only five point would make six is no four.
        assert_eq!(std(&w("..X.X_XX...")), Shape::Four);
        assert_eq!(std(&w(".X.XX_X....")), Shape::Four);
        let renju_black = |l: &str| shape_of(Rule::Renju, Color::Black, l);
        let renju_white = |l: &str| shape_of(Rule::Renju, Color::White, l);
        assert_eq!(renju_black("...XX_XXX.."), Shape::Overline);
        assert_eq!(renju_white(&w("...XX_XXX..")), Shape::Five);
    }

    #[test]
    fn caro_needs_an_open_end() {
        let caro = |l: &str| shape_of(Rule::Caro, Color::Black, l);
        assert_eq!(caro("...OX_XXXO."), Shape::Dead);
        assert_eq!(caro("...#X_XXXO."), Shape::Five, "the edge never blocks");
        assert_eq!(caro("..OXX_XXXO."), Shape::Five, "six wins in rule 8");
        let exact = |l: &str| shape_of(Rule::CaroExact, Color::Black, l);
        assert_eq!(exact("..OXX_XXXO."), Shape::Overline);
        assert_eq!(exact("...OX_XXX.."), Shape::Five);
    }

    #[test]
    fn pattern_codes_and_classes() {
        let s = |a: Shape, b: Shape, c: Shape, d: Shape| [a as u8, b as u8, c as u8, d as u8];
        let a = pcode(s(Shape::Four, Shape::OpenThree, Shape::Dead, Shape::One));
        let b = pcode(s(Shape::Dead, Shape::One, Shape::OpenThree, Shape::Four));
        assert_eq!(a, b);
        assert_eq!(class(a), Class::FourThree);
        let d = Shape::Dead;
        assert_eq!(
            class(pcode(s(Shape::Four, Shape::Four, d, d))),
            Class::OpenFour
        );
        assert_eq!(
            class(pcode(s(Shape::OpenThree, Shape::OpenThree, d, d))),
            Class::DoubleThree
        );
        assert_eq!(
            class(pcode(s(Shape::OpenThree, Shape::OpenTwo, d, d))),
            Class::ThreePlus
        );
        assert_eq!(class(pcode(s(Shape::Overline, d, d, d))), Class::None);
        assert_eq!(class(pcode(s(Shape::Five, d, d, d))), Class::Five);
        assert_eq!(swap_colours(key("XO#..X.O..")), key("OX#..O.X.."));
        for i in [0u16, 7, 1234, 9999, 9070] {
            assert_eq!(class_of_index(i), class(pcode_of_index(i)));
        }
        let mut seen = [false; PCODES];
        for v in 0..10_000 {
            let sh = [v / 1000, v / 100 % 10, v / 10 % 10, v % 10].map(|x| x as u8);
            seen[pcode(sh) as usize] = true;
            let mut sorted = sh;
            sorted.sort();
            assert_eq!(PCODE_SHAPES[pcode(sh) as usize], sorted);
        }
        assert!(seen.iter().all(|&s| s));
    }
}
