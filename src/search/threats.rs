//! Threat search: VCF (victory by continuous fours) and VCT (fours and open threes) for the side
//! to move, on the board's line counts, within a node budget. Results are proofs: a returned
//! win holds against every defence the rules allow (the VCT treats any defender four as a reply).

use crate::board::lines::OCCUPIED;
use crate::board::pattern::{Class, Shape};
use crate::board::threat::{five_points_through, fours_made, is_five_point};
use crate::board::{Board, Color};
use crate::geometry::Pos;
use crate::rules::Rule;
use crate::search::limits::Deadline;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const NONE: u16 = u16::MAX;
/// Entries of the cache of positions proven to hold no VCF (a power of two).
const FAIL_CACHE: usize = 1 << 14;
/// Fours a VCF inside the VCT may use by default (fours cost the defender no choice, so they
/// are cheap).
const VCF_IN_VCT: u32 = 30;

/// Nodes between two calls of the solver's stop check.
const POLL: u64 = 1024;
/// Nodes a VCT may spend, by default, looking for the VCF a quiet attacker move threatens.
const PROBE_NODES: u64 = 10;
/// Fours such a threatened VCF may use.
const PROBE_FOURS: u32 = 12;
/// The first attacker moves of a VCT line that may be quiet moves threatening a VCF.
const QUIET_PLIES: u32 = 2;
/// Positions a VCT keeps as proven (won for the attacker to move, or lost for the defender
/// to move), and the moves of their lines it keeps in all: later proofs are not kept (about
/// 1 MB at most).
const PROVEN_CAP: usize = 1 << 14;
const PROVEN_MOVES: usize = 1 << 18;

/// Hashes a position key as it is: Zobrist keys are random already.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// The kind of threat the defender faces in the VCT.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Threat {
    /// A point giving the attacker two five points (an open three's, a double four's).
    Double,
    /// A VCF the attacker would have if it moved again (a quiet move's threat).
    Vcf,
}

/// A threat-search solver. `nodes` counts every position it visits, across calls.
pub struct Solver<'a> {
    pub rule: Rule,
    pub nodes: u64,
    /// Asked every few thousand nodes whether to give up now: the search's stop flag and hard
    /// limit, and `cap_ms` (elapsed milliseconds) when it is given.
    pub stop_check: Option<Deadline<'a>>,
    /// A time cap for the current search, in elapsed milliseconds of the move.
    pub cap_ms: Option<u64>,
    /// Fours a VCF inside the VCT may use (either side's).
    pub vcf_in_vct: u32,
    /// Nodes the VCT may spend on each quiet attacker move, looking for the VCF it threatens
    /// (0: threes and fours only).
    pub probe_nodes: u64,
    /// The first this many attacker moves of a VCT line may be such quiet moves.
    pub quiet_plies: u32,
    vct_ply: u32,
    limit: u64,
    exhausted: bool,
    stopped: bool,
    line: Vec<u16>,
    stack: Vec<u16>,
    fail: Vec<(u64, u8)>,
    vct_fail: Vec<(u64, u8)>,
    /// The positions the current VCT has proven, by key: the plies to the five and the line
    /// from there (in `line`'s reversed order). A proof holds whatever the path to it, so a
    /// position met again (another move order, a deeper iteration) is not searched again.
    proven: HashMap<u64, (i32, u32, u32), BuildHasherDefault<KeyHasher>>,
    /// The kept lines, one after another (`proven` holds each one's start and end).
    proven_moves: Vec<u16>,
    /// Whether `proven` is used (`INFO wuzi_vct_proven`).
    pub use_proven: bool,
}

/// What the side to move faces before a threat search: the cells it must or may play first.
enum Start {
    /// It has a five point: a win in one ply.
    Five(u16),
    /// The opponent has two five points (or one black may not block): no threat search helps.
    Lost,
    /// The opponent has one five point; only a block that is also a four continues a VCF.
    Block(u16),
    Free,
}

