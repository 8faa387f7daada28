//! Per-joint fitting choices: which kind, space, padding, share of frames held and calibrated
//! acceptance each joint gets, by name or name pattern, and which joints get no limit at all.
//!
//! A configuration is a list of rules applied in order over the options every joint starts from:
//! first `defaults`, then each of `joints` whose pattern matches the joint's name, a later rule's
//! fields replacing an earlier one's. A rule that picks a kind no margin calibrates (a hinge, a
//! coupled limit) without an `accept` of its own turns an inherited acceptance off: those
//! joints get their padding. Its serialised form (JSON or TOML) reads:
//!
//! ```toml
//! [defaults]
//! shape = "ellipsoid"
//! accept = 0.99
//!
//! [[joints]]
//! match = "*Shin"          # `*` any run of characters, `?` any one
//! shape = "hinge"
//! padding = 1.0            # degrees
//! hold = 0.995             # leave out the farthest 0.5% of frames (glitches)
//!
//! [[joints]]
//! match = "?Finger*"
//! exclude = true           # no limit for these joints
//!
//! [[joints]]
//! match = "?Finger1"
//! exclude = false          # but these again
//! ```

use serde::{Deserialize, Deserializer, Serialize};

use super::limits::{FitOptions, ShapeKind};
use crate::space::SpaceKind;

/// A fitting configuration: defaults and per-joint rules (module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitConfig {
    /// Applied to every joint first.
    #[serde(default)]
    pub defaults: JointRule,
    /// Applied in order to the joints their pattern matches.
    #[serde(default)]
    pub joints: Vec<JointRule>,
}

/// One rule: the fields it sets, for the joints it matches.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointRule {
    /// The joint names it applies to: a name, or a pattern where `*` matches any run of
    /// characters and `?` any one character. Required in `joints`; not allowed in `defaults`.
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The kind fitted (a `--shape` name: `ellipsoid`, `hinge`, `reach-cone`, `table`, …).
    #[serde(
        default,
        deserialize_with = "parse_shape",
        serialize_with = "write_shape",
        skip_serializing_if = "Option::is_none"
    )]
    pub shape: Option<ShapeKind>,
    /// The limit space, `full` or `swing-twist`.
    #[serde(
        default,
        deserialize_with = "parse_space",
        serialize_with = "write_space",
        skip_serializing_if = "Option::is_none"
    )]
    pub space: Option<SpaceKind>,
    /// The padding, degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub padding: Option<f64>,
    /// A table's or a coupled limit's cells per side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<u32>,
    /// Calibrate the margin to accept this share of unseen frames; `1` accepts all seen and is
    /// the largest; a rule can turn calibration off again with `accept = 0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept: Option<f64>,
    /// The share of the joint's frames to hold, in (0, 1] (`fit --hold`): below 1 the outliers
    /// are left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold: Option<f64>,
    /// A coupled limit's room beyond the padding, degrees (`fit --coupling-margin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupling_margin: Option<f64>,
    /// Fit no limit for the joints it matches (`true`), or fit one again after an earlier rule
    /// excluded them (`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<bool>,
}

/// What one joint is fitted with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointChoice {
    /// The fitting options.
    pub options: FitOptions,
    /// The calibrated acceptance, or `None` for the padding alone.
    pub accept: Option<f64>,
}

/// A configuration that cannot be used: the rule (`defaults` or `joints[i]`) and the problem.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{rule}: {problem}")]
pub struct ConfigError {
    /// `defaults`, or `joints[i]` with the rule's pattern.
    pub rule: String,
    /// What is wrong.
    pub problem: String,
}

