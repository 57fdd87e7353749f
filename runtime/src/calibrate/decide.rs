//! How calibration turns timings into route bands. Pure: no GPU, tested in CI.
//!
//! Stability: a candidate replaces the compiled route only when it is at least
//! `WIN_MARGIN` faster in the first pass AND in a second, interleaved measurement,
//! and near-ties never decide anything: every candidate within `TIE_BAND` of the
//! fastest is treated as equally fast, and among those the compiled route wins, then
//! the previous width's winner, then declared order. So two runs can only disagree
//! where two candidates sit right at a margin, and bands do not flicker between
//! schedules that are the same speed.

/// A candidate must be this much faster than the compiled route to replace it.
pub const WIN_MARGIN: f64 = 0.03;
/// Candidates within this fraction of the fastest count as tied.
pub const TIE_BAND: f64 = 0.02;
/// A candidate's output must match the compiled route's within this relative difference.
pub const OUTPUT_TOLERANCE: f64 = 0.05;

/// First-pass medians at one width: every candidate serving it, in declared order.
#[derive(Clone, Debug)]
pub struct WidthTimes {
    pub width: u32,
    pub compiled: String,
    pub times: Vec<(String, f64)>,
}

impl WidthTimes {
    pub fn time_of(&self, schedule: &str) -> Option<f64> {
        self.times
            .iter()
            .find(|(s, _)| s == schedule)
            .map(|(_, t)| *t)
    }
}

/// The schedule worth confirming at this width (may be the compiled route itself).
pub fn contender<'a>(m: &'a WidthTimes, previous_winner: Option<&str>) -> &'a str {
    let fastest = m
        .times
        .iter()
        .map(|(_, t)| *t)
        .fold(f64::INFINITY, f64::min);
    let tied = |s: &str| {
        m.time_of(s)
            .is_some_and(|t| t <= fastest * (1.0 + TIE_BAND))
    };
    if tied(&m.compiled) {
        return &m.compiled;
    }
    if let Some(prev) = previous_winner {
        if let Some((s, _)) = m.times.iter().find(|(s, _)| s == prev) {
            if tied(s) {
                return s;
            }
        }
    }
    m.times
        .iter()
        .find(|(s, _)| tied(s))
        .map(|(s, _)| s.as_str())
        .unwrap_or(&m.compiled)
}

/// Whether the first pass shows `candidate` at least `WIN_MARGIN` faster than compiled.
pub fn first_pass_wins(m: &WidthTimes, candidate: &str) -> bool {
    match (m.time_of(candidate), m.time_of(&m.compiled)) {
        (Some(c), Some(base)) => candidate != m.compiled && c <= base * (1.0 - WIN_MARGIN),
        _ => false,
    }
}

/// The final verdict at one width: `candidate` if it won twice and its output matched.
pub fn verdict(
    first_pass_win: bool,
    confirmed_candidate_us: f64,
    confirmed_compiled_us: f64,
    output_rel_diff: f64,
) -> bool {
    first_pass_win
        && confirmed_candidate_us <= confirmed_compiled_us * (1.0 - WIN_MARGIN)
        && output_rel_diff <= OUTPUT_TOLERANCE
}

/// Merges per-width winners (`""` = compiled route), in increasing width, into bands
/// `[last_width, schedule]`: consecutive widths with one winner become one band.
pub fn merge_bands(winners: &[(u32, String)]) -> Vec<(u32, String)> {
    let mut bands: Vec<(u32, String)> = Vec::new();
    for (width, schedule) in winners {
        match bands.last_mut() {
            Some((last, s)) if s == schedule => *last = *width,
            _ => bands.push((*width, schedule.clone())),
        }
    }
    bands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(compiled: &str, t: &[(&str, f64)]) -> WidthTimes {
        WidthTimes {
            width: 1,
            compiled: compiled.into(),
            times: t.iter().map(|(s, v)| (s.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn compiled_route_keeps_a_near_tie() {
        let m = times("a", &[("a", 10.0), ("b", 9.85)]);
        assert_eq!(contender(&m, None), "a");
    }

    #[test]
    fn clear_winner_is_the_contender_and_wins_first_pass() {
        let m = times("a", &[("a", 10.0), ("b", 9.0), ("c", 9.5)]);
        assert_eq!(contender(&m, None), "b");
        assert!(first_pass_wins(&m, "b"));
        assert!(!first_pass_wins(&m, "a"));
    }

    #[test]
    fn among_tied_candidates_the_previous_winner_then_declared_order() {
        let m = times("a", &[("a", 10.0), ("b", 9.0), ("c", 8.95)]);
        assert_eq!(contender(&m, Some("b")), "b");
        assert_eq!(contender(&m, None), "b", "declared order among ties");
        assert_eq!(contender(&m, Some("zzz")), "b");
    }

    #[test]
    fn small_gain_does_not_win() {
        let m = times("a", &[("a", 10.0), ("b", 9.75)]);
        let c = contender(&m, None);
        assert_eq!(c, "b");
        assert!(!first_pass_wins(&m, c), "2.5% is under the 3% margin");
    }

    #[test]
    fn verdict_needs_both_passes_and_matching_output() {
        assert!(verdict(true, 9.0, 10.0, 0.001));
        assert!(!verdict(false, 9.0, 10.0, 0.001));
        assert!(
            !verdict(true, 9.8, 10.0, 0.001),
            "confirmation under margin"
        );
        assert!(!verdict(true, 9.0, 10.0, 0.06), "output differs by 6%");
    }

    #[test]
    fn consecutive_winners_merge_into_bands() {
        let w = |v: &[(u32, &str)]| {
            v.iter()
                .map(|(a, b)| (*a, b.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            merge_bands(&w(&[
                (1, "x"),
                (2, "x"),
                (4, ""),
                (8, ""),
                (16, "y"),
                (32, "y")
            ])),
            w(&[(2, "x"), (8, ""), (32, "y")])
        );
        assert_eq!(merge_bands(&w(&[(1, ""), (32, "")])), w(&[(32, "")]));
        assert!(merge_bands(&[]).is_empty());
    }
}
