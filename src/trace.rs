//! Diagnostic lines on standard error (`--trace` levels, pattern-database and batch progress):
//! a closed or full standard error never panics and never changes a result, and in a batch each
//! line carries the id of the puzzle it is about.

use std::cell::RefCell;
use std::fmt;
use std::io::Write;

thread_local! {
    /// The label of the work this thread is doing (a batch puzzle's id), if any.
    static LABEL: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f` with `label` prefixed to every [`line()`] this thread writes meanwhile (nested calls
/// stack: rayon may run another puzzle on this thread while `f` waits for its own work).
pub fn with_label<R>(label: &str, f: impl FnOnce() -> R) -> R {
    /// Puts the previous label back, also when `f` panics.
    struct Restore(Option<String>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LABEL.with(|l| *l.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(LABEL.with(|l| l.borrow_mut().replace(label.to_string())));
    f()
}

/// Writes one line to standard error, prefixed with the current label, its control characters
/// escaped ([`printable`]); a failed write is ignored (there is nowhere left to report it).
pub fn line(args: fmt::Arguments) {
    let text = LABEL.with(|l| match &*l.borrow() {
        Some(label) => format!("{label}: {args}"),
        None => args.to_string(),
    });
    let _ = std::io::stderr().lock().write_all(format!("{}\n", printable(&text)).as_bytes());
}

/// `text` with every control character but newline and tab written as an escape (`\u{1b}`), so
/// that a message quoting a user's bytes (ESC, NUL, a carriage return) cannot move a terminal's
/// cursor, change its colours or hide what precedes it.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.contains(escaped) {
        return text.into();
    }
    text.chars().map(|c| if escaped(c) { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// `eprintln!` through [`line()`]: labelled, and silent when standard error cannot be written.
#[macro_export]
macro_rules! traceln {
    ($($arg:tt)*) => {
        $crate::trace::line(format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_but_newlines_and_tabs() {
        assert_eq!(printable("A:R\u{1b}[31mX\0\r\tend\n"), "A:R\\u{1b}[31mX\\u{0}\\r\tend\n");
        assert!(matches!(printable("plain é"), std::borrow::Cow::Borrowed("plain é")));
    }

    #[test]
    fn labels_nest_and_are_restored() {
        let current = || LABEL.with(|l| l.borrow().clone());
        with_label("a", || {
            assert_eq!(current().as_deref(), Some("a"));
            with_label("b", || assert_eq!(current().as_deref(), Some("b")));
            assert_eq!(current().as_deref(), Some("a"));
            let _ = std::panic::catch_unwind(|| with_label("c", || panic!("inside")));
            assert_eq!(current().as_deref(), Some("a"));
        });
        assert_eq!(current(), None);
    }
}
