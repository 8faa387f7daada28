//! The motion values as they were written in the file that was read, so that a value nobody
//! changed is written back with the very same text (`0.000000` stays `0.000000`, not `0`): graph
//! editors, diffs and version control then see only what a command really changed.

/// Every motion value's token from the source text, with the value it was read as.
#[derive(Debug, Default)]
pub(super) struct SourceValues {
    /// The tokens, one after another without separators.
    text: String,
    /// Where each token ends in `text`.
    ends: Vec<u32>,
    /// The value each token was read as.
    values: Vec<f32>,
}

impl SourceValues {
    /// Records the next value's token; `false` once the tokens no longer fit the index type, in
    /// which case the caller drops the record (the writer then prints shortest forms).
    pub(super) fn push(&mut self, token: &str, value: f32) -> bool {
        self.text.push_str(token);
        let Ok(end) = u32::try_from(self.text.len()) else {
            return false;
        };
        self.ends.push(end);
        self.values.push(value);
        true
    }

    /// The number of values recorded.
    pub(super) fn len(&self) -> usize {
        self.values.len()
    }

    /// The source token of value `index`, when `value` is still exactly what it was read as.
    pub(super) fn token_if_unchanged(&self, index: usize, value: f32) -> Option<&str> {
        let original = *self.values.get(index)?;
        if original.to_bits() != value.to_bits() {
            return None;
        }
        let start = index.checked_sub(1).map_or(0, |i| self.ends[i] as usize);
        Some(&self.text[start..self.ends[index] as usize])
    }
}
