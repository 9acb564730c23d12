//! Counted nouns in messages: `1 move`, `2 moves`, `0 moves`.

use std::fmt;

/// `count` and `noun`, the noun plural (an `s` added) unless the count is one: `Count(1, "puzzle")`
/// displays as `1 puzzle`, `Count(3, "puzzle")` as `3 puzzles`.
pub struct Count<'a, T>(pub T, pub &'a str);

impl<T: fmt::Display + PartialEq + From<u8>> fmt::Display for Count<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Count(count, noun) = self;
        let plural = if *count == T::from(1) { "" } else { "s" };
        write!(f, "{count} {noun}{plural}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(Count(1usize, "move").to_string(), "1 move");
        assert_eq!(Count(0u64, "puzzle").to_string(), "0 puzzles");
        assert_eq!(Count(2_008usize, "puzzle").to_string(), "2008 puzzles");
    }
}
