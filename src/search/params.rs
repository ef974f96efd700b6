//! Every tunable of the search and evaluation, with its default.

use crate::board::pattern::{Class, CLASSES};
use crate::eval::EvalParams;

/// Search and evaluation tunables. Weights are in sixteenths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// The evaluation's own switches and weights (set by the same names as the others).
    pub eval: EvalParams,
    /// Moves searched at an interior node at most (the best-scored ones).
    pub beam: usize,
    /// Extra moves allowed per remaining depth at an interior node.
    pub beam_per_depth: usize,
    /// Moves kept beyond the beam in case some of them may not be played (renju fouls).
    pub beam_spare: usize,
    /// Nodes between two looks at the clock and the stop flag.
    pub poll_interval: u64,
    /// Fours a leaf's VCF (the quiescence search) may use.
    pub qvcf_fours: u32,
    /// Nodes a leaf's VCF may visit.
    pub qvcf_nodes: u64,
    /// Nodes the root VCF may visit before the main search.
    pub root_vcf_nodes: u64,
    /// Nodes the root VCT may visit before the main search.
    pub root_vct_nodes: u64,
    /// Percent of the soft time limit the root threat searches may use (timed searches).
    pub root_threat_share: u64,
    /// Threats (fours and threes) the root VCT may use.
    pub root_vct_threats: u32,
    /// Nodes the VCT spends on each quiet attacker move looking for a threatened VCF (0: the
    /// VCT plays threes and fours only).
    pub vct_probe_nodes: u64,
    /// The first this many attacker moves of a VCT line may be such quiet moves.
    pub vct_quiet_plies: u32,
    /// The VCT keeps the positions it proves and does not search them again.
    pub vct_proven: bool,
    /// Late-move reductions: moves searched in full before reducing.
    pub lmr_after: usize,
    /// Late-move reductions: least remaining depth that is reduced.
    pub lmr_depth: i32,
    /// Late-move reductions: moves searched before reducing by two plies.
    pub lmr_after2: usize,
    /// History scores saturate here.
    pub history_max: i32,
    /// History score divisor when it is added to a move's ordering score.
    pub history_divisor: i32,
    /// Half-width of the first aspiration window around the last iteration's score (0: none).
    pub aspiration: i32,
    /// Whether a node facing a double-threat point searches only the defences.
    pub defend: bool,
    /// What a node restricted to its defences against a four-three point (a set that leaves
    /// out indirect defences, so not a proof) does when every defence it searched loses:
    /// 0 returns that loss as a mate score (unsound: the old behaviour), 1 searches the moves
    /// it left out too, so that only a loss against every move is a mate.
    pub defend_widen: u8,
    /// Whether nodes read fives, fours and the opponent's threats (open fours, four-threes)
    /// from the pattern classes (else from the window counts, without four-threes).
    pub pattern_moves: bool,
    /// How quiet interior nodes limit their moves: 0 the fixed beam (`beam`,
    /// `beam_per_depth`); 1 by threats: every move that attacks or defends a threat, and only
    /// the best `quiet_moves + quiet_per_depth * depth` of the others.
    pub prune: u8,
    /// Quiet moves a node searches with `prune` 1, besides the threats.
    pub quiet_moves: usize,
    /// More quiet moves per remaining depth with `prune` 1.
    pub quiet_per_depth: usize,
    /// Reverse futility: the deepest remaining depth it applies to (0: off).
    pub rfp_depth: i32,
    /// Reverse futility: the margin per remaining ply the evaluation must beat beta by.
    pub rfp_margin: i32,
    /// Plies taken off the depth before the reverse-futility margin is counted: 1 asks
    /// nothing more than beta of a node a ply from the horizon (Rapfi's form).
    pub rfp_offset: i32,
    /// With a turn limit only: percent of the hard limit after which no iteration starts
    /// (100: search to the hard limit; 50 was the old behaviour).
    pub soft_percent: u64,
    /// With a match clock: our moves the game is assumed to last still from an empty board
    /// (a stone less for every three on it, never below 12); the soft limit is the usable clock
    /// over them (`time::moves_to_go`).
    pub time_togo: u64,
    /// With a match clock: the moves to go are never fewer than the empty cells over this
    /// (0: no such floor; `time::moves_to_go`).
    pub time_floor: u64,
    /// With a match clock: the percent of the soft limit a settled best move stops at
    /// (`time::stop_after`; each recent change of the best move adds 90).
    pub time_base: u64,
    /// Correction history (`search/correct.rs`): the percent of its learned correction added
    /// to the static evaluation (0: off).
    pub corr_weight: i32,
    /// Late-move reductions by formula: ln(depth)·ln(move number)·10 / this, rounded (0: the
    /// fixed steps of `lmr_after` and `lmr_after2`).
    pub lmr_log: i32,
    /// Move-count pruning in place of the beam: a quiet non-PV node stops trying moves that
    /// make no four after `mcp_count` of them once one does not lose (PV nodes after twice
    /// as many plus `mcp_pv`); every move of a PV node is searched when `mcp_pv` is negative.
    pub mcp: bool,
    /// Move-count pruning: moves tried at any depth before the depth term.
    pub mcp_base: i32,
    /// Move-count pruning: extra moves for a PV node.
    pub mcp_pv: i32,
    /// Move-count pruning keeps the moves whose threat class for the mover is at least this
    /// (`pattern::Class` as a number: 10 a four-plus, 9 a four, 6 an open three).
    pub mcp_keep: u8,
    /// `lmr_log` reductions, in 1024ths of a ply: less at PV nodes.
    pub lmr_pv: i32,
    /// More at expected cut nodes.
    pub lmr_cut: i32,
    /// More where the static evaluation is not better than two plies before.
    pub lmr_improving: i32,
    /// Less for a move that makes an open three or better.
    pub lmr_threat: i32,
    /// The move's history score is divided by this and taken off (0: not used).
    pub lmr_history: i32,
    /// Taken off the history score before that division, so that a move with an ordinary
    /// history (most searched moves have some) is reduced more and only a good one less
    /// (Rapfi's statScore offset).
    pub lmr_history_offset: i32,
    /// Late-move reductions by the learned move order: a move whose learned score lies this
    /// many score units below the best of its node's moves is reduced a ply more (0: off;
    /// needs `order_scale`).
    pub lmr_policy: i32,
    /// Taken off that term, in 1024ths of a ply, so that a move near the best is reduced less.
    pub lmr_policy_offset: i32,
    /// Move-count pruning at defending nodes too (the defences against an open three or a
    /// four-three, and own fours): 0 off, 1 with the limit of a node that is not improving,
    /// 2 (the default) with that of one that is. Fours are kept, as everywhere.
    pub mcp_defend: u8,
    /// Policy pruning: at a quiet non-PV node, a move that makes no four and whose learned
    /// order score lies more than this many units a remaining ply below the best of its
    /// node's moves is skipped, once a move that does not lose was tried (0: off).
    pub policy_prune: i32,
    /// After a reduced move fails high, its re-search goes one ply deeper when it beat the
    /// best score by this margin (0: a plain full-depth re-search).
    pub lmr_deeper: i32,
    /// Reverse futility: a ply less of margin where the evaluation is improving.
    pub rfp_improving: bool,
    /// Ordering bonus of the two killer moves of a ply.
    pub killer_bonus: i32,
    /// History with gravity (bounded by `history_max`) and a malus for the moves searched
    /// before the one that cut off (else a bonus only).
    pub history_malus: bool,
    /// Mate-distance pruning.
    pub mate_distance: bool,
    /// Wins read from the patterns at every node where neither side has a five point: a move
    /// that makes two five points, or a four-three or double three against no opponent four.
    pub quick_win: bool,
    /// The quiescence search of fours at the leaves: fours a line may add (0: leaves are
    /// evaluated).
    pub qfours: u32,
    /// Razoring: the deepest remaining depth at which a node far below alpha is settled by the
    /// quiescence search (0: off).
    pub razor_depth: i32,
    /// Razoring: how far below alpha, per remaining ply.
    pub razor_margin: i32,
    /// Razoring: the fours its quiescence search may play (0: the static evaluation decides).
    pub razor_fours: u32,
    /// Null-move pruning: the least remaining depth (0: off).
    pub nmp_depth: i32,
    /// Null-move pruning: how far above beta the static evaluation must be.
    pub nmp_margin: i32,
    /// Null-move pruning: plies the pass's search is reduced by, besides the pass itself...
    pub nmp_reduce: i32,
    /// ...and one more per this many plies left.
    pub nmp_divisor: i32,
    /// Singular extension: the least remaining depth (0: off).
    pub se_depth: i32,
    /// Singular extension: how far below the table's score, per remaining ply, the other
    /// moves must stay.
    pub se_margin: i32,
    /// Singular extension: a non-PV table move whose alternatives stay this much further
    /// below is extended two plies (0: never)...
    pub se_double: i32,
    /// ...at most this many times along a line.
    pub se_double_max: u32,
    /// Deepest remaining depth at which a child's first steps are previewed before its move.
    pub preview_depth: i32,
    /// No reverse futility for a side whose last two moves both made fours (its attack is
    /// read on, not judged by the static evaluation).
    pub rfp_attack: bool,
    /// Ordering bonus of the counter move (the reply that last cut off after the opponent's
    /// last move); 0: no counter moves.
    pub counter_bonus: i32,
    /// Continuation history: a history per (opponent's last move, move) pair, divided by
    /// this in the move order (0: off).
    pub cont_divisor: i32,
    /// Whether the continuation history joins the history's term in late-move reductions.
    pub cont_lmr: bool,
    /// Internal iterative reduction: a PV or cut node with no table move, at this depth or
    /// more, is searched a ply shallower; 0: off.
    pub iir_depth: i32,
    /// Alpha-raise reduction: at a node of depth 3 to 11, each move that raises alpha without
    /// a cutoff takes a ply off the moves after it (at most this many plies); 0: off.
    pub alpha_raise: i32,
    /// Fail-high reduction: at a cut node whose static evaluation is at least beta minus
    /// `fhr_margin` per ply of depth, the moves that make no four are searched a ply
    /// shallower; 0: off.
    pub fhr_margin: i32,
    /// The guard (root step 3): percent of the turn kept back from iterative deepening for
    /// the threat solver to look for the opponent's VCF/VCT after the chosen move; 0: no guard.
    pub guard_share: u64,
    /// How many root moves the guard may try before it keeps the search's choice.
    pub guard_moves: usize,
    /// The guard's node budget per move when the search has no time limit (depth or node
    /// limits: the same on every machine).
    pub guard_nodes: u64,
    /// Threat extension: the defences against an opponent's open three or four-three point
    /// (the moves of a defending node that make no four) are searched without losing a ply,
    /// as the reply to a four is, so that a line of threes costs the attacker one ply each.
    pub defend_ext: bool,
    /// Fractional extensions, in 16ths of a ply, carried down a line as a credit until they
    /// make a whole ply (0: none). This one for the forced reply to a four, which keeps its
    /// depth already, so that each four and its block cost the attacker less than a ply.
    pub ext_forced: i32,
    /// The same for a defence against an open three or four-three point.
    pub ext_defend: i32,
    /// `ext_forced` under renju, where black's fours may be fouls and white's blocks may
    /// stand on black's forbidden points (0: off; 8 was behind in self-play at 100 k nodes and
    /// 300 ms, ahead at 1 s, +22, and against the sparring partner, 50.4 % against 40.8 %).
    pub ext_forced_renju: i32,
    /// Late-move reductions at a defending node too: its defences after the first are
    /// reduced by the formula, as quiet moves are (its own fours as `lmr_fours` says).
    pub defend_lmr: bool,
    /// Late-move reductions of fours: 0 never; 1 a defending node's own fours (its
    /// counter-attacks, with `defend_lmr`), as its defences are; 2 every node's.
    pub lmr_fours: u8,
    /// `lmr_log` reductions, in 1024ths of a ply: more for the defences of a defending node
    /// (which has no static evaluation, so it already counts as not improving).
    pub lmr_defend: i32,
    /// Late-move reductions at the root: the root moves after the `root_lmr_after`-th that
    /// make no four are searched first with this share (in 1024ths) of a PV node's `lmr_log`
    /// reduction, and again in full where they beat the best (0: root moves are not reduced).
    pub root_lmr: i32,
    /// Root moves searched in full before `root_lmr` reduces the others.
    pub root_lmr_after: usize,
    /// The least depth a late-move reduction leaves (1: a reduced move is still expanded;
    /// 0: it may become a leaf, read from its evaluation).
    pub lmr_floor: i32,
    /// Frontier fours: at a non-PV node with at most `frontier_depth` plies left, once a move
    /// was searched, an own four of a class below this one (as `Class as u8`; 11, the default,
    /// skips fours and four-pluses, keeping four-threes and open fours) is not searched (0:
    /// none skipped).
    pub frontier_fours: u8,
    /// The most plies left at which `frontier_fours` skips (1: the frontier alone).
    pub frontier_depth: i32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            eval: EvalParams::default(),
            beam: 8,
            beam_per_depth: 1,
            beam_spare: 6,
            poll_interval: 1024,
            qvcf_fours: 12,
            qvcf_nodes: 0,
            root_vcf_nodes: 200_000,
            root_vct_nodes: 100_000,
            root_threat_share: 25,
            root_vct_threats: 10,
            vct_probe_nodes: 10,
            vct_quiet_plies: 2,
            vct_proven: true,
            lmr_after: 1,
            lmr_depth: 2,
            lmr_after2: 99,
            history_max: 1 << 14,
            history_divisor: 8,
            aspiration: 60,
            defend: true,
            defend_widen: 1,
            pattern_moves: true,
            prune: 0,
            quiet_moves: 6,
            quiet_per_depth: 2,
            rfp_depth: 8,
            rfp_margin: 80,
            rfp_offset: 0,
            soft_percent: 100,
            time_togo: 35,
            time_floor: 8,
            time_base: 60,
            corr_weight: 100,
            lmr_log: 8,
            mcp: true,
            mcp_base: 3,
            mcp_pv: 4,
            mcp_keep: 10,
            lmr_pv: 1024,
            lmr_cut: 1024,
            lmr_improving: 1024,
            lmr_threat: 1024,
            lmr_history: 8192,
            lmr_history_offset: 0,
            lmr_policy: 0,
            lmr_policy_offset: 0,
            policy_prune: 0,
            mcp_defend: 2,
            lmr_deeper: 0,
            rfp_improving: true,
            killer_bonus: 2000,
            history_malus: true,
            mate_distance: true,
            quick_win: false,
            preview_depth: 3,
            qfours: 0,
            razor_depth: 0,
            razor_margin: 200,
            razor_fours: 0,
            nmp_depth: 0,
            nmp_margin: 100,
            nmp_reduce: 2,
            nmp_divisor: 4,
            se_depth: 6,
            se_margin: 2,
            se_double: 0,
            se_double_max: 6,
            rfp_attack: false,
            counter_bonus: 0,
            cont_divisor: 0,
            cont_lmr: false,
            iir_depth: 0,
            alpha_raise: 0,
            fhr_margin: 0,
            guard_share: 0,
            guard_moves: 4,
            guard_nodes: 20_000,
            defend_ext: false,
            ext_forced: 8,
            ext_defend: 0,
            ext_forced_renju: 8,
            defend_lmr: true,
            lmr_fours: 1,
            lmr_defend: 1024,
            root_lmr: 0,
            root_lmr_after: 2,
            lmr_floor: 1,
            frontier_fours: Class::FourThree as u8,
            frontier_depth: 1,
        }
    }
}

