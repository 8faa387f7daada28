//! Calibrated table margins, one for bone directions (swings) and one for twists.
//!
//! A table's single padding grows both its caps of directions and its twist ranges. Unseen motion
//! rarely needs both equally: a held-out dance mostly reuses the directions of the clips fitted
//! but turns the bone about itself further, a fight the other way round. Growing both by what the
//! worse of the two needs accepts many random rotations for nothing.
//!
//! Each rotation `r` needs a swing padding `s(r)` (its direction's angle to the nearest sampled
//! direction, less the caps' slack) and a twist padding `t(r)` (how far its twist lies beyond the
//! envelope at its direction, on its best turn), and a table with paddings `(S, T)` allows it when
//! `s(r) ≤ S` and `t(r) ≤ T` ([`super::table::TableSamples::padding_needed`]; exact for the caps
//! and envelope the table interpolates). So, given each fold's held-out frames' needs (against
//! the fold's own samples) and the needs of random rotations (against all samples):
//!
//! - for each candidate `S`, the least `T` holding a share `P` of all held-out frames is the
//!   `⌈P·N⌉`-th smallest `t` among the frames with `s ≤ S` (none when fewer frames have `s ≤ S`);
//! - of those pairs, the one accepting the fewest random rotations (`s ≤ S` and `t ≤ T`) wins.
//!
//! Candidates `S` run over the held-out `s` values from the `P`-quantile to the largest (a
//! smaller `S` cannot hold the share), thinned to [`CANDIDATES`] evenly spaced ranks. The search
//! knows nothing of tables: any limit that is a product of a swing part and a twist part, each
//! grown by its own padding, can use it.

/// Room a limit leaves around its data, radians, for swings and for twists apart (a table's caps
/// of bone directions and its twist envelope); also what a rotation needs of each to be allowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwingTwistPadding {
    /// Room for swings (bone directions).
    pub swing: f64,
    /// Room for twists.
    pub twist: f64,
}

impl SwingTwistPadding {
    /// The same room for swings and twists.
    pub fn uniform(padding: f64) -> SwingTwistPadding {
        SwingTwistPadding {
            swing: padding,
            twist: padding,
        }
    }
}

/// How many swing paddings the search tries at most.
pub const CANDIDATES: usize = 96;

/// The paddings, each at least `base`, under which a share `accept` (in `(0, 1]`) of the
/// `held_out` frames' needed paddings are held, accepting the fewest of the `random` rotations'
/// needed paddings (module docs); `None` for no held-out frames.
pub fn paddings_holding(
    held_out: &[SwingTwistPadding],
    random: &[SwingTwistPadding],
    accept: f64,
    base: f64,
) -> Option<SwingTwistPadding> {
    let n = held_out.len();
    if n == 0 {
        return None;
    }
    let needed = ((accept * n as f64 - 1e-9).ceil() as usize).clamp(1, n);
    let mut by_swing: Vec<SwingTwistPadding> = held_out.to_vec();
    by_swing.sort_by(|a, b| a.swing.total_cmp(&b.swing));
    // The frames with the `j + 1` smallest swing needs hold `needed` of them at the `needed`-th
    // smallest twist need among them: kept as a max-heap of the `needed` smallest so far.
    let candidates = candidate_ranks(needed - 1, n - 1);
    let mut smallest_twists = std::collections::BinaryHeap::with_capacity(needed + 1);
    let mut next = candidates.iter().peekable();
    let mut pending = false;
    let mut best: Option<(usize, SwingTwistPadding)> = None;
    for (j, frame) in by_swing.iter().enumerate() {
        smallest_twists.push(OrderedNeed(frame.twist));
        if smallest_twists.len() > needed {
            smallest_twists.pop();
        }
        if next.peek() == Some(&&j) {
            next.next();
            pending = true;
        }
        // A padding of this swing holds every frame tied with it: a candidate is tried at the
        // last frame of its run.
        if !pending || by_swing.get(j + 1).is_some_and(|f| f.swing == frame.swing) {
            continue;
        }
        pending = false;
        let Some(&OrderedNeed(twist)) = smallest_twists.peek() else {
            continue;
        };
        let padding = SwingTwistPadding {
            swing: frame.swing.max(base),
            twist: twist.max(base),
        };
        let accepted = random
            .iter()
            .filter(|r| r.swing <= padding.swing && r.twist <= padding.twist)
            .count();
        if best.is_none_or(|(fewest, _)| accepted < fewest) {
            best = Some((accepted, padding));
        }
    }
    // The last frame is always a candidate, so a pair is always found.
    best.map(|(_, padding)| padding)
}

