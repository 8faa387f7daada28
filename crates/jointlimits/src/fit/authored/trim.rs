//! Which samples an authored kind may leave out when it need hold only a share of them
//! (`fit --hold P`): the few outliers (a glitch, a marker swap) that would otherwise widen the
//! limit for every frame.
//!
//! Samples are dropped one at a time, each time the one whose removal leaves the kind's region
//! smallest (by volume: the product of the Euler ranges; the cone's solid angle, or the ellipse's
//! area, times the twist range), among the samples on the region's boundary (only their removal
//! can shrink it). A single angle (a hinge) is trimmed exactly instead: the shortest arc holding
//! the share.

use std::f64::consts::TAU;

/// The shortest arc holding at least `count` of `angles` (modulo 2π), as `[min, max]` with its
/// middle in `[−π, π]`; `None` when there are no angles, one is not finite, or `count` is 0.
///
/// ```
/// use jointlimits::fit::authored::shortest_arc_holding;
/// // Nine angles near 0° and one at 90°: nine of them fit in 8°.
/// let mut angles: Vec<f64> = (0..9).map(|i| f64::from(i).to_radians()).collect();
/// angles.push(90f64.to_radians());
/// let (min, max) = shortest_arc_holding(&angles, 9).unwrap();
/// assert!(((max - min).to_degrees() - 8.0).abs() < 1e-9);
/// ```
pub fn shortest_arc_holding(angles: &[f64], count: usize) -> Option<(f64, f64)> {
    if count == 0 || angles.iter().any(|a| !a.is_finite()) {
        return None;
    }
    let mut around: Vec<f64> = angles.iter().map(|a| a.rem_euclid(TAU) % TAU).collect();
    around.sort_by(f64::total_cmp);
    let n = around.len();
    if n == 0 {
        return None;
    }
    let count = count.min(n);
    // The window of `count` neighbours starting at each sorted angle, wrapping past 2π.
    let (start, width) = (0..n)
        .map(|i| {
            let end = i + count - 1;
            let last = if end < n {
                around[end]
            } else {
                around[end - n] + TAU
            };
            (i, last - around[i])
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let min = around[start];
    let turns = ((min + width / 2.0) / TAU).round();
    Some((min - turns * TAU, min + width - turns * TAU))
}

/// The angles of samples on the circle, sorted, with the arc holding the kept ones followed
/// from its two ends as samples are dropped. The arc starts as the shortest holding them all
/// (the complement of the widest gap); dropping an end moves that end to the next kept sample.
pub(crate) struct ShrinkingArc {
    /// `(angle in [0, 2π), sample)`, by angle.
    sorted: Vec<(f64, usize)>,
    /// Positions in `sorted` of the arc's first and last kept samples (going forwards, wrapping).
    first: usize,
    last: usize,
}

impl ShrinkingArc {
    /// The arc over `angles` (finite, at least one).
    pub(crate) fn new(angles: &[f64]) -> ShrinkingArc {
        let mut sorted: Vec<(f64, usize)> = angles
            .iter()
            .enumerate()
            .map(|(i, a)| (a.rem_euclid(TAU) % TAU, i))
            .collect();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = sorted.len();
        // The widest gap runs from position `g` to the next; the arc is the rest.
        let gap = |g: usize| {
            let next = sorted[(g + 1) % n].0 + if g + 1 == n { TAU } else { 0.0 };
            next - sorted[g].0
        };
        let widest = (0..n)
            .max_by(|&a, &b| gap(a).total_cmp(&gap(b)))
            .unwrap_or(0);
        ShrinkingArc {
            first: (widest + 1) % n,
            last: widest,
            sorted,
        }
    }

    /// The samples at the two ends.
    pub(crate) fn ends(&self) -> [usize; 2] {
        [self.sorted[self.first].1, self.sorted[self.last].1]
    }

    /// The arc's width between the positions `first` and `last`.
    fn width_between(&self, first: usize, last: usize) -> f64 {
        let width = self.sorted[last].0 - self.sorted[first].0;
        if width < 0.0 { width + TAU } else { width }
    }

    /// The arc's width.
    pub(crate) fn width(&self) -> f64 {
        self.width_between(self.first, self.last)
    }

    /// The next kept position after `position` going `forwards` (or backwards), skipping the
    /// samples `also_dropped`; `position` itself when no other is kept.
    fn next_kept(
        &self,
        position: usize,
        forwards: bool,
        kept: &[bool],
        also_dropped: &[usize],
    ) -> usize {
        let n = self.sorted.len();
        let mut p = position;
        for _ in 1..n {
            p = if forwards {
                (p + 1) % n
            } else {
                (p + n - 1) % n
            };
            let sample = self.sorted[p].1;
            if kept[sample] && !also_dropped.contains(&sample) {
                return p;
            }
        }
        position
    }

    /// The arc's width once the samples `group` are dropped too.
    pub(crate) fn width_without(&self, group: &[usize], kept: &[bool]) -> f64 {
        let [at_first, at_last] = self.ends();
        let first = if group.contains(&at_first) {
            self.next_kept(self.first, true, kept, group)
        } else {
            self.first
        };
        let last = if group.contains(&at_last) {
            self.next_kept(self.last, false, kept, group)
        } else {
            self.last
        };
        self.width_between(first, last)
    }

    /// Moves the ends past dropped samples.
    pub(crate) fn settle(&mut self, kept: &[bool]) {
        if !kept[self.sorted[self.first].1] {
            self.first = self.next_kept(self.first, true, kept, &[]);
        }
        if !kept[self.sorted[self.last].1] {
            self.last = self.next_kept(self.last, false, kept, &[]);
        }
    }
}

/// A region being peeled: which samples are on its boundary, how large it is, and how large it
/// would be without some of them.
pub(crate) trait Peelable {
    /// Groups of samples on the region's boundary to try dropping together (single samples, and
    /// pairs where two outliers can hold the boundary between them).
    fn boundary(&self) -> Vec<Vec<usize>>;
    /// The region's size.
    fn size(&self) -> f64;
    /// The region's size once `group` is dropped too.
    fn size_without(&self, group: &[usize], kept: &[bool]) -> f64;
    /// Updates the region after samples were dropped from `kept`.
    fn dropped(&mut self, kept: &[bool]);
}

/// Drops at most `count` of `n` samples: each time the boundary group that shrinks `region`
/// most per sample dropped, until the budget is spent or no group shrinks it. Returns which
/// samples are kept (at least one).
pub(crate) fn peel(n: usize, count: usize, region: &mut impl Peelable) -> Vec<bool> {
    let mut kept = vec![true; n];
    let mut budget = count.min(n.saturating_sub(1));
    while budget > 0 {
        let size = region.size();
        let best = region
            .boundary()
            .into_iter()
            .filter(|group| {
                !group.is_empty() && group.len() <= budget && group.iter().all(|&s| kept[s])
            })
            .map(|group| {
                let gain = (size - region.size_without(&group, &kept)) / group.len() as f64;
                (gain, group)
            })
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let Some((gain, group)) = best.filter(|(gain, _)| *gain > 0.0) else {
            break;
        };
        debug_assert!(gain > 0.0);
        for &sample in &group {
            kept[sample] = false;
        }
        budget -= group.len();
        region.dropped(&kept);
    }
    kept
}

/// How many of `n` samples a region holding the share `hold` may leave out: `n − ⌈hold·n⌉`.
pub(crate) fn droppable(n: usize, hold: f64) -> usize {
    let needed = ((hold * n as f64) - 1e-9).ceil().max(1.0) as usize;
    n.saturating_sub(needed.min(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortest arc holding `count` angles by trying every window start in fine steps.
    fn brute_force(angles: &[f64], count: usize) -> f64 {
        let mut best = TAU;
        for step in 0..36_000 {
            let start = step as f64 * TAU / 36_000.0;
            let mut offsets: Vec<f64> =
                angles.iter().map(|a| (a - start).rem_euclid(TAU)).collect();
            offsets.sort_by(f64::total_cmp);
            best = best.min(offsets[count - 1]);
        }
        best
    }

    #[test]
    fn the_shortest_arc_holding_a_share_matches_a_brute_force_and_wraps() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for case in 0..20 {
            // A cluster (across ±π in some cases) and a few outliers anywhere.
            let centre = if case % 2 == 0 { 3.1 } else { next() * TAU };
            let mut angles: Vec<f64> = (0..60).map(|_| centre + (next() - 0.5) * 0.8).collect();
            angles.extend((0..4).map(|_| next() * TAU - std::f64::consts::PI));
            for count in [60, 62, 64] {
                let (min, max) = shortest_arc_holding(&angles, count).unwrap();
                // From the arc's start, within its width (an angle at the start itself may round
                // to just below it).
                let held = angles
                    .iter()
                    .map(|&a| (a - min).rem_euclid(TAU))
                    .filter(|&from_start| from_start <= max - min + 1e-9 || from_start > TAU - 1e-9)
                    .count();
                assert!(held >= count, "{held} < {count}");
                let brute = brute_force(&angles, count);
                assert!(max - min <= brute + 1e-9, "{} > {brute}", max - min);
                assert!(max - min >= brute - TAU / 36_000.0 - 1e-9);
            }
        }
        assert_eq!(shortest_arc_holding(&[], 1), None);
        assert_eq!(shortest_arc_holding(&[f64::NAN], 1), None);
    }

    #[test]
    fn a_shrinking_arc_moves_its_ends_inwards_as_they_are_dropped() {
        let angles = [0.1, 0.2, 0.3, 6.2, 3.0];
        // The widest gap is from 0.3 to 3.0 or from 3.0 to 6.2: 3.0 → 6.2 (3.2 rad).
        let mut arc = ShrinkingArc::new(&angles);
        assert_eq!(arc.ends(), [3, 4]);
        let mut kept = vec![true; 5];
        let without_far = arc.width_without(&[4], &kept);
        assert!(
            (without_far - (0.3 + TAU - 6.2)).abs() < 1e-12,
            "{without_far}"
        );
        kept[4] = false;
        arc.settle(&kept);
        assert_eq!(arc.ends(), [3, 2]);
        assert!((arc.width() - without_far).abs() < 1e-12);
        assert_eq!(droppable(100, 0.99), 1);
        assert_eq!(droppable(100, 1.0), 0);
        assert_eq!(droppable(3, 0.1), 2);
    }
}
