//! Left/right mirroring: the joints of a skeleton paired with their partners on the other side,
//! the body's sagittal plane, and the reflection of rotations across it, so that each side can
//! learn from the other side's motion too (`fit --mirror`).
//!
//! Pairs are found by name: a name whose left marker (`Left`, `left`, `L`/`l` before a capital
//! letter, digit or `_`, or `_L`, `.L`, `_l`, `.l` at the end) becomes an existing joint's name
//! when swapped for the right marker. The sagittal plane's normal is the direction between the
//! partners whose offsets differ most (the hips or the shoulders), taken as the nearest coordinate
//! axis when within 5° of one, as in BVH skeletons, so that reflecting twice gives the rotation
//! back bit for bit.
//!
//! Pairs named by hand ([`pairs_with`], `--pair LEFT=RIGHT`) replace what the names would give
//! for both joints named.
//!
//! Reflection across the plane with unit normal `n`, `M = I − 2nnᵀ`, turns a rotation `R` into
//! `M·R·M`: the same angle about the reflected axial vector `−M·v`, so `(v, w) ↦ (2(v·n)n − v,
//! w)`. It is exact for local rotations of joints whose rest frames are aligned with the body
//! (BVH); a joint's reference is mirrored along with its rotations.

use glam::{Quat, Vec3};

use crate::Skeleton;

/// The pairs of markers, left first: a prefix, or (`suffix`) an ending.
const MARKERS: [(&str, &str, Position); 8] = [
    ("Left", "Right", Position::Anywhere),
    ("left", "right", Position::Anywhere),
    ("L", "R", Position::Prefix),
    ("l", "r", Position::Prefix),
    ("_L", "_R", Position::Suffix),
    (".L", ".R", Position::Suffix),
    ("_l", "_r", Position::Suffix),
    (".l", ".r", Position::Suffix),
];

/// Where a marker may stand in a name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    /// At the start, followed by a capital letter, a digit or `_`.
    Prefix,
    /// At the end.
    Suffix,
    /// Anywhere (a whole word such as `Left`).
    Anywhere,
}

/// The names `name` becomes when one of its left markers is swapped for the right one (none
/// when it carries no left marker).
fn right_name(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (left, right, position) in MARKERS {
        match position {
            Position::Prefix => {
                if let Some(rest) = name.strip_prefix(left) {
                    let next = rest.chars().next();
                    if next
                        .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    {
                        out.push(format!("{right}{rest}"));
                    }
                }
            }
            Position::Suffix => {
                if let Some(rest) = name.strip_suffix(left) {
                    out.push(format!("{rest}{right}"));
                }
            }
            Position::Anywhere => {
                if name.contains(left) {
                    out.push(name.replacen(left, right, 1));
                }
            }
        }
    }
    out
}

/// The (left, right) joint pairs of `skeleton`, by name (module docs).
pub fn mirror_pairs(skeleton: &Skeleton) -> Vec<(usize, usize)> {
    let joints = skeleton.joints();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (left, joint) in joints.iter().enumerate() {
        let partner = right_name(&joint.name)
            .into_iter()
            .find_map(|name| skeleton.find(&name).filter(|&right| right != left));
        // A joint already paired is not paired again.
        let taken = |right: usize| {
            pairs
                .iter()
                .any(|&(a, b)| a == right || b == right || b == left)
        };
        if let Some(right) = partner.filter(|&right| !taken(right)) {
            pairs.push((left, right));
        }
    }
    pairs
}

/// A pair named by hand that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PairError {
    /// A named joint is not in the skeleton.
    #[error("pair {left}={right}: the skeleton has no joint {missing:?}")]
    UnknownJoint {
        /// The pair's left joint.
        left: String,
        /// The pair's right joint.
        right: String,
        /// The name not found.
        missing: String,
    },
    /// A joint paired with itself.
    #[error("pair {0}={0}: a joint cannot be its own partner")]
    Itself(String),
    /// A joint named in two pairs.
    #[error("joint {0:?} is named in more than one pair")]
    Twice(String),
    /// The root, which has no limit.
    #[error("joint {0:?} is the root, which gets no limit: pair joints below it")]
    Root(String),
    /// Two joints whose rest offsets are not mirror images across the sagittal plane.
    #[error(
        "pair {left}={right}: their rest offsets are not mirror images across the sagittal plane (normal {normal}); are they partners?"
    )]
    NotMirrorImages {
        /// The pair's left joint.
        left: String,
        /// The pair's right joint.
        right: String,
        /// The plane's normal.
        normal: Vec3,
    },
}