impl Params {
    /// Applies a command line's `NAME=VALUE` (`--set` of bench and datagen); `false` if it is
    /// not of that form or `set` refuses it.
    pub fn set_pair(&mut self, pair: &str) -> bool {
        pair.split_once('=')
            .and_then(|(name, value)| Some((name, value.parse().ok()?)))
            .is_some_and(|(name, value)| self.set(name, value))
    }

    /// Sets the tunable called `name` (its field name) to `value`; `false` if there is no such
    /// tunable or the value does not fit it.
    pub fn set(&mut self, name: &str, value: i64) -> bool {
        let size = usize::try_from(value).ok();
        let count = u64::try_from(value).ok();
        let int = i32::try_from(value).ok();
        let small = u32::try_from(value).ok();
        // A share of a ply in 16ths, at most a whole ply.
        let sixteenths = int.filter(|v| (0..=16).contains(v));
        let flag = |f: &mut bool| {
            *f = value != 0;
            Some(())
        };
        match name {
            "eval_own" => int.map(|v| self.eval.eval_own = v),
            "eval_opp" => int.map(|v| self.eval.eval_opp = v),
            "attack" => int.map(|v| self.eval.attack = v),
            "defence" => int.map(|v| self.eval.defence = v),
            "beam" => size.map(|v| self.beam = v),
            "beam_per_depth" => size.map(|v| self.beam_per_depth = v),
            "qvcf_fours" => small.map(|v| self.qvcf_fours = v),
            "qvcf_nodes" => count.map(|v| self.qvcf_nodes = v),
            "root_vcf_nodes" => count.map(|v| self.root_vcf_nodes = v),
            "root_vct_nodes" => count.map(|v| self.root_vct_nodes = v),
            "root_threat_share" => count.map(|v| self.root_threat_share = v.min(100)),
            "root_vct_threats" => small.map(|v| self.root_vct_threats = v),
            "vct_probe_nodes" => count.map(|v| self.vct_probe_nodes = v),
            "vct_quiet_plies" => small.map(|v| self.vct_quiet_plies = v),
            "vct_proven" => flag(&mut self.vct_proven),
            "lmr_after" => size.map(|v| self.lmr_after = v),
            "lmr_depth" => int.map(|v| self.lmr_depth = v),
            "lmr_after2" => size.map(|v| self.lmr_after2 = v),
            "history_divisor" => int.filter(|&v| v > 0).map(|v| self.history_divisor = v),
            "aspiration" => int.filter(|&v| v >= 0).map(|v| self.aspiration = v),
            "defend" => flag(&mut self.defend),
            "defend_widen" => small
                .filter(|&v| v <= 1)
                .map(|v| self.defend_widen = v as u8),
            "pattern_eval" => flag(&mut self.eval.pattern_eval),
            "nnue" => {
                self.eval.nnue_auto = false;
                flag(&mut self.eval.nnue)
            }
            "nnue_policy" => flag(&mut self.eval.nnue_policy),
            "nnue_threats" => flag(&mut self.eval.nnue_threats),
            "nnue_calm" => int
                .filter(|v| (0..=7).contains(v))
                .map(|v| self.eval.nnue_calm = v),
            "nnue_mix" => int
                .filter(|v| (0..=100).contains(v))
                .map(|v| self.eval.nnue_mix = v),
            "threat_eval" => flag(&mut self.eval.threat_eval),
            "pattern_order" => flag(&mut self.eval.pattern_order),
            "order_scale" => int
                .filter(|v| (0..=10_000).contains(v))
                .map(|v| self.eval.order_scale = v),
            "pattern_moves" => flag(&mut self.pattern_moves),
            "prune" => u8::try_from(value).ok().map(|v| self.prune = v),
            "quiet_moves" => size.map(|v| self.quiet_moves = v),
            "quiet_per_depth" => size.map(|v| self.quiet_per_depth = v),
            "rfp_depth" => int.map(|v| self.rfp_depth = v),
            "rfp_margin" => int.map(|v| self.rfp_margin = v),
            "rfp_offset" => int.map(|v| self.rfp_offset = v),
            "soft_percent" => count.map(|v| self.soft_percent = v.min(100)),
            "time_togo" => count
                .filter(|&v| v >= 12)
                .map(|v| self.time_togo = v.min(200)),
            "corr_weight" => int.filter(|&v| v >= 0).map(|v| self.corr_weight = v),
            "time_floor" => count.map(|v| self.time_floor = v.min(400)),
            "time_base" => count.map(|v| self.time_base = v.clamp(10, 250)),
            "lmr_log" => int.filter(|&v| v >= 0).map(|v| self.lmr_log = v),
            "mcp" => flag(&mut self.mcp),
            "frontier_fours" => u8::try_from(value)
                .ok()
                .filter(|&v| v as usize <= CLASSES)
                .map(|v| self.frontier_fours = v),
            "frontier_depth" => int.filter(|&v| v >= 1).map(|v| self.frontier_depth = v),
            "mcp_base" => int.map(|v| self.mcp_base = v),
            "mcp_pv" => int.map(|v| self.mcp_pv = v),
            "mcp_keep" => u8::try_from(value)
                .ok()
                .filter(|&v| v <= Class::Five as u8)
                .map(|v| self.mcp_keep = v),
            "lmr_pv" => int.map(|v| self.lmr_pv = v),
            "lmr_cut" => int.map(|v| self.lmr_cut = v),
            "lmr_improving" => int.map(|v| self.lmr_improving = v),
            "lmr_threat" => int.map(|v| self.lmr_threat = v),
            "lmr_history" => int.filter(|&v| v >= 0).map(|v| self.lmr_history = v),
            "lmr_history_offset" => int
                .filter(|v| v.abs() <= 1 << 16)
                .map(|v| self.lmr_history_offset = v),
            "lmr_policy" => int.filter(|&v| v >= 0).map(|v| self.lmr_policy = v),
            "lmr_policy_offset" => int
                .filter(|v| v.abs() <= 1 << 12)
                .map(|v| self.lmr_policy_offset = v),
            "mcp_defend" => u8::try_from(value)
                .ok()
                .filter(|&v| v <= 2)
                .map(|v| self.mcp_defend = v),
            "policy_prune" => int.filter(|&v| v >= 0).map(|v| self.policy_prune = v),
            "lmr_deeper" => int.filter(|&v| v >= 0).map(|v| self.lmr_deeper = v),
            "rfp_improving" => flag(&mut self.rfp_improving),
            "killer_bonus" => int.map(|v| self.killer_bonus = v),
            "history_malus" => flag(&mut self.history_malus),
            "history_max" => int.filter(|&v| v > 0).map(|v| self.history_max = v),
            "mate_distance" => flag(&mut self.mate_distance),
            "quick_win" => flag(&mut self.quick_win),
            "preview_depth" => int.map(|v| self.preview_depth = v),
            "razor_depth" => int.map(|v| self.razor_depth = v),
            "razor_margin" => int.map(|v| self.razor_margin = v),
            "razor_fours" => small.map(|v| self.razor_fours = v),
            "nmp_depth" => int.filter(|&v| v >= 0).map(|v| self.nmp_depth = v),
            "nmp_margin" => int.map(|v| self.nmp_margin = v),
            "nmp_reduce" => int.filter(|&v| v >= 0).map(|v| self.nmp_reduce = v),
            "nmp_divisor" => int.filter(|&v| v > 0).map(|v| self.nmp_divisor = v),
            "se_depth" => int.filter(|&v| v >= 0).map(|v| self.se_depth = v),
            "se_margin" => int.map(|v| self.se_margin = v),
            "se_double" => int.filter(|&v| v >= 0).map(|v| self.se_double = v),
            "se_double_max" => small.map(|v| self.se_double_max = v),
            "qfours" => small.map(|v| self.qfours = v.min(32)),
            "rfp_attack" => flag(&mut self.rfp_attack),
            "counter_bonus" => int.map(|v| self.counter_bonus = v),
            "cont_divisor" => int.filter(|&v| v >= 0).map(|v| self.cont_divisor = v),
            "cont_lmr" => flag(&mut self.cont_lmr),
            "iir_depth" => int.filter(|&v| v >= 0).map(|v| self.iir_depth = v),
            "alpha_raise" => int.filter(|&v| v >= 0).map(|v| self.alpha_raise = v),
            "fhr_margin" => int.filter(|&v| v >= 0).map(|v| self.fhr_margin = v),
            "guard_share" => count.map(|v| self.guard_share = v.min(50)),
            "guard_moves" => size.map(|v| self.guard_moves = v),
            "guard_nodes" => count.map(|v| self.guard_nodes = v),
            "defend_ext" => flag(&mut self.defend_ext),
            "ext_forced" => sixteenths.map(|v| self.ext_forced = v),
            "ext_forced_renju" => sixteenths.map(|v| self.ext_forced_renju = v),
            "ext_defend" => sixteenths.map(|v| self.ext_defend = v),
            "defend_lmr" => flag(&mut self.defend_lmr),
            "lmr_fours" => u8::try_from(value)
                .ok()
                .filter(|&v| v <= 2)
                .map(|v| self.lmr_fours = v),
            "lmr_defend" => int.map(|v| self.lmr_defend = v),
            "root_lmr" => int.filter(|&v| v >= 0).map(|v| self.root_lmr = v),
            "root_lmr_after" => size.map(|v| self.root_lmr_after = v),
            "lmr_floor" => int
                .filter(|&v| (0..=4).contains(&v))
                .map(|v| self.lmr_floor = v),
            _ => None,
        }
        .is_some()
    }

