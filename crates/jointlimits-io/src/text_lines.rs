//! Lines of text as every platform has ended them: `\n` (Unix), `\r\n` (Windows) and a bare
//! `\r` (classic Mac OS), so a file reads the same whichever wrote it.

/// The first line of `text` without its terminator, and what follows the terminator.
///
/// ```
/// use jointlimits_io::text_lines::split_line;
///
/// assert_eq!(split_line("a\r\nb"), ("a", "b"));
/// assert_eq!(split_line("a\rb\n"), ("a", "b\n"));
/// assert_eq!(split_line("a"), ("a", ""));
/// ```
pub fn split_line(text: &str) -> (&str, &str) {
    match text.find(['\r', '\n']) {
        Some(end) => {
            let terminator = if text[end..].starts_with("\r\n") {
                2
            } else {
                1
            };
            (&text[..end], &text[end + terminator..])
        }
        None => (text, ""),
    }
}

/// The lines of `text` without their terminators (`\n`, `\r\n` or a bare `\r`); a last line
/// with no terminator counts, and nothing after a final terminator does, as with
/// [`str::lines`].
///
/// ```
/// use jointlimits_io::text_lines::lines;
///
/// let endings = ["a\nb\n", "a\r\nb\r\n", "a\rb\r", "a\rb"];
/// for text in endings {
///     assert_eq!(lines(text).collect::<Vec<_>>(), ["a", "b"]);
/// }
/// ```
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, after) = split_line(rest);
        rest = after;
        Some(line)
    })
}
