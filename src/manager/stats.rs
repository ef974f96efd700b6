//! Match statistics: score, Elo difference with a 95% interval, and the sequential probability
//! ratio test (the normal approximation to the log-likelihood ratio of the trinomial model);
//! and the same opening's two games (colours swapped) counted as a pair, the pentanomial model.

/// Wins, losses and draws from the first engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

/// The SPRT hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What an SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// elo1 accepted: the first engine is stronger by about elo1.
    H1,
    /// elo0 accepted.
    H0,
    Continue,
}

const Z95: f64 = 1.959_963_984_540_054;

/// Expected score for an Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference for an expected score in (0, 1) (an even score is +0, not -0).
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10() + 0.0
}

/// The Elo difference for the mean score `s` of `n` samples (games or pairs) whose scores have
/// `variance`, with its 95% interval (lower, upper); infinite at 0% or 100%.
fn elo_interval(s: f64, variance: f64, n: u32) -> (f64, f64, f64) {
    let margin = Z95 * (variance / n.max(1) as f64).sqrt();
    let clamp = |x: f64| x.clamp(0.0, 1.0);
    (
        elo_of_score(s),
        elo_of_score(clamp(s - margin)),
        elo_of_score(clamp(s + margin)),
    )
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    pub fn add(&mut self, first_score: f64) {
        if first_score > 0.75 {
            self.wins += 1;
        } else if first_score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Mean score per game.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }

    /// Variance of one game's score.
    fn variance(&self) -> f64 {
        let n = self.games().max(1) as f64;
        let s = self.score();
        (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n
    }

    /// The Elo difference and its 95% interval (lower, upper); infinite at 0% or 100%.
    pub fn elo(&self) -> (f64, f64, f64) {
        elo_interval(self.score(), self.variance(), self.games())
    }

    /// The log-likelihood ratio of elo1 against elo0 for these games.
    pub fn llr(&self, sprt: &Sprt) -> f64 {
        let var = self.variance();
        if self.games() == 0 || var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(sprt.elo0), score_of_elo(sprt.elo1));
        self.games() as f64 * (s1 - s0) * (2.0 * self.score() - s0 - s1) / (2.0 * var)
    }
}

/// The first engine's points in the two games of one opening (colours swapped), counted by
/// kind: 0, 0.5, 1 (one win each: the colour decided the opening; or two draws), 1.5 and 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pairs {
    /// `points[k]`: pairs where the first engine scored `k / 2`.
    pub points: [u32; 5],
    /// Of the pairs worth 1 point, those won once by each engine, with the same colour.
    pub split: u32,
}

impl Pairs {
    /// Adds one pair from the first engine's scores in its two games (1, 0.5 or 0 each).
    pub fn add(&mut self, a: f64, b: f64) {
        let k = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.points[k] += 1;
        if k == 2 && a != b {
            self.split += 1;
        }
    }

    pub fn count(&self) -> u32 {
        self.points.iter().sum()
    }

    /// Mean score per game.
    pub fn score(&self) -> f64 {
        let total: f64 = (0..5).map(|k| self.points[k] as f64 * k as f64 / 4.0).sum();
        total / self.count().max(1) as f64
    }

    /// The Elo difference and its 95% interval (lower, upper) from the spread of the pairs'
    /// scores (narrower than `Tally::elo` when an opening favours one colour).
    pub fn elo(&self) -> (f64, f64, f64) {
        let n = self.count().max(1) as f64;
        let s = self.score();
        let variance = (0..5)
            .map(|k| self.points[k] as f64 * (k as f64 / 4.0 - s).powi(2))
            .sum::<f64>()
            / n;
        elo_interval(s, variance, self.count())
    }

    /// The best score per game this match could show if the first engine won every pair that
    /// the colour did not decide: the split pairs stay at one point.
    pub fn ceiling(&self) -> f64 {
        let n = self.count().max(1) as f64;
        1.0 - 0.5 * self.split as f64 / n
    }
}

/// One engine's results in two runs on the same openings (against the same opponent), compared
/// opening by opening: each opening's two games in run A against the same two in run B, so that
/// what an opening favours cancels out of the difference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    /// The openings played in both runs.
    pub openings: usize,
    /// The mean score a game in run A and in run B over those openings.
    pub a: f64,
    pub b: f64,
    /// A's score a game minus B's, with its 95% interval from the spread of the openings'
    /// differences (the widest, -1 to 1, for fewer than two openings).
    pub diff: f64,
    pub low: f64,
    pub high: f64,
    /// Openings where A scored more than B, the same, less.
    pub better: usize,
    pub same: usize,
    pub worse: usize,
}

impl Paired {
    /// From each shared opening's points in run A and in run B (0 to 2: its two games).
    pub fn from_points(points: &[(f64, f64)]) -> Paired {
        let n = points.len();
        let games = 2.0 * n.max(1) as f64;
        let per_game: Vec<f64> = points.iter().map(|&(a, b)| (a - b) / 2.0).collect();
        let diff = per_game.iter().sum::<f64>() / n.max(1) as f64;
        let (low, high) = if n < 2 {
            (-1.0, 1.0)
        } else {
            let variance =
                per_game.iter().map(|d| (d - diff).powi(2)).sum::<f64>() / (n - 1) as f64;
            let margin = Z95 * (variance / n as f64).sqrt();
            (diff - margin, diff + margin)
        };
        Paired {
            openings: n,
            a: points.iter().map(|p| p.0).sum::<f64>() / games,
            b: points.iter().map(|p| p.1).sum::<f64>() / games,
            diff,
            low,
            high,
            better: points.iter().filter(|p| p.0 > p.1).count(),
            same: points.iter().filter(|p| p.0 == p.1).count(),
            worse: points.iter().filter(|p| p.0 < p.1).count(),
        }
    }
}

impl Sprt {
    /// Parses `elo0=0 elo1=5 alpha=0.05 beta=0.05` (any order, commas or spaces; defaults
    /// elo0 0, alpha and beta 0.05).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let mut s = Sprt {
            elo0: 0.0,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
        };
        for item in text.split([',', ' ']).filter(|t| !t.is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or(format!("'{item}' is not key=value"))?;
            let v: f64 = v.parse().map_err(|_| format!("'{v}' is not a number"))?;
            match k {
                "elo0" => s.elo0 = v,
                "elo1" => s.elo1 = v,
                "alpha" => s.alpha = v,
                "beta" => s.beta = v,
                _ => return Err(format!("unknown SPRT parameter '{k}'")),
            }
        }
        if s.elo1.is_nan() || s.elo1 <= s.elo0 {
            return Err("SPRT needs elo1 greater than elo0".into());
        }
        if !(0.0..0.5).contains(&s.alpha)
            || !(0.0..0.5).contains(&s.beta)
            || s.alpha == 0.0
            || s.beta == 0.0
        {
            return Err("SPRT alpha and beta must be in (0, 0.5)".into());
        }
        Ok(s)
    }

    /// The LLR bounds (lower, upper): below the first accept H0, above the second accept H1.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Verdict::H1
        } else if llr <= lo {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}