    /// Plies by which the `searched`-th move (0-based) of a quiet non-PV node with `depth`
    /// plies left is searched shallower.
    pub fn reduction(&self, depth: i32, searched: usize) -> i32 {
        if depth < self.lmr_depth || searched < self.lmr_after {
            0
        } else if self.lmr_log > 0 {
            (log_reduction(depth, searched, self.lmr_log) + 0.5).max(1.0) as i32
        } else if searched >= self.lmr_after2 && depth > 3 {
            2
        } else {
            1
        }
    }

    /// The `lmr_log` reduction of the `searched`-th move (0-based) of a node with `depth` plies
    /// left, in 1024ths of a ply, before the node's own adjustments.
    pub fn log_reduction_1024(&self, depth: i32, searched: usize) -> i32 {
        if self.lmr_log <= 0 || depth < 1 {
            return 0;
        }
        (log_reduction(depth, searched, self.lmr_log) * 1024.0) as i32
    }

    /// The `lmr_policy` term of a move's reduction, in 1024ths of a ply, for a move whose
    /// learned order score lies `gap` units below its node's best: from a ply less to two
    /// plies more.
    pub fn policy_reduction_1024(&self, gap: i32) -> i32 {
        if self.lmr_policy <= 0 {
            return 0;
        }
        let r = (gap.max(0) as i64 * 1024 / self.lmr_policy as i64) as i32;
        (r - self.lmr_policy_offset).clamp(-1024, 2048)
    }