/// How far a named pair's rest offsets may be from mirror images, relative to the longer offset:
/// captured skeletons differ between sides by up to about 13% (CMU), other joints by far more.
const MIRROR_IMAGE_SLACK: f32 = 0.35;

/// Whether `left` reflected across the plane with unit `normal` is `right`, within
/// [`MIRROR_IMAGE_SLACK`].
fn mirror_images(left: Vec3, right: Vec3, normal: Vec3) -> bool {
    let reflected = left - normal * (2.0 * left.dot(normal));
    reflected.distance(right) <= MIRROR_IMAGE_SLACK * left.length().max(right.length())
}

/// The left/right pairs of a skeleton and the sagittal plane between them.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    /// (left, right) joint indices: the pairs named by hand first.
    pub pairs: Vec<(usize, usize)>,
    /// The plane's unit normal (`None` when no pair's offsets differ).
    pub normal: Option<Vec3>,
}

/// The pairs of `skeleton` ([`pairs_with`]) and the sagittal plane: from the pairs found by name
/// when there are any, otherwise from the named pair most others agree with. Every pair named by
/// hand must have rest offsets that are mirror images across that plane (within 35%), so that a
/// pair of two joints on one side is refused rather than tilting the plane for every pair.
pub fn pairing(skeleton: &Skeleton, overrides: &[(String, String)]) -> Result<Pairing, PairError> {
    let pairs = pairs_with(skeleton, overrides)?;
    let (named, found) = pairs.split_at(overrides.len());
    let offset = |j: usize| skeleton.joints()[j].offset;
    let normal = if found.is_empty() {
        // Each named pair proposes a plane; keep the one the most named pairs agree with.
        named
            .iter()
            .filter_map(|&pair| sagittal_normal(skeleton, &[pair]))
            .max_by_key(|&n| {
                named
                    .iter()
                    .filter(|&&(l, r)| mirror_images(offset(l), offset(r), n))
                    .count()
            })
    } else {
        sagittal_normal(skeleton, found)
    };
    if let Some(normal) = normal {
        for &(l, r) in named {
            if !mirror_images(offset(l), offset(r), normal) {
                let name = |j: usize| skeleton.joints()[j].name.clone();
                return Err(PairError::NotMirrorImages {
                    left: name(l),
                    right: name(r),
                    normal,
                });
            }
        }
    }
    Ok(Pairing { pairs, normal })
}

/// The (left, right) joint pairs of `skeleton`: the pairs named in `overrides` (left name, right
/// name; neither may be the root), then the pairs found by name ([`mirror_pairs`]) that involve neither joint of any
/// named pair.
pub fn pairs_with(
    skeleton: &Skeleton,
    overrides: &[(String, String)],
) -> Result<Vec<(usize, usize)>, PairError> {
    let mut named: Vec<(usize, usize)> = Vec::with_capacity(overrides.len());
    for (left, right) in overrides {
        let find = |name: &String| {
            skeleton.find(name).ok_or_else(|| PairError::UnknownJoint {
                left: left.clone(),
                right: right.clone(),
                missing: name.clone(),
            })
        };
        let (l, r) = (find(left)?, find(right)?);
        if l == r {
            return Err(PairError::Itself(left.clone()));
        }
        for joint in [l, r] {
            if skeleton.joints()[joint].parent.is_none() {
                return Err(PairError::Root(skeleton.joints()[joint].name.clone()));
            }
        }
        for joint in [l, r] {
            if named.iter().any(|&(a, b)| a == joint || b == joint) {
                return Err(PairError::Twice(skeleton.joints()[joint].name.clone()));
            }
        }
        named.push((l, r));
    }
    let touches_named = |(a, b): (usize, usize)| {
        named
            .iter()
            .any(|&(l, r)| a == l || a == r || b == l || b == r)
    };
    let found: Vec<(usize, usize)> = mirror_pairs(skeleton)
        .into_iter()
        .filter(|&pair| !touches_named(pair))
        .collect();
    named.extend(found);
    Ok(named)
}

