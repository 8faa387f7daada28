//! The fit configuration file (`fit --config`): [`FitConfig`] as TOML (`.toml`) or JSON (any
//! other name), checked when read.

use std::path::Path;

use jointlimits::fit::FitConfig;

/// Why a fit configuration could not be read; the message names the file and, for a malformed
/// one, the line and column, or the rule at fault.
#[derive(Debug, thiserror::Error)]
#[error("{name}{}: {message}", place.map_or_else(String::new, |(l, c)| format!(":{l}:{c}")))]
pub struct FitConfigError {
    /// The file (or source) name.
    pub name: String,
    /// The 1-based line and column, where the problem is a place in the text.
    pub place: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

/// Parses and checks a fit configuration; `name` labels errors and chooses the syntax: TOML when
/// it ends in `.toml`, else JSON.
///
/// ```
/// let text = "[[joints]]\nmatch = \"*Shin\"\nshape = \"hinge\"\n";
/// let config = jointlimits_io::parse_fit_config(text, "fit.toml").unwrap();
/// assert_eq!(config.joints.len(), 1);
/// let error = jointlimits_io::parse_fit_config("[[joints]]\nshape = \"cube\"\n", "fit.toml");
/// assert!(error.unwrap_err().to_string().starts_with("fit.toml:2:9: unknown shape \"cube\""));
/// ```
pub fn parse_fit_config(text: &str, name: &str) -> Result<FitConfig, FitConfigError> {
    let fail = |place, message: String| FitConfigError {
        name: name.to_string(),
        place,
        message,
    };
    // A byte-order mark some editors write is not part of either format.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let config: FitConfig = if name.to_ascii_lowercase().ends_with(".toml") {
        let toml_error = |e: toml::de::Error| {
            let place = e.span().map(|span| line_and_column(text, span.start));
            fail(place, e.message().trim_end().to_string())
        };
        let value: toml::Value = toml::from_str(text).map_err(toml_error)?;
        let as_json = serde_json::to_value(&value).map_err(|e| fail(None, e.to_string()))?;
        refuse_positional(&as_json).map_err(|m| fail(None, m))?;
        toml::from_str(text).map_err(toml_error)?
    } else {
        let json_error = |e: serde_json::Error| {
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or("").to_string();
            fail(Some((e.line(), e.column())), message)
        };
        let value: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
        refuse_positional(&value).map_err(|m| fail(None, m))?;
        serde_json::from_str(text).map_err(json_error)?
    };
    config.validate().map_err(|e| fail(None, e.to_string()))?;
    Ok(config)
}

/// Refuses a list where the configuration or one of its rules should be a table of named
/// fields: the readers would otherwise take the list's items as the fields in their order of
/// declaration, silently (`[["*Shin", "hinge"]]` read as a rule matching `*Shin`).
fn refuse_positional(config: &serde_json::Value) -> Result<(), String> {
    const RULE: &str = "a rule is a table of named fields (`match`, `shape`, …), not a list";
    if config.is_array() {
        return Err("the configuration is a table (`defaults` and `joints`), not a list".into());
    }
    if config
        .get("defaults")
        .is_some_and(serde_json::Value::is_array)
    {
        return Err(format!("defaults: {RULE}"));
    }
    let rules = config.get("joints").and_then(serde_json::Value::as_array);
    match rules
        .into_iter()
        .flatten()
        .position(serde_json::Value::is_array)
    {
        Some(index) => Err(format!("joints[{index}]: {RULE}")),
        None => Ok(()),
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Reads and checks a fit configuration file.
pub fn read_fit_config(path: &Path) -> Result<FitConfig, FitConfigError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| FitConfigError {
        name: name.clone(),
        place: None,
        message: e.to_string(),
    })?;
    parse_fit_config(&text, &name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_standing_for_tables_are_refused_by_name() {
        for (text, name, said) in [
            (
                "[{\"shape\": \"box\"}, []]",
                "a.json",
                "a.json: the configuration is a table",
            ),
            (
                "{\"defaults\": [\"*\", \"box\"]}",
                "a.json",
                "a.json: defaults: a rule",
            ),
            (
                "{\"joints\": [{\"match\": \"l*\"}, [\"*Shin\", \"hinge\"]]}",
                "a.json",
                "a.json: joints[1]: a rule is a table",
            ),
            (
                "joints = [[\"*Shin\", \"hinge\"]]\n",
                "a.toml",
                "a.toml: joints[0]: a rule",
            ),
        ] {
            let error = parse_fit_config(text, name).unwrap_err().to_string();
            assert!(error.starts_with(said), "{text}: {error}");
        }
    }

    #[test]
    fn json_and_toml_read_alike_and_errors_say_where() {
        let toml = "[defaults]\nshape = \"box\"\naccept = 0.99\n\n[[joints]]\nmatch = \"l*\"\nexclude = true\n";
        let json = r#"{"defaults": {"shape": "box", "accept": 0.99}, "joints": [{"match": "l*", "exclude": true}]}"#;
        assert_eq!(
            parse_fit_config(toml, "a.toml").unwrap(),
            parse_fit_config(json, "a.json").unwrap()
        );
        // Upper-case extensions and a byte-order mark read the same.
        assert_eq!(
            parse_fit_config(&format!("\u{feff}{toml}"), "A.TOML").unwrap(),
            parse_fit_config(toml, "a.toml").unwrap(),
        );
        assert_eq!(
            parse_fit_config(&format!("\u{feff}{json}"), "a.json").unwrap(),
            parse_fit_config(json, "a.json").unwrap(),
        );
        let error = parse_fit_config("[defaults]\npadding = 400\n", "b.toml").unwrap_err();
        assert_eq!(error.place, None);
        assert!(
            error
                .to_string()
                .starts_with("b.toml: defaults: padding: 6.98131700798 rad (400°)"),
            "{error}"
        );
        let error = parse_fit_config("{\"joints\": [{\"match\": 3}]}", "c.json").unwrap_err();
        assert_eq!(error.place, Some((1, 23)));
        let error = parse_fit_config("[defaults]\nshaep = \"box\"\n", "d.toml").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("d.toml:2:1: unknown field `shaep`"),
            "{error}"
        );
    }
}