    /// Whether a four of `class` is skipped at a non-PV node with `depth` plies left, once a
    /// move was searched there (`frontier_fours`).
    pub fn skips_frontier_four(&self, depth: i32, class: Class) -> bool {
        depth <= self.frontier_depth && (class as u8) < self.frontier_fours
    }

    /// Whether `policy_prune` skips a move whose learned order score lies `gap` units below
    /// the best of its node's moves, with `depth` plies left.
    pub fn prunes_by_policy(&self, depth: i32, gap: i32) -> bool {
        self.policy_prune > 0 && gap as i64 > self.policy_prune as i64 * depth.max(1) as i64
    }

    /// Moves a quiet node with `depth` plies left tries before move-count pruning drops the
    /// ones that make no four: `mcp_base` + d + d²/8 (close to d^1.32), half of that where the
    /// evaluation is not improving, twice that and `mcp_pv` more at PV nodes.
    pub fn move_limit(&self, depth: i32, improving: bool, pv: bool) -> usize {
        let d = depth.max(0);
        let n = self.mcp_base + d + d * d / 8;
        let n = if pv {
            if self.mcp_pv < 0 {
                return usize::MAX;
            }
            2 * n + self.mcp_pv
        } else if improving {
            n
        } else {
            (n + 1) / 2
        };
        n.max(1) as usize
    }

