//! Elo interval and SPRT arithmetic against figures worked out by hand.

use wuzi::manager::stats::{Paired, Pairs, Sprt, Tally, Verdict};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() < tol
}

#[test]
fn elo_and_interval_for_60_of_100() {
    // s = 0.6: Elo = -400·log10(1/0.6 − 1) = 70.437. Per-game variance
    // (60·0.4² + 40·0.6²)/100 = 0.24, standard error √(0.24/100) = 0.04899,
    // 95% scores 0.6 ± 1.96·0.04899 = 0.50398 … 0.69602 → Elo 2.767 … 143.91.
    let t = Tally {
        wins: 60,
        losses: 40,
        draws: 0,
    };
    let (elo, lo, hi) = t.elo();
    assert!(close(elo, 70.437, 0.01), "{elo}");
    assert!(close(lo, 2.767, 0.01), "{lo}");
    assert!(close(hi, 143.91, 0.05), "{hi}");
}

#[test]
fn draws_count_half_and_narrow_the_interval() {
    // 30 wins, 30 losses, 40 draws: s = 0.5, Elo 0; variance (30·0.25 + 30·0.25)/100 = 0.15.
    let t = Tally {
        wins: 30,
        losses: 30,
        draws: 40,
    };
    let (elo, lo, hi) = t.elo();
    assert!(close(elo, 0.0, 1e-9));
    // 0.5 ± 1.96·√(0.0015) = 0.5 ± 0.075910 → ±53.15 Elo.
    assert!(close(hi, 53.15, 0.05), "{hi}");
    assert!(close(lo, -53.15, 0.05), "{lo}");
}

#[test]
fn sprt_llr_and_bounds() {
    let sprt = Sprt::parse("elo0=0 elo1=10 alpha=0.05 beta=0.05").unwrap();
    let (lo, hi) = sprt.bounds();
    // ln(0.05/0.95) = −2.944, ln(0.95/0.05) = 2.944.
    assert!(close(lo, -2.9444, 1e-3) && close(hi, 2.9444, 1e-3));
    // s0 = 0.5, s1 = 1/(1+10^(−10/400)) = 0.514387; for 60-40-0:
    // LLR = 100·(0.014387)·(1.2 − 1.014387)/(2·0.24) = 0.5563.
    let t = Tally {
        wins: 60,
        losses: 40,
        draws: 0,
    };
    let llr = t.llr(&sprt);
    assert!(close(llr, 0.5563, 1e-3), "{llr}");
    assert_eq!(sprt.verdict(llr), Verdict::Continue);
    let big = Tally {
        wins: 600,
        losses: 400,
        draws: 0,
    };
    assert_eq!(sprt.verdict(big.llr(&sprt)), Verdict::H1);
    let bad = Tally {
        wins: 400,
        losses: 600,
        draws: 0,
    };
    assert_eq!(sprt.verdict(bad.llr(&sprt)), Verdict::H0);
    assert!(Sprt::parse("elo0=5 elo1=0").is_err());
}

#[test]
fn pairs_count_both_games_of_an_opening() {
    // 6 openings: 2 won twice, 3 split by colour (a win each), 1 with two draws.
    let mut p = Pairs::default();
    for (a, b) in [
        (1.0, 1.0),
        (1.0, 1.0),
        (1.0, 0.0),
        (0.0, 1.0),
        (1.0, 0.0),
        (0.5, 0.5),
    ] {
        p.add(a, b);
    }
    assert_eq!(p.points, [0, 0, 4, 0, 2]);
    assert_eq!(p.split, 3);
    assert_eq!(p.count(), 6);
    // 8 points of 12 games: s = 2/3, Elo = -400·log10(0.5) = 120.41. Pair scores 1 (×2) and
    // 0.5 (×4): variance (2·(1/3)² + 4·(1/6)²)/6 = 1/18, standard error √(1/108) = 0.096225,
    // 95% scores 0.66667 ± 0.18860 = 0.47807 … 0.85526 → Elo −15.25 … +308.61.
    let (elo, lo, hi) = p.elo();
    assert!(close(p.score(), 2.0 / 3.0, 1e-12));
    assert!(close(elo, 120.41, 0.01), "{elo}");
    assert!(close(lo, -15.25, 0.05), "{lo}");
    assert!(close(hi, 308.61, 0.05), "{hi}");
    // The 3 split pairs hold the score to 1 − 3/12 = 75%, even if every other pair is won.
    assert!(close(p.ceiling(), 0.75, 1e-12));
}

#[test]
fn all_pairs_split_by_colour_is_an_even_match_with_no_spread() {
    let mut p = Pairs::default();
    for _ in 0..10 {
        p.add(1.0, 0.0);
    }
    let (elo, lo, hi) = p.elo();
    assert!(close(elo, 0.0, 1e-9) && close(lo, 0.0, 1e-9) && close(hi, 0.0, 1e-9));
    assert!(close(p.ceiling(), 0.5, 1e-12));
}

#[test]
fn paired_runs_difference_and_interval() {
    // Three openings, each one's points (0 to 2) in run A and run B. Per game A − B: 0.5, 1.0,
    // 0.0; mean 0.5; sample variance ((0)² + 0.5² + 0.5²)/2 = 0.25; margin 1.96·√(0.25/3) =
    // 0.5658.
    let p = Paired::from_points(&[(2.0, 1.0), (2.0, 0.0), (1.0, 1.0)]);
    assert_eq!(p.openings, 3);
    assert!(close(p.a, 5.0 / 6.0, 1e-12) && close(p.b, 2.0 / 6.0, 1e-12));
    assert!(close(p.diff, 0.5, 1e-12));
    assert!(close(p.low, 0.5 - 0.5658, 1e-4), "{}", p.low);
    assert!(close(p.high, 0.5 + 0.5658, 1e-4), "{}", p.high);
    assert_eq!((p.better, p.same, p.worse), (2, 1, 0));
    // The same difference on every opening has no spread; one opening gives the widest interval.
    let flat = Paired::from_points(&[(2.0, 1.0), (1.0, 0.0)]);
    assert!(close(flat.low, 0.5, 1e-12) && close(flat.high, 0.5, 1e-12));
    let one = Paired::from_points(&[(2.0, 0.0)]);
    assert_eq!((one.diff, one.low, one.high), (1.0, -1.0, 1.0));
}