/// The unit normal of the body's sagittal plane (module docs), pointing from the right partner
/// to the left one; `None` when no pair's offsets differ.
pub fn sagittal_normal(skeleton: &Skeleton, pairs: &[(usize, usize)]) -> Option<Vec3> {
    let joints = skeleton.joints();
    let across = pairs
        .iter()
        .map(|&(l, r)| joints[l].offset - joints[r].offset)
        .max_by(|a, b| a.length_squared().total_cmp(&b.length_squared()))?;
    let normal = across.try_normalize()?;
    let axis = [Vec3::X, Vec3::Y, Vec3::Z]
        .into_iter()
        .map(|a| a * normal.dot(a).signum())
        .max_by(|a, b| a.dot(normal).total_cmp(&b.dot(normal)))
        .expect("three axes");
    Some(if axis.dot(normal) >= 5f32.to_radians().cos() {
        axis
    } else {
        normal
    })
}

/// A joint's partner on the other side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Partner {
    /// The partner joint.
    pub joint: usize,
    /// Whether the joint itself is the left one of the pair.
    pub left: bool,
    /// The sagittal plane's unit normal.
    pub normal: Vec3,
}

/// Each joint's partner (`None` for joints on the body's middle, and for every joint when the
/// skeleton has no pairs or no sagittal plane), with the pairs named in `overrides` first
/// ([`pairs_with`]).
pub fn partners(
    skeleton: &Skeleton,
    overrides: &[(String, String)],
) -> Result<Vec<Option<Partner>>, PairError> {
    let mut out = vec![None; skeleton.len()];
    let Pairing { pairs, normal } = pairing(skeleton, overrides)?;
    let Some(normal) = normal else {
        return Ok(out);
    };
    for (left, right) in pairs {
        out[left] = Some(Partner {
            joint: right,
            left: true,
            normal,
        });
        out[right] = Some(Partner {
            joint: left,
            left: false,
            normal,
        });
    }
    Ok(out)
}