    /// How many ordered moves an interior node with `depth` plies left searches.
    pub fn beam_width(&self, depth: i32) -> usize {
        self.beam + self.beam_per_depth * depth.max(0) as usize
    }
}

/// `x / divisor` (rounded toward zero), with the history divisors of the defaults (8 and
/// 8192) as constants: the move loop then shifts where it would divide.
#[inline]
pub fn divide(x: i32, divisor: i32) -> i32 {
    match divisor {
        8 => x / 8,
        8192 => x / 8192,
        _ => x / divisor,
    }
}

/// The unrounded plies of the `lmr_log` formula for the `searched`-th move (0-based) of a node
/// with `depth` plies left: ln(depth)·ln(move number)·10 / `divisor`.
fn log_reduction(depth: i32, searched: usize, divisor: i32) -> f64 {
    ln(depth.max(0) as usize) * ln(searched + 1) * 10.0 / divisor as f64
}

/// The natural logarithm of `n`, read from a table below `LN_TABLE` (the same value `ln`
/// gives: the table is made by it), so that the reduction of every searched move costs no
/// call of `ln`.
fn ln(n: usize) -> f64 {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| (0..LN_TABLE).map(|k| (k as f64).ln()).collect());
    match table.get(n) {
        Some(&v) => v,
        None => (n as f64).ln(),
    }
}

