//! Every tunable of the search and evaluation, with its default.

/// Search and evaluation tunables. Weights are in sixteenths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Weight of the side to move's own window values in the evaluation.
    pub eval_own: i32,
    /// Weight of the opponent's window values in the evaluation.
    pub eval_opp: i32,
    /// Weight of a cell's gain for the side to move when ordering moves.
    pub attack: i32,
    /// Weight of a cell's gain for the opponent when ordering moves.
    pub defence: i32,
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
    /// Whether the evaluation is the learned pattern one (else the window sums).
    pub pattern_eval: bool,
    /// Whether the pattern evaluation adds the learned worth of both sides' threat levels.
    pub threat_eval: bool,
    /// Whether moves are ordered by their pattern threat classes (else the window gains).
    pub pattern_order: bool,
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
    /// With a turn limit only: percent of the hard limit after which no iteration starts
    /// (100: search to the hard limit; 50 was the old behaviour).
    pub soft_percent: u64,
    /// Late-move reductions by formula: ln(depth)·ln(move number)·10 / this, rounded (0: the
    /// fixed steps of `lmr_after` and `lmr_after2`).
    pub lmr_log: i32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            eval_own: 20,
            eval_opp: 16,
            attack: 16,
            defence: 14,
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
            lmr_after: 3,
            lmr_depth: 3,
            lmr_after2: 99,
            history_max: 1 << 16,
            history_divisor: 4,
            aspiration: 60,
            defend: true,
            pattern_eval: true,
            threat_eval: true,
            pattern_order: true,
            pattern_moves: true,
            prune: 0,
            quiet_moves: 6,
            quiet_per_depth: 2,
            rfp_depth: 3,
            rfp_margin: 80,
            soft_percent: 100,
            lmr_log: 0,
        }
    }
}

impl Params {
    /// Sets the tunable called `name` (its field name) to `value`; `false` if there is no such
    /// tunable or the value does not fit it.
    pub fn set(&mut self, name: &str, value: i64) -> bool {
        let size = usize::try_from(value).ok();
        let count = u64::try_from(value).ok();
        let int = i32::try_from(value).ok();
        let small = u32::try_from(value).ok();
        match name {
            "eval_own" => int.map(|v| self.eval_own = v),
            "eval_opp" => int.map(|v| self.eval_opp = v),
            "attack" => int.map(|v| self.attack = v),
            "defence" => int.map(|v| self.defence = v),
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
            "lmr_after" => size.map(|v| self.lmr_after = v),
            "lmr_depth" => int.map(|v| self.lmr_depth = v),
            "lmr_after2" => size.map(|v| self.lmr_after2 = v),
            "history_divisor" => int.filter(|&v| v > 0).map(|v| self.history_divisor = v),
            "aspiration" => int.filter(|&v| v >= 0).map(|v| self.aspiration = v),
            "defend" => {
                self.defend = value != 0;
                Some(())
            }
            "pattern_eval" => {
                self.pattern_eval = value != 0;
                Some(())
            }
            "threat_eval" => {
                self.threat_eval = value != 0;
                Some(())
            }
            "pattern_order" => {
                self.pattern_order = value != 0;
                Some(())
            }
            "pattern_moves" => {
                self.pattern_moves = value != 0;
                Some(())
            }
            "prune" => u8::try_from(value).ok().map(|v| self.prune = v),
            "quiet_moves" => size.map(|v| self.quiet_moves = v),
            "quiet_per_depth" => size.map(|v| self.quiet_per_depth = v),
            "rfp_depth" => int.map(|v| self.rfp_depth = v),
            "rfp_margin" => int.map(|v| self.rfp_margin = v),
            "soft_percent" => count.map(|v| self.soft_percent = v.min(100)),
            "lmr_log" => int.filter(|&v| v >= 0).map(|v| self.lmr_log = v),
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

    /// How many ordered moves an interior node with `depth` plies left searches.
    pub fn beam_width(&self, depth: i32) -> usize {
        self.beam + self.beam_per_depth * depth.max(0) as usize
    }
}

/// The unrounded plies of the `lmr_log` formula for the `searched`-th move (0-based) of a node
/// with `depth` plies left: ln(depth)·ln(move number)·10 / `divisor`.
fn log_reduction(depth: i32, searched: usize, divisor: i32) -> f64 {
    (depth as f64).ln() * ((searched + 1) as f64).ln() * 10.0 / divisor as f64
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn formula_reductions_do_not_depend_on_the_last_bit_of_ln() {
        // A search with a node limit is the same on every machine: the platforms' `ln` may
        // differ in the last bit, so no reduction of the divisors matches use may sit that
        // close to a rounding boundary.
        for divisor in [15, 20, 25, 30] {
            for depth in 1..=crate::search::MAX_PLY as i32 {
                for searched in 0..=256usize {
                    let r = log_reduction(depth, searched, divisor);
                    let to_boundary = (r + 0.5 - (r + 0.5).round()).abs();
                    assert!(
                        r == 0.0 || to_boundary > 1e-9,
                        "depth {depth}, move {searched}, divisor {divisor}: {r}"
                    );
                }
            }
        }
    }
}
