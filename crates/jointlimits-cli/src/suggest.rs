//! "Did you mean …?" for names a user typed: joints and shapes.

/// ` (did you mean "X"?)` for the candidate nearest `typed`, when one is near enough to be a
/// likely typo (Jaro–Winkler similarity of at least 0.8, letter case ignored); else empty.
pub fn did_you_mean(typed: &str, candidates: &[&str]) -> String {
    let typed = typed.to_lowercase();
    candidates
        .iter()
        .map(|&c| (strsim::jaro_winkler(&typed, &c.to_lowercase()), c))
        .filter(|&(similarity, _)| similarity >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or_else(String::new, |(_, c)| format!(" (did you mean {c:?}?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_suggested_and_far_ones_are_not() {
        let joints = ["LeftArm", "LeftForeArm", "LeftHand", "RightArm"];
        assert_eq!(
            did_you_mean("LeftForArm", &joints),
            " (did you mean \"LeftForeArm\"?)"
        );
        assert_eq!(
            did_you_mean("leftarm", &joints),
            " (did you mean \"LeftArm\"?)"
        );
        assert_eq!(did_you_mean("Spine", &joints), "");
        assert_eq!(
            did_you_mean("elipsoid", &["ellipsoid", "box"]),
            " (did you mean \"ellipsoid\"?)"
        );
    }
}
