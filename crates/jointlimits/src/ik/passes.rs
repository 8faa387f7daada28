//! The position passes of the position-based solvers, in any dimension.
//!
//! A chain of `n` bones is `n + 1` points: `points[0]` is the root (it never moves),
//! `points[n]` the end effector, and bone `i` joins `points[i]` and `points[i + 1]` with length
//! `lengths[i]`.

use super::point::ChainPoint;
use super::progress::{IkOptions, IkReport, Progress, Step};
use super::solve::Solver;

/// Squared lengths below this are coincident points with no direction.
const COINCIDENT: f32 = 1e-20;

/// One constraint-relaxation pass: the end effector is put on the target, then every bone from
/// the end to the root is restored to its length by moving its two ends.
///
/// For bone `i` with ends `b₁ = points[i]`, `b₂ = points[i+1]`, `v = b₂ − b₁`, `d = |v|` and
/// length `l`, the correction `u = (l − d)·v/d` is shared by the relaxation weights:
/// `b₁ −= u·w₁/(w₁+w₂)`, `b₂ += u·w₂/(w₁+w₂)`. The root and the end effector (which sits on the
/// target) weigh zero, so the end bone swings its base toward the target and the root bone only
/// moves its child. A bone whose ends both weigh zero, or coincide, is left alone.
/// `weights[i]` is the weight of `points[i]`; zero pins an interior joint.
pub fn relaxation_pass<P: ChainPoint>(
    points: &mut [P],
    lengths: &[f32],
    weights: &[f32],
    target: P,
) {
    let bones = lengths.len();
    debug_assert!(points.len() == bones + 1 && weights.len() == bones + 1);
    if bones == 0 {
        return;
    }
    points[bones] = target;
    for bone in (0..bones).rev() {
        let base_weight = if bone == 0 { 0.0 } else { weights[bone] };
        let tip_weight = if bone + 1 == bones {
            0.0
        } else {
            weights[bone + 1]
        };
        let total = base_weight + tip_weight;
        if total <= 0.0 {
            continue;
        }
        let v = points[bone + 1] - points[bone];
        let squared = v.length_squared();
        if squared < COINCIDENT {
            continue;
        }
        let distance = squared.sqrt();
        let correction = v * ((lengths[bone] - distance) / (distance * total));
        points[bone] = points[bone] - correction * base_weight;
        points[bone + 1] = points[bone + 1] + correction * tip_weight;
    }
}

/// One FABRIK iteration: a backward sweep from the end effector placed on the target, keeping each
/// bone's direction and restoring its length, then a forward sweep from the root back in place.
pub fn fabrik_pass<P: ChainPoint>(points: &mut [P], lengths: &[f32], target: P) {
    let bones = lengths.len();
    debug_assert_eq!(points.len(), bones + 1);
    if bones == 0 {
        return;
    }
    let root = points[0];
    points[bones] = target;
    for bone in (0..bones).rev() {
        points[bone] = place_at_length(points[bone + 1], points[bone], lengths[bone]);
    }
    points[0] = root;
    for bone in 0..bones {
        points[bone + 1] = place_at_length(points[bone], points[bone + 1], lengths[bone]);
    }
}

/// Lays every bone along the line from the root to `target`: the pose that every pass
/// converges to when the target is beyond reach (the end effector then lies on the line, as near
/// the target as the lengths allow). A target on the root leaves the points as they are.
pub fn straighten_toward<P: ChainPoint>(points: &mut [P], lengths: &[f32], target: P) {
    debug_assert_eq!(points.len(), lengths.len() + 1);
    let Some(&root) = points.first() else {
        return;
    };
    let line = target - root;
    let squared = line.length_squared();
    if squared < COINCIDENT {
        return;
    }
    let direction = line * (1.0 / squared.sqrt());
    for (bone, &length) in lengths.iter().enumerate() {
        points[bone + 1] = points[bone] + direction * length;
    }
}

/// The point at distance `length` from `anchor` in the direction of `toward` (`toward` itself
/// when the two coincide and there is no direction).
#[inline]
fn place_at_length<P: ChainPoint>(anchor: P, toward: P, length: f32) -> P {
    let v = toward - anchor;
    let squared = v.length_squared();
    if squared < COINCIDENT {
        return toward;
    }
    anchor + v * (length / squared.sqrt())
}