impl FitConfig {
    /// Checks every rule: patterns where they belong, and values [`FitOptions::validate`]
    /// accepts (padding 0–180°, acceptance in `[0, 1]`, table resolution).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.defaults == JointRule::default() && self.joints.is_empty() {
            return Err(ConfigError {
                rule: "the configuration".into(),
                problem:
                    "sets nothing: its `defaults` choose no option and it has no `joints` rules"
                        .into(),
            });
        }
        let mut named = vec![("defaults".to_string(), &self.defaults)];
        for (i, rule) in self.joints.iter().enumerate() {
            let pattern = rule.pattern.as_deref().unwrap_or("");
            named.push((format!("joints[{i}] (match {pattern:?})"), rule));
        }
        for (index, (rule, fields)) in named.into_iter().enumerate() {
            let fail = |problem: String| ConfigError {
                rule: rule.clone(),
                problem,
            };
            match (index, &fields.pattern) {
                (0, Some(_)) => return Err(fail("`match` belongs in a joints rule".into())),
                (i, None) if i > 0 => {
                    return Err(fail("needs `match`: a joint name or pattern".into()));
                }
                _ => {}
            }
            if let Some(accept) = fields.accept
                && !(0.0..=1.0).contains(&accept)
            {
                return Err(fail(format!(
                    "accept {accept} is not a share of frames in [0, 1]"
                )));
            }
            let options = fields.apply(FitOptions::default());
            options.validate().map_err(|e| match e {
                // Named as the file names the field, not as the command line's flag.
                super::FitLimitsError::Option { option, problem } => {
                    fail(format!("{option}: {problem}"))
                }
                other => fail(other.to_string()),
            })?;
        }
        Ok(())
    }

    /// `base` with the `defaults` rule applied: what a joint no `joints` rule matches gets.
    pub fn defaults_over(&self, base: &FitOptions) -> FitOptions {
        self.defaults.apply(*base)
    }

    /// What the joint `name` is fitted with, starting from `base` and `base_accept` (the
    /// command line's): the rules that match applied in order, or `None` when one excludes it.
    pub fn choice_for(
        &self,
        name: &str,
        base: &FitOptions,
        base_accept: Option<f64>,
    ) -> Option<JointChoice> {
        let mut choice = JointChoice {
            options: *base,
            accept: base_accept,
        };
        let matching = std::iter::once(&self.defaults).chain(
            self.joints
                .iter()
                .filter(|rule| rule.pattern.as_deref().is_some_and(|p| matches(p, name))),
        );
        let mut excluded = false;
        for rule in matching {
            excluded = rule.exclude.unwrap_or(excluded);
            choice.options = rule.apply(choice.options);
            match rule.accept {
                Some(accept) => choice.accept = (accept > 0.0).then_some(accept),
                // A rule choosing a kind no margin calibrates (hinges, coupled limits) pads it
                // instead of inheriting an acceptance it could not honour; an acceptance given
                // with it is still refused.
                None if rule.shape.is_some_and(|shape| !shape.can_be_calibrated()) => {
                    choice.accept = None
                }
                None => {}
            }
        }
        (!excluded).then_some(choice)
    }

    /// Fields of rules that no joint they match can use, given the kind each of `names` ends up
    /// fitted with from `base` (a `resolution` where no table or coupled limit is fitted, a
    /// `coupling_margin` where no coupled limit is, a `hold` where only coupled limits are,
    /// which hold every frame): each as the rule (`defaults` or `joints[i] (match "…")`) and
    /// what it sets in vain, for a warning.
    pub fn ignored_fields(&self, names: &[&str], base: &FitOptions) -> Vec<String> {
        let rules = std::iter::once((None, &self.defaults))
            .chain(self.joints.iter().enumerate().map(|(i, r)| (Some(i), r)));
        let mut ignored = Vec::new();
        for (index, rule) in rules {
            let shapes: Vec<ShapeKind> = names
                .iter()
                .filter(|name| {
                    index.is_none() || rule.pattern.as_deref().is_some_and(|p| matches(p, name))
                })
                .filter_map(|name| self.choice_for(name, base, None))
                .map(|choice| choice.options.shape)
                .collect();
            if shapes.is_empty() {
                continue;
            }
            let any = |wanted: fn(&ShapeKind) -> bool| shapes.iter().any(wanted);
            let gridded = |s: &ShapeKind| matches!(s, ShapeKind::Table(_) | ShapeKind::Coupled(_));
            let coupled = |s: &ShapeKind| matches!(s, ShapeKind::Coupled(_));
            let uncoupled = |s: &ShapeKind| !matches!(s, ShapeKind::Coupled(_));
            let name = match (index, &rule.pattern) {
                (Some(i), Some(pattern)) => format!("joints[{i}] (match {pattern:?})"),
                _ => "defaults".to_string(),
            };
            if rule.resolution.is_some() && !any(gridded) {
                ignored.push(format!(
                    "{name}: resolution is for tables and coupled limits, and none of its joints is fitted as one, so it is ignored"
                ));
            }
            if rule.coupling_margin.is_some() && !any(coupled) {
                ignored.push(format!(
                    "{name}: coupling_margin is for coupled limits, and none of its joints is fitted as one, so it is ignored"
                ));
            }
            if rule.hold.is_some() && !any(uncoupled) {
                ignored.push(format!(
                    "{name}: coupled limits hold every frame, so hold applies only to joints fitted without a parent to couple to"
                ));
            }
        }
        ignored
    }

    /// The `joints` rules whose pattern matches none of `names` (likely a misspelling).
    pub fn unmatched<'a>(&'a self, names: &[&str]) -> Vec<&'a str> {
        self.joints
            .iter()
            .filter_map(|rule| rule.pattern.as_deref())
            .filter(|pattern| !names.iter().any(|name| matches(pattern, name)))
            .collect()
    }
}