/// Arguments of `ln` read from its table: more than any depth or move number of a node.
const LN_TABLE: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    #[test]
    fn formula_reductions_grow_with_depth_and_move_number() {
        let p = Params {
            lmr_log: 20,
            ..Params::default()
        };
        // Shallow nodes and the first moves are searched in full.
        assert_eq!(p.reduction(p.lmr_depth - 1, 20), 0);
        assert_eq!(p.reduction(10, p.lmr_after - 1), 0);
        // Then at least one ply, more for later moves and deeper nodes.
        assert_eq!(p.reduction(p.lmr_depth, p.lmr_after), 1);
        assert_eq!(p.reduction(8, 12), 3);
        for depth in p.lmr_depth..40 {
            for searched in p.lmr_after..60 {
                let r = p.reduction(depth, searched);
                assert!(r >= 1);
                assert!(
                    r >= p
                        .reduction(depth - 1, searched)
                        .max(p.reduction(depth, searched - 1))
                );
            }
        }
    }

    #[test]
    fn settings_out_of_range_are_refused_and_leave_the_value() {
        let mut p = Params::default();
        for v in [0, 2, 1] {
            assert!(p.set("lmr_fours", v));
            assert_eq!(p.lmr_fours, v as u8);
        }
        for v in [3, 7, -1, 300] {
            assert!(!p.set("lmr_fours", v), "lmr_fours {v}");
            assert_eq!(p.lmr_fours, 1);
        }
        assert!(!p.set("lmr_floor", 5));
        assert_eq!(p.lmr_floor, Params::default().lmr_floor);
        assert!(!p.set("se_double", -1));
        assert_eq!(p.se_double, Params::default().se_double);
        assert!(!p.set("no_such_tunable", 1));
        // The command line's NAME=VALUE form.
        assert!(p.set_pair("nnue_mix=40"));
        assert_eq!(p.eval.nnue_mix, 40);
        for bad in ["nnue_mix", "nnue_mix=", "nnue_mix=x", "=1", "nnue_mix=101"] {
            assert!(!p.set_pair(bad), "{bad}");
        }
        assert_eq!(p.eval.nnue_mix, 40);
        // The network is the default evaluation under freestyle, renju and standard, not caro,
        // until `nnue` is set.
        let decided = |p: &Params, rule: Rule| {
            let mut eval = p.eval.clone();
            eval.decide_network(rule);
            eval.nnue
        };
        let mut q = Params::default();
        for rule in [Rule::Freestyle, Rule::Renju, Rule::Standard] {
            assert!(decided(&q, rule), "{rule:?}");
        }
        assert!(!decided(&q, Rule::Caro));
        assert!(q.set("nnue", 0));
        assert!(!decided(&q, Rule::Freestyle));
        assert!(!decided(&q, Rule::Renju));
        assert!(!decided(&q, Rule::Standard));
        assert!(q.set("nnue", 1));
        assert!(decided(&q, Rule::Caro));
        // The extension shares are at most a whole ply.
        assert!(p.set("ext_forced", 16) && p.ext_forced == 16);
        assert!(!p.set("ext_defend", 17) && p.ext_defend == 0);
        // The history offset is kept where `history × 1024` cannot overflow.
        assert!(p.set("lmr_history_offset", 4000));
        assert!(!p.set("lmr_history_offset", 1 << 20));
        assert_eq!(p.lmr_history_offset, 4000);
    }

    #[test]
    fn move_limits_grow_with_depth_and_improvement() {
        let p = Params::default();
        for depth in 1..60 {
            let (worse, better) = (
                p.move_limit(depth, false, false),
                p.move_limit(depth, true, false),
            );
            assert!(1 <= worse && worse <= better);
            assert!(better < p.move_limit(depth, false, true));
            assert!(better <= p.move_limit(depth + 1, true, false));
        }
        // Super-linear: a deep node tries many more moves than a shallow one.
        assert!(p.move_limit(16, true, false) > 3 * p.move_limit(4, true, false));
        let wide = Params {
            mcp_pv: -1,
            ..Params::default()
        };
        assert_eq!(wide.move_limit(5, false, true), usize::MAX);
    }

    #[test]
    fn policy_reductions_grow_with_the_gap_within_their_bounds() {
        let off = Params::default();
        assert_eq!(off.policy_reduction_1024(5000), 0, "off by default");
        let p = Params {
            lmr_policy: 1500,
            lmr_policy_offset: 1024,
            ..Params::default()
        };
        // Near the best move a ply less, a gap of `lmr_policy` neutral, far below two more.
        assert_eq!(p.policy_reduction_1024(0), -1024);
        assert_eq!(p.policy_reduction_1024(1500), 0);
        assert_eq!(p.policy_reduction_1024(3000), 1024);
        assert_eq!(p.policy_reduction_1024(1 << 30), 2048);
        let mut last = i32::MIN;
        for gap in (0..10_000).step_by(37) {
            let r = p.policy_reduction_1024(gap);
            assert!(r >= last, "gap {gap}");
            last = r;
        }
    }

    #[test]
    fn policy_pruning_needs_a_gap_that_grows_with_depth() {
        let mut p = Params::default();
        assert!(!p.prunes_by_policy(1, i32::MAX), "off by default");
        assert!(p.set("policy_prune", 1200));
        assert!(!p.set("policy_prune", -1));
        assert!(p.prunes_by_policy(1, 1201));
        assert!(!p.prunes_by_policy(1, 1200));
        assert!(!p.prunes_by_policy(3, 3000), "a deeper node keeps more");
        assert!(p.prunes_by_policy(3, 3601));
        // Depth 0 or less counts as one ply; no overflow at the extremes.
        assert!(p.prunes_by_policy(-2, 1201));
        assert!(!p.prunes_by_policy(i32::MAX, i32::MAX));
    }

    #[test]
    fn frontier_fours_skip_the_weaker_fours_near_the_horizon() {
        let mut p = Params::default();
        assert!(p.skips_frontier_four(1, Class::Four), "on by default");
        assert!(p.set("frontier_fours", 0));
        assert!(!p.skips_frontier_four(1, Class::Four), "0: off");
        assert!(p.set("frontier_fours", Class::FourThree as i64));
        assert!(p.skips_frontier_four(1, Class::Four));
        assert!(p.skips_frontier_four(1, Class::FourPlus));
        assert!(
            !p.skips_frontier_four(1, Class::FourThree),
            "a winning four is kept"
        );
        assert!(!p.skips_frontier_four(1, Class::OpenFour));
        assert!(
            !p.skips_frontier_four(2, Class::Four),
            "only a ply from the horizon"
        );
        assert!(p.set("frontier_depth", 2));
        assert!(p.skips_frontier_four(2, Class::Four));
        assert!(!p.set("frontier_depth", 0));
        assert!(!p.set("frontier_fours", CLASSES as i64 + 1));
        assert!(!p.set("frontier_fours", -1));
    }

    #[test]
    fn defending_move_count_pruning_takes_three_settings() {
        let mut p = Params::default();
        assert_eq!(p.mcp_defend, 2, "on by default, as an improving node");
        for v in [0, 1, 2] {
            assert!(p.set("mcp_defend", v));
            assert_eq!(p.mcp_defend, v as u8);
        }
        assert!(!p.set("mcp_defend", 3));
        assert!(!p.set("mcp_defend", -1));
        assert_eq!(p.mcp_defend, 2);
    }

    #[test]
    fn the_ln_table_gives_what_ln_gives() {
        for n in 0..2 * LN_TABLE {
            assert_eq!(ln(n).to_bits(), (n as f64).ln().to_bits(), "ln({n})");
        }
    }

    #[test]
    fn formula_reductions_do_not_depend_on_the_last_bit_of_ln() {
        // A search with a node limit is the same on every machine: the platforms' `ln` may
        // differ in the last bit, so no reduction of the divisors matches use may sit that
        // close to a rounding boundary.
        for divisor in [10, 12, 15, 20, 25, 30] {
            for depth in 1..=crate::search::MAX_PLY as i32 {
                for searched in 0..=256usize {
                    let r = log_reduction(depth, searched, divisor);
                    let to_boundary = (r + 0.5 - (r + 0.5).round()).abs();
                    assert!(
                        r == 0.0 || to_boundary > 1e-9,
                        "depth {depth}, move {searched}, divisor {divisor}: {r}"
                    );
                    // The same in 1024ths of a ply (`log_reduction_1024` truncates).
                    let fine = r * 1024.0;
                    assert!(
                        r == 0.0 || (fine - fine.round()).abs() > 1e-9,
                        "depth {depth}, move {searched}, divisor {divisor}: {fine}"
                    );
                }
            }
        }
    }
}