/// Whether the chain is in the lock-up of position solvers: all bones lie on one line (within
/// `1e-3` rad), the target lies on that line too, and it is nearer to the root than the straight
/// chain reaches. No pass then ever leaves the line, so the end effector can only slide along it.
pub fn is_locked_straight<P: ChainPoint>(points: &[P], target: P, tolerance: f32) -> bool {
    let Some(&root) = points.first() else {
        return false;
    };
    let mut direction = P::ZERO;
    let mut reach = 0.0;
    for pair in points.windows(2) {
        let bone = pair[1] - pair[0];
        let length = bone.length();
        if length * length < COINCIDENT {
            continue;
        }
        if direction.length_squared() > 0.0 {
            let cos = direction.dot(bone) / length;
            if cos < 1.0 - 5e-7 {
                return false;
            }
        } else {
            direction = bone * (1.0 / length);
        }
        reach += length;
    }
    if direction.length_squared() == 0.0 {
        return false;
    }
    let to_target = target - root;
    let along = to_target.dot(direction);
    let off_line_squared = (to_target.length_squared() - along * along).max(0.0);
    let off_line_limit = 1e-3 * reach;
    off_line_squared <= off_line_limit * off_line_limit
        && to_target.length() < reach - tolerance.max(1e-6 * reach)
}

/// Bends a straight chain toward `pole` (a direction; only its part perpendicular to the chain
/// counts, and any perpendicular is used when it has none): every interior point moves sideways by
/// `amount` times its shorter bone, the middle ones most, so the next pass can fold the chain.
pub fn bend_toward<P: ChainPoint>(points: &mut [P], pole: P, amount: f32) {
    let bones = points.len().saturating_sub(1);
    if bones < 2 {
        return;
    }
    let axis = points[bones] - points[0];
    let axis_squared = axis.length_squared();
    let mut side = if axis_squared > COINCIDENT {
        pole - axis * (pole.dot(axis) / axis_squared)
    } else {
        pole
    };
    let side_length = side.length();
    side = if side_length > 1e-6 {
        side * (1.0 / side_length)
    } else {
        axis.any_perpendicular()
    };
    for index in 1..bones {
        let before = (points[index] - points[index - 1]).length();
        let after = (points[index + 1] - points[index]).length();
        // A tent profile: largest in the middle of the chain, zero at both ends.
        let position = index as f32 / bones as f32;
        let profile = 1.0 - (2.0 * position - 1.0).abs();
        points[index] = points[index] + side * (amount * before.min(after) * (0.5 + profile));
    }
}

/// Solves a chain of bare points in any dimension (no rotations, no limits) with relaxation or
/// FABRIK passes ([`Solver::Ccd`] needs rotations and is treated as FABRIK), escaping the
/// straight-chain lock-up toward `pole`. The points keep the best configuration found; the root
/// never moves.
pub fn solve_points<P: ChainPoint>(
    points: &mut [P],
    lengths: &[f32],
    weights: &[f32],
    target: P,
    pole: P,
    solver: Solver,
    options: &IkOptions,
) -> IkReport {
    let end = lengths.len();
    if !target.is_finite() || points.len() != end + 1 || weights.len() != end + 1 {
        return IkReport::untouched(f32::INFINITY);
    }
    let reach: f32 = lengths.iter().sum();
    let floor = (target - points[0]).length() - reach;
    let mut progress = Progress::new(options, reach, (points[end] - target).length(), floor);
    if progress.already_reached() {
        return progress.reached_report();
    }
    let mut best = points.to_vec();
    loop {
        if is_locked_straight(points, target, options.tolerance) {
            bend_toward(points, pole, 0.1);
            progress.escapes += 1;
        }
        match solver {
            Solver::Relaxation => relaxation_pass(points, lengths, weights, target),
            Solver::Fabrik | Solver::Ccd => fabrik_pass(points, lengths, target),
        }
        // A relaxation pass leaves the end effector on the target and the bones stretched; the
        // pose it stands for hangs the bones from the root at their true lengths.
        restore_lengths(points, lengths);
        match progress.record((points[end] - target).length()) {
            Step::Continue { improved } => {
                if improved {
                    best.copy_from_slice(points);
                }
            }
            Step::Stop { improved, reason } => {
                if !improved {
                    points.copy_from_slice(&best);
                }
                return progress.report(reason);
            }
        }
    }
}

/// Re-hangs every bone from the root at its length, keeping its direction.
fn restore_lengths<P: ChainPoint>(points: &mut [P], lengths: &[f32]) {
    for (bone, &length) in lengths.iter().enumerate() {
        points[bone + 1] = place_at_length(points[bone], points[bone + 1], length);
    }
}