impl JointRule {
    /// `options` with this rule's fields set.
    fn apply(&self, mut options: FitOptions) -> FitOptions {
        if let Some(shape) = self.shape {
            options.shape = shape;
        }
        if let Some(space) = self.space {
            options.space = space;
        }
        if let Some(padding) = self.padding {
            options.padding = padding.to_radians();
        }
        if let Some(hold) = self.hold {
            options.hold = hold;
        }
        if let Some(margin) = self.coupling_margin {
            options.coupling_margin = margin.to_radians();
        }
        match (self.resolution, options.shape) {
            (Some(resolution), ShapeKind::Table(_)) => options.shape = ShapeKind::Table(resolution),
            (Some(resolution), ShapeKind::Coupled(_)) => {
                options.shape = ShapeKind::Coupled(resolution)
            }
            _ => {}
        }
        options
    }
}

/// Whether `name` matches `pattern`, where `*` matches any run of characters (also none) and `?`
/// any one character.
///
/// ```
/// use jointlimits::fit::config::matches;
/// assert!(matches("*Shin", "lShin") && matches("?Thigh", "rThigh") && matches("neck", "neck"));
/// assert!(!matches("*Shin", "lShinTwist") && !matches("?Thigh", "Thigh"));
/// ```
pub fn matches(pattern: &str, name: &str) -> bool {
    let (pattern, name): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), name.chars().collect());
    // Greedy matching with one backtrack point: the last `*` and where its run would end.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((star_p, star_n)) => {
                    star = Some((star_p, star_n + 1));
                    (p, n) = (star_p + 1, star_n + 1);
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// Reads a shape by its `--shape` name.
fn parse_shape<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ShapeKind>, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map(Some).map_err(serde::de::Error::custom)
}

fn write_shape<S: serde::Serializer>(shape: &Option<ShapeKind>, s: S) -> Result<S::Ok, S::Error> {
    match shape {
        Some(shape) => s.serialize_str(&shape.to_string()),
        None => s.serialize_none(),
    }
}

/// Reads `full` or `swing-twist`.
fn parse_space<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SpaceKind>, D::Error> {
    match String::deserialize(d)?.as_str() {
        "full" => Ok(Some(SpaceKind::Full)),
        "swing-twist" | "swing_twist" => Ok(Some(SpaceKind::SwingTwist)),
        other => Err(serde::de::Error::custom(format!(
            "unknown space {other:?}: expected full or swing-twist"
        ))),
    }
}