/// Up to [`CANDIDATES`] ranks from `first` to `last` (both included), evenly spaced.
fn candidate_ranks(first: usize, last: usize) -> Vec<usize> {
    let span = last - first;
    let steps = span.clamp(1, CANDIDATES - 1);
    let mut ranks: Vec<usize> = (0..=steps).map(|i| first + i * span / steps).collect();
    ranks.dedup();
    ranks
}

/// A padding need ordered by its value (needs are finite and non-negative).
#[derive(Clone, Copy, PartialEq)]
struct OrderedNeed(f64);

impl Eq for OrderedNeed {}

impl PartialOrd for OrderedNeed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderedNeed {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::SeededRandom;

    fn need(swing: f64, twist: f64) -> SwingTwistPadding {
        SwingTwistPadding { swing, twist }
    }

    /// The share of `needs` held by `padding`.
    fn held(needs: &[SwingTwistPadding], padding: SwingTwistPadding) -> f64 {
        needs
            .iter()
            .filter(|r| r.swing <= padding.swing && r.twist <= padding.twist)
            .count() as f64
            / needs.len() as f64
    }

    #[test]
    fn the_chosen_paddings_hold_the_share_and_beat_a_brute_force_over_every_pair() {
        let mut random = SeededRandom::new(5);
        for case in 0..20 {
            // Held-out needs mostly in twist or mostly in swing, random needs spread wide.
            let twist_heavy = case % 2 == 0;
            let held_out: Vec<SwingTwistPadding> = (0..300)
                .map(|_| {
                    let (a, b) = (random.next_unit(), random.next_unit());
                    let (small, large) = (0.05 * a * a, 0.6 * b * b * b);
                    if twist_heavy {
                        need(small, large)
                    } else {
                        need(large, small)
                    }
                })
                .collect();
            let random_needs: Vec<SwingTwistPadding> = (0..2000)
                .map(|_| need(2.0 * random.next_unit(), 3.0 * random.next_unit()))
                .collect();
            let accept = [0.9, 0.99, 1.0][case % 3];
            let base = if case % 4 == 0 { 0.03 } else { 0.0 };
            let chosen = paddings_holding(&held_out, &random_needs, accept, base).unwrap();
            assert!(held(&held_out, chosen) >= accept - 1e-9, "case {case}");
            assert!(chosen.swing >= base && chosen.twist >= base);
            // Every pair of held-out needs as (swing, twist), each at least the base.
            let cost = |p: SwingTwistPadding| held(&random_needs, p);
            let brute = held_out
                .iter()
                .flat_map(|a| held_out.iter().map(move |b| need(a.swing, b.twist)))
                .map(|p| need(p.swing.max(base), p.twist.max(base)))
                .filter(|&p| held(&held_out, p) >= accept - 1e-9)
                .map(cost)
                .fold(f64::INFINITY, f64::min);
            // Thinned candidates may miss the best pair by a little, never by much.
            assert!(
                cost(chosen) <= brute + 0.01,
                "case {case}: {} against the best {}",
                cost(chosen),
                brute
            );
        }
    }

    #[test]
    fn one_need_or_none() {
        assert_eq!(paddings_holding(&[], &[need(1.0, 1.0)], 0.99, 0.0), None);
        let one = paddings_holding(&[need(0.2, 0.1)], &[], 0.99, 0.0).unwrap();
        assert_eq!(one, need(0.2, 0.1));
        let floored = paddings_holding(&[need(0.2, 0.1)], &[], 0.99, 0.15).unwrap();
        assert_eq!(floored, need(0.2, 0.15));
    }
}