impl<'a> Solver<'a> {
    pub fn new(rule: Rule) -> Solver<'a> {
        Solver {
            rule,
            nodes: 0,
            stop_check: None,
            cap_ms: None,
            vcf_in_vct: VCF_IN_VCT,
            probe_nodes: PROBE_NODES,
            quiet_plies: QUIET_PLIES,
            vct_ply: 0,
            limit: 0,
            exhausted: false,
            stopped: false,
            line: Vec::new(),
            stack: Vec::new(),
            fail: vec![(0, 0); FAIL_CACHE],
            vct_fail: vec![(0, 0); FAIL_CACHE],
            proven: HashMap::default(),
            proven_moves: Vec::new(),
            use_proven: true,
        }
    }

    /// A position the current VCT has proven: its plies, its line appended to `line`.
    fn recall(&mut self, key: u64) -> Option<i32> {
        let &(plies, from, to) = self.proven.get(&key)?;
        self.line
            .extend_from_slice(&self.proven_moves[from as usize..to as usize]);
        Some(plies)
    }

    /// Keeps the proof of the position `key` (its line is `line[mark..]`), while there is room.
    fn keep(&mut self, key: u64, plies: i32, mark: usize) {
        let from = self.proven_moves.len();
        let to = from + self.line.len() - mark;
        if self.use_proven && self.proven.len() < PROVEN_CAP && to <= PROVEN_MOVES {
            self.proven_moves.extend_from_slice(&self.line[mark..]);
            self.proven.insert(key, (plies, from as u32, to as u32));
        }
    }

    /// Forgets the positions kept as proven (a new VCT).
    fn forget_proven(&mut self) {
        self.proven.clear();
        self.proven_moves.clear();
    }

    /// The winning line of the last successful search: attacker and defender moves alternating,
    /// ending with the attacker's last four (or its five).
    pub fn line(&self, board: &Board) -> Vec<Pos> {
        self.line
            .iter()
            .map(|&i| board.dims().pos(i as usize))
            .collect()
    }

    /// Whether the last search stopped on its node budget (a `None` then proves nothing).
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Starts a search on `board`, whose patterns must be read under the solver's rule.
    fn begin_on(&mut self, board: &mut Board, budget: u64) {
        board.set_rule(self.rule);
        self.begin(budget);
    }

    fn begin(&mut self, budget: u64) {
        self.limit = self.nodes.saturating_add(budget);
        self.exhausted = false;
        self.stopped = false;
        self.line.clear();
    }

    fn spend(&mut self) -> bool {
        if self.nodes >= self.limit {
            self.exhausted = true;
        } else if self.nodes % POLL == 0 && self.stop_check.is_some_and(|d| d.passed(self.cap_ms)) {
            self.stopped = true;
            self.exhausted = true;
        } else {
            self.nodes += 1;
        }
        !self.exhausted
    }

    fn foul(&self, board: &mut Board, c: Color, i: u16) -> bool {
        self.rule.has_fouls(c) && board.is_foul(i as usize)
    }

    /// Scans the board for the side to move's five and the opponent's five points.
    fn start(&self, board: &mut Board) -> Start {
        let me = board.to_move();
        let opp = me.opp();
        if let Some(i) = board
            .empty_cells_with_lines(me, 4, 1)
            .into_iter()
            .find(|&i| is_five_point(board, self.rule, me, i as usize))
        {
            return Start::Five(i);
        }
        let mut block = None;
        let mut blocks = 0;
        for i in board.empty_cells_with_lines(opp, 4, 1) {
            if is_five_point(board, self.rule, opp, i as usize) {
                blocks += 1;
                block = Some(i);
            }
        }
        match block {
            None => Start::Free,
            Some(i) if blocks == 1 && !self.foul(board, me, i) => Start::Block(i),
            Some(_) => Start::Lost,
        }
    }

    /// Starts a root search: `Err` with the result when the start settles it (a five to take:
    /// a win in one; the opponent's unstoppable five: none), else `Ok` with the cell the first
    /// move must block (`NONE` when it is free).
    fn root_start(&mut self, board: &mut Board, budget: u64) -> Result<u16, Option<i32>> {
        self.begin_on(board, budget);
        match self.start(board) {
            Start::Five(i) => {
                self.line.push(i);
                Err(Some(1))
            }
            Start::Lost => Err(None),
            Start::Block(i) => Ok(i),
            Start::Free => Ok(NONE),
        }
    }

    /// Searches a VCF for the side to move with at most `max_fours` fours and `budget` nodes,
    /// shorter ones first. Returns the plies to the five (1 when a five is on the board already).
    pub fn vcf(&mut self, board: &mut Board, max_fours: u32, budget: u64) -> Option<i32> {
        board.without_network(|board| self.vcf_unpaused(board, max_fours, budget))
    }

    fn vcf_unpaused(&mut self, board: &mut Board, max_fours: u32, budget: u64) -> Option<i32> {
        let forced = match self.root_start(board, budget) {
            Ok(forced) => forced,
            Err(settled) => return settled,
        };
        // Deepen in steps, so that a short VCF is found before a long one.
        let mut depth = 1;
        let r = loop {
            self.line.clear();
            let r = self.vcf_node(board, depth.min(max_fours), forced);
            if r.is_some() || self.exhausted || depth >= max_fours {
                break r;
            }
            depth = (depth * 3).div_ceil(2);
        };
        self.line.reverse();
        r
    }

    /// A VCF search at a node where neither side has a five point (the caller has looked).
    /// `fours` lists every empty cell where the side to move has a window with three stones.
    pub fn vcf_quiet(
        &mut self,
        board: &mut Board,
        max_fours: u32,
        budget: u64,
        fours: &[u16],
    ) -> Option<i32> {
        board.without_network(|board| self.vcf_quiet_unpaused(board, max_fours, budget, fours))
    }

    fn vcf_quiet_unpaused(
        &mut self,
        board: &mut Board,
        max_fours: u32,
        budget: u64,
        fours: &[u16],
    ) -> Option<i32> {
        self.begin_on(board, budget);
        if fours.is_empty() {
            return None;
        }
        let from = self.stack.len();
        self.stack.extend_from_slice(fours);
        let r = self.vcf_listed(board, max_fours, NONE, from);
        self.stack.truncate(from);
        self.line.reverse();
        r
    }

    /// The cells the side to move must choose from when the opponent has a point giving it two
    /// five points (an open three's straight four, a double four): the cells that spoil every
    /// such point. `None` when the opponent has no such point.
    /// `points` must include every empty cell where the opponent has two windows holding three
    /// of its stones (the only places such a point can be).
    pub fn must_defend(&mut self, board: &mut Board, points: &[u16], out: &mut Vec<u16>) -> bool {
        board.without_network(|board| self.must_defend_unpaused(board, points, out))
    }

    fn must_defend_unpaused(
        &mut self,
        board: &mut Board,
        points: &[u16],
        out: &mut Vec<u16>,
    ) -> bool {
        board.set_rule(self.rule);
        self.defences_among(board, board.to_move().opp(), points, out);
        !out.is_empty()
    }

    /// The attacker (side to move) has no five point; the defender's only five point, if any,
    /// is `forced`. Tries every four.
    fn vcf_node(&mut self, board: &mut Board, depth: u32, forced: u16) -> Option<i32> {
        let from = self.stack.len();
        self.scan_fours(board);
        let r = self.vcf_listed(board, depth, forced, from);
        self.stack.truncate(from);
        r
    }

    /// Appends every empty cell where the side to move makes a four (its line patterns' four
    /// cells) to the candidate stack.
    fn scan_fours(&mut self, board: &Board) {
        let me = board.to_move();
        self.stack
            .extend(board.line_patterns().fours(me).map(|i| i as u16));
    }

    /// `vcf_node` with the attacker's candidate fours in `stack[from..]`: exactly the empty
    /// cells where it has a window holding three of its stones.
    fn vcf_listed(
        &mut self,
        board: &mut Board,
        depth: u32,
        forced: u16,
        from: usize,
    ) -> Option<i32> {
        if depth == 0 || !self.spend() {
            return None;
        }
        let key = board.key();
        let slot = (key as usize) & (FAIL_CACHE - 1);
        if forced == NONE && self.fail[slot].0 == key && self.fail[slot].1 as u32 >= depth {
            return None;
        }
        let end = self.stack.len();
        let mut result = None;
        for k in from..end {
            let i = self.stack[k];
            if forced != NONE && i != forced {
                continue;
            }
            if let Some(plies) = self.try_four(board, i, depth, from, end) {
                result = Some(plies);
                break;
            }
            if self.exhausted {
                return None;
            }
        }
        if result.is_none() && forced == NONE && !self.exhausted {
            self.fail[slot] = (key, depth.min(255) as u8);
        }
        result
    }

    /// The attacker's candidate fours after its four on `i` and the block: the old ones still
    /// open, and the cells of the windows through `i` that now hold three of its stones.
    fn push_next_fours(&mut self, board: &Board, me: Color, i: u16, from: usize, end: usize) {
        let child = self.stack.len();
        for k in from..end {
            let x = self.stack[k];
            if x != i && board.is_empty_index(x as usize) && board.has_line(me, x as usize, 3) {
                self.stack.push(x);
            }
        }
        let windows = board.windows();
        for &w in windows.through(i as usize) {
            let counts = board.wincount().counts(w as usize);
            if counts[me.index()] != 3 || counts[me.opp().index()] != 0 {
                continue;
            }
            for &e in windows.cells(w as usize) {
                if board.is_empty_index(e as usize) && !self.stack[child..].contains(&e) {
                    self.stack.push(e);
                }
            }
        }
    }

    /// Plays the attacker's four on `i` (if it is one), the forced block, and goes on.
    fn try_four(
        &mut self,
        board: &mut Board,
        i: u16,
        depth: u32,
        from: usize,
        end: usize,
    ) -> Option<i32> {
        let me = board.to_move();
        let opp = me.opp();
        if self.foul(board, me, i) {
            return None;
        }
        let dims = board.dims();
        board.play(dims.pos(i as usize));
        let mut fives = [NONE; 2];
        let n = five_points_through(board, self.rule, me, i as usize, &mut fives);
        let result = if n == 0 {
            None
        } else if n >= 2 || self.foul(board, opp, fives[0]) {
            // Two five points, or one that black may not take: the defender cannot stop it.
            Some(3)
        } else {
            let block = fives[0];
            board.play(dims.pos(block as usize));
            let mut counter = [NONE; 2];
            let m = five_points_through(board, self.rule, opp, block as usize, &mut counter);
            let child = self.stack.len();
            self.push_next_fours(board, me, i, from, end);
            let r = match m {
                0 => self.vcf_listed(board, depth - 1, NONE, child),
                1 => self.vcf_listed(board, depth - 1, counter[0], child),
                _ => None,
            };
            self.stack.truncate(child);
            board.undo();
            if r.is_some() {
                self.line.push(block);
            }
            r.map(|plies| plies + 2)
        };
        board.undo();
        if result.is_some() {
            self.line.push(i);
        }
        result
    }

    /// Whether the side that just played cell `last` (the attacker; the defender is to move)
    /// still wins by force: every reply loses to a VCF or VCT within `max_threats` threats.
    /// Only fours and threes by `last` are followed: a quiet move proves nothing here.
    pub fn wins_after(
        &mut self,
        board: &mut Board,
        last: u16,
        max_threats: u32,
        budget: u64,
    ) -> Option<i32> {
        board.without_network(|board| self.wins_after_unpaused(board, last, max_threats, budget))
    }

    fn wins_after_unpaused(
        &mut self,
        board: &mut Board,
        last: u16,
        max_threats: u32,
        budget: u64,
    ) -> Option<i32> {
        self.begin_on(board, budget);
        self.forget_proven();
        let def = board.to_move();
        let att = def.opp();
        if board
            .empty_cells_with_lines(def, 4, 1)
            .into_iter()
            .any(|i| is_five_point(board, self.rule, def, i as usize))
        {
            return None;
        }
        let mut fives = [NONE; 2];
        let n = five_points_through(board, self.rule, att, last as usize, &mut fives);
        let mut r = None;
        for depth in 1..=max_threats {
            self.line.clear();
            r = match n {
                0 => self.defend(board, depth, Threat::Vcf),
                1 => self.defend_forced(board, depth - 1, fives[0]),
                _ => Some(2),
            };
            if r.is_some() || self.exhausted {
                break;
            }
        }
        self.line.reverse();
        r
    }

    /// Searches a VCT for the side to move: fours and open threes, the defender answering a
    /// three with any move that stops it or with its own fours. `max_threats` bounds the
    /// attacker's moves, `budget` the nodes. Returns plies to the five as an upper bound.
    pub fn vct(&mut self, board: &mut Board, max_threats: u32, budget: u64) -> Option<i32> {
        board.without_network(|board| self.vct_unpaused(board, max_threats, budget))
    }

    fn vct_unpaused(&mut self, board: &mut Board, max_threats: u32, budget: u64) -> Option<i32> {
        self.forget_proven();
        let forced = match self.root_start(board, budget) {
            Ok(forced) => forced,
            Err(settled) => return settled,
        };
        // Deepen one threat at a time: short wins are found first and cheaply.
        let mut r = None;
        for depth in 1..=max_threats {
            self.line.clear();
            r = self.vct_node(board, depth, forced);
            if r.is_some() || self.exhausted {
                break;
            }
        }
        self.line.reverse();
        r
    }

    fn vct_node(&mut self, board: &mut Board, depth: u32, forced: u16) -> Option<i32> {
        let key = board.key();
        if let Some(plies) = self.recall(key) {
            return Some(plies);
        }
        let mark = self.line.len();
        self.vct_ply += 1;
        let r = self.vct_move(board, depth, forced);
        self.vct_ply -= 1;
        if let Some(plies) = r {
            self.keep(key, plies, mark);
        }
        r
    }

    /// `vct_node` at attacker move `vct_ply` of the line (1 for the first).
    fn vct_move(&mut self, board: &mut Board, depth: u32, forced: u16) -> Option<i32> {
        if depth == 0 || !self.spend() {
            return None;
        }
        let mark = self.line.len();
        if let Some(plies) = self.vcf_node(board, self.vcf_in_vct, forced) {
            return Some(plies);
        }
        self.line.truncate(mark);
        if self.exhausted || forced != NONE || depth < 2 {
            return None;
        }
        let key = board.key();
        let slot = (key as usize) & (FAIL_CACHE - 1);
        if self.vct_fail[slot].0 == key && self.vct_fail[slot].1 as u32 >= depth {
            return None;
        }
        let me = board.to_move();
        let dims = board.dims();
        // The cells where a stone makes at least a closed three on one of its lines (a four
        // comes next), most promising (by the win-count gains) first.
        let mut order: Vec<(i32, u16)> = Vec::new();
        let lines = board.line_patterns();
        for i in 0..dims.cells() {
            // A three may reach three cells away from the stones: every empty cell is looked at.
            if lines.index(me, i) != OCCUPIED
                && (0..4).any(|d| lines.shape(me, i, d) >= Shape::Three)
            {
                let sums = board.cell_sums(i);
                let score = 2 * sums.gain[me.index()] + sums.gain[me.opp().index()];
                order.push((score, i as u16));
            }
        }
        order.sort_unstable_by(super::better);
        let mut quiet = Vec::new();
        for &(_, i) in &order {
            let i = i as usize;
            if self.foul(board, me, i as u16) {
                continue;
            }
            // The patterns tell fours and open threes from the rest without playing the move;
            // the rest are the quiet moves tried below.
            let lines = board.line_patterns();
            let threat = lines.class(me, i).is_four()
                || (0..4).any(|d| lines.shape(me, i, d) == Shape::OpenThree);
            if !threat {
                quiet.push(i as u16);
                continue;
            }
            board.play(dims.pos(i));
            let mut fives = [NONE; 2];
            let r = match five_points_through(board, self.rule, me, i, &mut fives) {
                // A four (a VCF would have found a double one): the block, then go on.
                1 => self.defend_forced(board, depth - 1, fives[0]),
                _ if self.open_four_points(board, me, i) => {
                    self.defend(board, depth - 1, Threat::Double)
                }
                _ => {
                    quiet.push(i as u16);
                    None
                }
            };
            board.undo();
            if let Some(plies) = r {
                self.line.push(i as u16);
                return Some(plies + 1);
            }
            self.line.truncate(mark);
            if self.exhausted {
                return None;
            }
        }
        // Then the quiet moves that threaten a VCF, the defender answering on its cells.
        if self.probe_nodes > 0 && self.vct_ply <= self.quiet_plies {
            for i in quiet {
                board.play(dims.pos(i as usize));
                let r = self.defend(board, depth - 1, Threat::Vcf);
                board.undo();
                if let Some(plies) = r {
                    self.line.push(i);
                    return Some(plies + 1);
                }
                self.line.truncate(mark);
                if self.exhausted {
                    return None;
                }
            }
        }
        self.vct_fail[slot] = (key, depth.min(255) as u8);
        None
    }

    /// Whether the attacker (the side not to move) would have a VCF if it moved again. If so,
    /// `out` gets every cell where a defender stone may spoil the one found: its own cells,
    /// the final five points, and the cells sharing a window with a block where the defender
    /// has stones (a block there might make a defender four, or change a renju foul).
    fn threatened_vcf(&mut self, board: &mut Board, out: &mut Vec<u16>) -> bool {
        let def = board.to_move();
        let att = def.opp();
        let limit = self.limit;
        self.limit = limit.min(self.nodes.saturating_add(self.probe_nodes));
        let mark = self.line.len();
        board.set_to_move(att);
        let mut depth = 1;
        let found = loop {
            self.line.truncate(mark);
            let r = self.vcf_node(board, depth, NONE);
            if r.is_some() || self.exhausted || depth >= PROBE_FOURS {
                break r.is_some();
            }
            depth = (depth * 3).div_ceil(2).min(PROBE_FOURS);
        };
        self.limit = limit;
        self.exhausted = self.stopped || self.nodes >= limit;
        out.clear();
        if found {
            let line: Vec<u16> = self.line[mark..].iter().rev().copied().collect();
            let near = if self.rule.has_fouls(def) { 1 } else { 2 };
            for (k, &c) in line.iter().enumerate() {
                if k % 2 == 1 {
                    self.spoilers(board, def, c, near, out);
                }
                out.push(c);
                board.play(board.dims().pos(c as usize));
            }
            let last = line[line.len() - 1] as usize;
            let mut fives = [NONE; 2];
            let n = five_points_through(board, self.rule, att, last, &mut fives);
            for &f in &fives[..n.min(2)] {
                self.spoilers(board, def, f, near, out);
                out.push(f);
            }
            for _ in &line {
                board.undo();
            }
            out.sort_unstable();
            out.dedup();
        }
        self.line.truncate(mark);
        board.set_to_move(def);
        found
    }

    /// Appends the empty cells of the windows through `b` that hold at least `near` stones of
    /// `def` and none of the other side's.
    fn spoilers(&self, board: &Board, def: Color, b: u16, near: u8, out: &mut Vec<u16>) {
        let windows = board.windows();
        for &w in windows.through(b as usize) {
            let counts = board.wincount().counts(w as usize);
            if counts[def.index()] < near || counts[def.opp().index()] != 0 {
                continue;
            }
            for &e in windows.cells(w as usize) {
                if e != b && board.is_empty_index(e as usize) {
                    out.push(e);
                }
            }
        }
    }

    /// Whether `c`, which just played cell `i`, now has a point that gives it two five points
    /// (a straight four or a double four) on the lines through `i`, and may play it.
    fn open_four_points(&mut self, board: &mut Board, c: Color, i: usize) -> bool {
        let windows = board.windows();
        let mut cand = [NONE; 16];
        let mut n = 0;
        for &w in windows.through(i) {
            let counts = board.wincount().counts(w as usize);
            if counts[c.index()] != 3 || counts[c.opp().index()] != 0 {
                continue;
            }
            for &e in windows.cells(w as usize) {
                if n < cand.len()
                    && board.is_empty_at(board.dims().pos(e as usize))
                    && !cand[..n].contains(&e)
                {
                    cand[n] = e;
                    n += 1;
                }
            }
        }
        cand[..n]
            .iter()
            .any(|&e| self.is_double_threat(board, c, e))
    }

    /// Whether `c` playing the empty cell `e` gets two five points, and may play it.
    fn is_double_threat(&mut self, board: &mut Board, c: Color, e: u16) -> bool {
        let lines = board.line_patterns();
        let class = lines.class(c, e as usize);
        // Short of a five, the patterns' class is exact: two five points are `OpenFour` and
        // nothing else (tests/patterns.rs checks it against the threat code).
        let double = if lines.rule() == self.rule && class != Class::Five {
            class == Class::OpenFour
        } else {
            board.lines(c, e as usize, 3) >= 2 && fours_made(board, self.rule, c, e as usize) >= 2
        };
        double && !self.foul(board, c, e)
    }

    /// The replies that stop every double-threat point of `att` (the cells of the windows that
    /// such a point would turn into fours), in cell order; empty when `att` has no such point.
    fn defences(&mut self, board: &mut Board, att: Color, out: &mut Vec<u16>) {
        let points = board.empty_cells_with_lines(att, 3, 2);
        self.defences_among(board, att, &points, out);
    }

    /// `defences` for the threat points among `points` (empty cells; the others are not).
    fn defences_among(
        &mut self,
        board: &mut Board,
        att: Color,
        points: &[u16],
        out: &mut Vec<u16>,
    ) {
        out.clear();
        let dims = board.dims();
        for &f in points {
            let f = f as usize;
            if !self.is_double_threat(board, att, f as u16) {
                continue;
            }
            let windows = board.windows();
            for &w in windows.through(f) {
                let counts = board.wincount().counts(w as usize);
                if counts[att.index()] != 3 || counts[att.opp().index()] != 0 {
                    continue;
                }
                for &e in windows.cells(w as usize) {
                    if board.is_empty_at(dims.pos(e as usize)) {
                        out.push(e);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// The defender (side to move) faces a three: the attacker wins only if it wins after every
    /// reply (a defender VCF refutes the three at once).
    fn defend(&mut self, board: &mut Board, depth: u32, threat: Threat) -> Option<i32> {
        let key = board.key();
        if let Some(plies) = self.recall(key) {
            return Some(plies);
        }
        let mark = self.line.len();
        let r = self.defend_moves(board, depth, threat);
        if let Some(plies) = r {
            self.keep(key, plies, mark);
        }
        r
    }

    /// `defend` for a position not proven yet.
    fn defend_moves(&mut self, board: &mut Board, depth: u32, threat: Threat) -> Option<i32> {
        if !self.spend() {
            return None;
        }
        let me = board.to_move();
        let att = me.opp();
        let mark = self.line.len();
        let mut replies = Vec::new();
        // The threat is gone (never made, or a counter-four took it): no tempo left.
        if threat == Threat::Vcf && !self.threatened_vcf(board, &mut replies) {
            return None;
        }
        if self.vcf_node(board, self.vcf_in_vct, NONE).is_some() || self.exhausted {
            self.line.truncate(mark);
            return None;
        }
        self.line.truncate(mark);
        let dims = board.dims();
        if threat == Threat::Double {
            self.defences(board, att, &mut replies);
            if replies.is_empty() {
                return None;
            }
        }
        for i in board.empty_cells_with_lines(me, 3, 1) {
            if !replies.contains(&i) && fours_made(board, self.rule, me, i as usize) > 0 {
                replies.push(i);
            }
        }
        // Likely refutations first: a reply's worth to both sides on the win-count table.
        let mut ranked: Vec<(i32, u16)> = replies
            .iter()
            .map(|&i| {
                let sums = board.cell_sums(i as usize);
                (sums.gain[me.index()] + sums.gain[att.index()], i)
            })
            .collect();
        ranked.sort_unstable_by(super::better);
        let mut worst = 0;
        let mut first = None;
        for &(_, i) in &ranked {
            let i = i as usize;
            if self.foul(board, me, i as u16) {
                continue;
            }
            board.play(dims.pos(i));
            let mut fives = [NONE; 2];
            let n = five_points_through(board, self.rule, me, i, &mut fives);
            let r = match n {
                0 => self.vct_node(board, depth, NONE),
                1 => self.after_counter_four(board, depth, fives[0], threat),
                _ => None,
            };
            board.undo();
            match r {
                None => {
                    self.line.truncate(mark);
                    return None;
                }
                Some(plies) => {
                    if plies + 1 > worst {
                        worst = plies + 1;
                    }
                    if first.is_none() {
                        self.line.push(i as u16);
                        first = Some(self.line[mark..].to_vec());
                    }
                    self.line.truncate(mark);
                }
            }
        }
        // Keep one line (the first defence's) for the principal variation.
        if let Some(l) = first {
            self.line.extend(l);
        }
        Some(worst.max(3))
    }

    /// The defender made a four: the attacker must block on `block`, then the defender moves
    /// again against the same threats.
    fn after_counter_four(
        &mut self,
        board: &mut Board,
        depth: u32,
        block: u16,
        threat: Threat,
    ) -> Option<i32> {
        let att = board.to_move();
        if self.foul(board, att, block) {
            return None;
        }
        board.play(board.dims().pos(block as usize));
        let mut fives = [NONE; 2];
        let n = five_points_through(board, self.rule, att, block as usize, &mut fives);
        let r = match n {
            0 => self.defend(board, depth, threat),
            // The block made a four: the defender must block it in turn (or lose).
            1 => self.defend_forced(board, depth, fives[0]),
            _ => Some(2),
        };
        board.undo();
        if r.is_some() {
            self.line.push(block);
        }
        r.map(|plies| plies + 1)
    }

    /// The defender must take `block` (the attacker's five point), then the attacker moves.
    fn defend_forced(&mut self, board: &mut Board, depth: u32, block: u16) -> Option<i32> {
        let me = board.to_move();
        if self.foul(board, me, block) {
            return Some(2);
        }
        board.play(board.dims().pos(block as usize));
        let mut fives = [NONE; 2];
        let n = five_points_through(board, self.rule, me, block as usize, &mut fives);
        let r = match n {
            0 => self.vct_node(board, depth, NONE),
            1 => self.vct_node(board, depth, fives[0]),
            _ => None,
        };
        board.undo();
        if r.is_some() {
            self.line.push(block);
        }
        r.map(|plies| plies + 1)
    }
}