fn write_space<S: serde::Serializer>(space: &Option<SpaceKind>, s: S) -> Result<S::Ok, S::Error> {
    match space {
        Some(SpaceKind::Full) => s.serialize_str("full"),
        Some(SpaceKind::SwingTwist) => s.serialize_str("swing-twist"),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::authored::AuthoredShape;

    fn config(json: &str) -> FitConfig {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn later_rules_replace_earlier_fields_and_exclusion_wins() {
        let config = config(
            r#"{"defaults": {"shape": "box", "accept": 0.99},
                "joints": [{"match": "*Shin", "shape": "hinge", "padding": 1},
                           {"match": "l*", "accept": 0},
                           {"match": "?Finger*", "exclude": true}]}"#,
        );
        config.validate().unwrap();
        let base = FitOptions::default();
        let shin = config.choice_for("lShin", &base, None).unwrap();
        assert_eq!(
            shin.options.shape,
            ShapeKind::Authored(AuthoredShape::Hinge)
        );
        assert!((shin.options.padding - 1f64.to_radians()).abs() < 1e-12);
        assert_eq!(shin.accept, None);
        // The hinge rule turns the inherited acceptance off (no margin calibrates a hinge).
        let right = config.choice_for("rShin", &base, None).unwrap();
        assert_eq!(right.accept, None);
        let right_arm = config.choice_for("rShldr", &base, None).unwrap();
        assert_eq!(right_arm.accept, Some(0.99));
        assert_eq!(
            config
                .choice_for("rShin", &base, Some(0.95))
                .unwrap()
                .accept,
            None
        );
        // Given with the hinge, it stays (and the fit refuses it).
        let explicit: FitConfig = serde_json::from_str(
            r#"{"joints": [{"match": "*Shin", "shape": "hinge", "accept": 0.99}]}"#,
        )
        .unwrap();
        assert_eq!(
            explicit.choice_for("rShin", &base, None).unwrap().accept,
            Some(0.99)
        );
        let neck = config.choice_for("neck", &base, None).unwrap();
        assert_eq!(neck.options.shape, ShapeKind::Box);
        assert_eq!(neck.options.padding, base.padding);
        assert_eq!(config.choice_for("rFinger2", &base, None), None);
        let back = config_with_reinclusion();
        assert!(back.choice_for("lShin", &base, None).is_some());
        assert_eq!(back.choice_for("rShin", &base, None), None);
        assert_eq!(config.unmatched(&["lShin", "neck"]), vec!["?Finger*"]);
    }

    #[test]
    fn fields_no_matched_joint_can_use_are_named() {
        let config = config(
            r#"{"joints": [{"match": "rShin", "shape": "coupled", "hold": 0.9},
                           {"match": "lShin", "shape": "box", "resolution": 64,
                            "coupling_margin": 5},
                           {"match": "*Shin", "resolution": 16}]}"#,
        );
        let ignored = config.ignored_fields(&["rShin", "lShin"], &FitOptions::default());
        assert_eq!(ignored.len(), 3, "{ignored:?}");
        assert!(ignored[0].starts_with("joints[0] (match \"rShin\"): coupled limits hold"));
        assert!(ignored[1].starts_with("joints[1] (match \"lShin\"): resolution"));
        assert!(ignored[2].starts_with("joints[1] (match \"lShin\"): coupling_margin"));
    }

    fn config_with_reinclusion() -> FitConfig {
        config(
            r#"{"joints": [{"match": "*", "exclude": true},
                           {"match": "lShin", "exclude": false, "shape": "hinge"}]}"#,
        )
    }

    #[test]
    fn bad_rules_are_named() {
        let error = config(r#"{"joints": [{"shape": "box"}]}"#)
            .validate()
            .unwrap_err();
        assert_eq!(error.rule, "joints[0] (match \"\")");
        let error = config(r#"{"joints": [{"match": "a", "padding": 500}]}"#)
            .validate()
            .unwrap_err();
        assert!(error.problem.contains("padding"), "{error}");
        let error = config(r#"{"defaults": {"match": "a"}}"#)
            .validate()
            .unwrap_err();
        assert_eq!(error.rule, "defaults");
        assert!(serde_json::from_str::<FitConfig>(r#"{"defaults": {"shape": "cube"}}"#).is_err());
        assert!(serde_json::from_str::<FitConfig>(r#"{"defaults": {"shaep": "box"}}"#).is_err());
        // An empty file is most likely the wrong file.
        let error = config("{}").validate().unwrap_err();
        assert!(error.problem.contains("sets nothing"), "{error}");
        let error = config(r#"{"defaults": {"padding": 1e308}}"#)
            .validate()
            .unwrap_err();
        assert!(error.problem.contains("1e308°"), "{error}");
        assert!(error.problem.len() < 100, "{error}");
    }

    #[test]
    fn patterns_match_whole_names() {
        for (pattern, name, expected) in [
            ("*", "", true),
            ("a*b*c", "aXbYbc", true),
            ("a*b*c", "aXbYbd", false),
            ("*Arm", "lForeArm", true),
            ("l?", "lx", true),
            ("l?", "l", false),
            ("**x", "x", true),
        ] {
            assert_eq!(matches(pattern, name), expected, "{pattern} {name}");
        }
    }
}
