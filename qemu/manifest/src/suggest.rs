//! "Did you mean ...?": the closest allowed word to a misspelt one.
//!
//! Used for unknown keys, for unknown mode, outcome and restart names, and
//! for references to tasks and objects that do not exist. A candidate
//! is offered when it is close by edit distance (with transpositions, so
//! `prioirty` finds `priority`) or when one word is a prefix of the other
//! (`stack` finds `stack_size`). Otherwise the message lists every allowed
//! word, so the user always learns what to write.

use std::fmt;

/// Below this similarity (0..=1) a candidate is not offered.
const MIN_SIMILARITY: f64 = 0.6;
/// Shortest word for which a prefix match counts.
const MIN_PREFIX_LEN: usize = 3;

/// What to tell the user after "unknown `x`".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// The closest allowed word, if any is close enough.
    pub best: Option<String>,
    /// Every allowed word, in schema (or document) order.
    pub allowed: Vec<String>,
    /// Whether the words are keys (shown as `key`) or string values (shown
    /// as "value").
    pub words: Words,
}

/// How the allowed words are written in TOML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    Keys,
    Values,
}

impl Suggestion {
    /// The suggestion for `given` among `allowed`.
    pub fn new<S: AsRef<str>>(given: &str, allowed: &[S], words: Words) -> Self {
        let allowed: Vec<String> = allowed
            .iter()
            .map(|word| word.as_ref().to_owned())
            .collect();
        let best = allowed
            .iter()
            .map(|candidate| (similarity(given, candidate), candidate))
            .filter(|(score, _)| *score >= MIN_SIMILARITY)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, candidate)| candidate.clone());
        Suggestion {
            best,
            allowed,
            words,
        }
    }

    fn quote(&self, word: &str) -> String {
        match self.words {
            Words::Keys => format!("`{word}`"),
            Words::Values => format!("{word:?}"),
        }
    }
}

/// 1.0 for a prefix match, otherwise the normalised edit similarity.
fn similarity(given: &str, candidate: &str) -> f64 {
    let prefix = given.len() >= MIN_PREFIX_LEN
        && (candidate.starts_with(given) || given.starts_with(candidate));
    if prefix {
        1.0
    } else {
        strsim::normalized_damerau_levenshtein(given, candidate)
    }
}

impl fmt::Display for Suggestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(best) = &self.best {
            return write!(f, "did you mean {}?", self.quote(best));
        }
        let list: Vec<String> = self.allowed.iter().map(|word| self.quote(word)).collect();
        match self.words {
            Words::Keys if list.is_empty() => f.write_str("this table takes no keys"),
            Words::Keys => write!(f, "the keys allowed there are {}", list.join(", ")),
            Words::Values => write!(f, "use one of {}", list.join(", ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[&str] = &[
        "crate",
        "priority",
        "stack_size",
        "heap_size",
        "start_order",
    ];

    fn best(given: &str) -> Option<String> {
        Suggestion::new(given, KEYS, Words::Keys).best
    }

    #[test]
    fn finds_typos_transpositions_and_prefixes() {
        assert_eq!(best("prioirty").as_deref(), Some("priority"));
        assert_eq!(best("crates").as_deref(), Some("crate"));
        assert_eq!(best("stack").as_deref(), Some("stack_size"));
        assert_eq!(best("crate_name").as_deref(), Some("crate"));
        assert_eq!(best("start").as_deref(), Some("start_order"));
    }

    #[test]
    fn offers_nothing_for_unrelated_words() {
        assert_eq!(best("colour"), None);
        assert_eq!(best("st"), None);
    }
}