/// `rotation` reflected across the plane with unit `normal`: `M·R·M` (module docs).
#[inline]
pub fn reflect(rotation: Quat, normal: Vec3) -> Quat {
    let v = Vec3::new(rotation.x, rotation.y, rotation.z);
    let reflected = normal * (2.0 * v.dot(normal)) - v;
    Quat::from_xyzw(reflected.x, reflected.y, reflected.z, rotation.w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::Joint;

    fn joint(name: &str, parent: Option<usize>, offset: Vec3) -> Joint {
        Joint {
            name: name.into(),
            parent,
            offset,
            end_site: None,
            reference_rotation: Quat::IDENTITY,
        }
    }

    #[test]
    fn partners_are_found_by_every_naming_habit() {
        let names = [
            ("Hips", None, Vec3::ZERO),
            ("LeftUpLeg", Some(0), Vec3::new(1.0, -0.2, 0.0)),
            ("RightUpLeg", Some(0), Vec3::new(-1.0, -0.2, 0.0)),
            ("lThigh", Some(0), Vec3::new(0.9, 0.0, 0.0)),
            ("rThigh", Some(0), Vec3::new(-0.9, 0.0, 0.0)),
            ("LHipJoint", Some(0), Vec3::X),
            ("RHipJoint", Some(0), -Vec3::X),
            ("arm.L", Some(0), Vec3::X),
            ("arm.R", Some(0), -Vec3::X),
            ("lower_back", Some(0), Vec3::Y),
            ("Lumbar", Some(0), Vec3::Y),
        ];
        let skeleton =
            Skeleton::new(names.iter().map(|&(n, p, o)| joint(n, p, o)).collect()).unwrap();
        let pairs: Vec<(&str, &str)> = mirror_pairs(&skeleton)
            .into_iter()
            .map(|(l, r)| {
                (
                    skeleton.joints()[l].name.as_str(),
                    skeleton.joints()[r].name.as_str(),
                )
            })
            .collect();
        assert_eq!(
            pairs,
            [
                ("LeftUpLeg", "RightUpLeg"),
                ("lThigh", "rThigh"),
                ("LHipJoint", "RHipJoint"),
                ("arm.L", "arm.R")
            ]
        );
        let pairs = mirror_pairs(&skeleton);
        assert_eq!(sagittal_normal(&skeleton, &pairs), Some(Vec3::X));
    }

    #[test]
    fn pairs_named_by_hand_replace_those_found_by_name() {
        let names = [
            ("Hips", None, Vec3::ZERO),
            ("LeftUpLeg", Some(0), Vec3::new(1.0, -0.2, 0.0)),
            ("RightUpLeg", Some(0), Vec3::new(-1.0, -0.2, 0.0)),
            ("arm.L", Some(0), Vec3::X),
            ("arm.R", Some(0), -Vec3::X),
            ("WingA", Some(0), Vec3::X),
            ("WingB", Some(0), -Vec3::X),
        ];
        let skeleton =
            Skeleton::new(names.iter().map(|&(n, p, o)| joint(n, p, o)).collect()).unwrap();
        let pair = |l: &str, r: &str| (l.to_string(), r.to_string());
        let named = |overrides: &[(String, String)]| -> Result<Vec<(String, String)>, PairError> {
            Ok(pairs_with(&skeleton, overrides)?
                .into_iter()
                .map(|(l, r)| {
                    let name = |j: usize| skeleton.joints()[j].name.clone();
                    (name(l), name(r))
                })
                .collect())
        };
        assert_eq!(
            named(&[]).unwrap(),
            [pair("LeftUpLeg", "RightUpLeg"), pair("arm.L", "arm.R")]
        );
        // A pair the names cannot give, and one that takes arm.R from arm.L.
        assert_eq!(
            named(&[pair("WingA", "WingB"), pair("arm.R", "LeftUpLeg")]).unwrap(),
            [pair("WingA", "WingB"), pair("arm.R", "LeftUpLeg"),]
        );
        assert_eq!(
            named(&[pair("WingA", "Tail")]),
            Err(PairError::UnknownJoint {
                left: "WingA".into(),
                right: "Tail".into(),
                missing: "Tail".into()
            })
        );
        assert_eq!(
            named(&[pair("WingA", "WingA")]),
            Err(PairError::Itself("WingA".into()))
        );
        assert_eq!(
            named(&[pair("WingA", "WingB"), pair("arm.L", "WingA")]),
            Err(PairError::Twice("WingA".into()))
        );
        assert_eq!(
            named(&[pair("Hips", "WingB")]),
            Err(PairError::Root("Hips".into()))
        );
        let partners = partners(&skeleton, &[pair("WingA", "WingB")]).unwrap();
        assert_eq!(partners[5].map(|p| (p.joint, p.left)), Some((6, true)));
        assert_eq!(partners[6].map(|p| (p.joint, p.left)), Some((5, false)));
    }

    #[test]
    fn named_pairs_must_be_mirror_images_across_the_plane() {
        let names = [
            ("Hips", None, Vec3::ZERO),
            ("WingA", Some(0), Vec3::X),
            ("WingB", Some(0), -Vec3::X),
            ("LegA", Some(0), Vec3::new(0.2, -1.0, 0.0)),
            ("LegB", Some(3), Vec3::new(0.2, -3.0, 0.0)),
            ("arm.L", Some(0), Vec3::new(0.9, 0.5, 0.0)),
            ("arm.R", Some(0), Vec3::new(-0.9, 0.5, 0.0)),
        ];
        let skeleton =
            Skeleton::new(names.iter().map(|&(n, p, o)| joint(n, p, o)).collect()).unwrap();
        let pair = |l: &str, r: &str| (l.to_string(), r.to_string());
        // Two joints of one side: refused, whether the plane comes from pairs found by name or
        // from the other named pairs, and it never tilts the plane.
        for overrides in [
            vec![pair("LegA", "LegB")],
            vec![
                pair("WingA", "WingB"),
                pair("LegA", "LegB"),
                pair("arm.L", "arm.R"),
            ],
        ] {
            match pairing(&skeleton, &overrides) {
                Err(PairError::NotMirrorImages {
                    left,
                    right,
                    normal,
                }) => {
                    assert_eq!(
                        (left.as_str(), right.as_str(), normal),
                        ("LegA", "LegB", Vec3::X)
                    );
                }
                other => panic!("{overrides:?}: {other:?}"),
            }
        }
        let good = pairing(&skeleton, &[pair("WingA", "WingB")]).unwrap();
        assert_eq!(good.normal, Some(Vec3::X));
        assert_eq!(good.pairs, [(1, 2), (5, 6)]);
    }

    #[test]
    fn reflecting_twice_gives_the_rotation_back_and_mirrors_directions() {
        let q = Quat::from_axis_angle(Vec3::new(0.3, -0.5, 0.8).normalize(), 1.1);
        let once = reflect(q, Vec3::X);
        assert_eq!(reflect(once, Vec3::X), q);
        // M·R·M applied to M·d is M·(R·d).
        let d = Vec3::new(0.2, 0.7, -0.4);
        let mirror = |v: Vec3| v - Vec3::X * (2.0 * v.x);
        assert!((once * mirror(d) - mirror(q * d)).length() < 1e-6);
    }
}
