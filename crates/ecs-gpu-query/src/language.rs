//! The language's vocabulary, read from the catalog's query language facts (source keys ECS-2023,
//! AGENT): subjects, operator symbols and words, boolean symbols and words.

use std::sync::OnceLock;

use ecs_gpu_catalog::catalog;

use crate::ast::{Operator, Subject};

/// Word forms of the ordering operators. The ECS guide's operator table lists them
/// (`greater_than`, `greater_than_equal`, `less_than`, `less_than_equal`; source key ECS-2023,
/// `cluster-query-language.md`), but the catalog's `operator_words` does not (yet): without them a
/// valid expression would be reported as a syntax error. A test fails if the catalog ever maps one of
/// them to a different operator.
pub const ORDERING_OPERATOR_WORDS: [(&str, &str); 4] = [
    ("greater_than", ">"),
    ("greater_than_equal", ">="),
    ("less_than", "<"),
    ("less_than_equal", "<="),
];

/// The attribute names this crate gives meaning to in [`crate::matching_instance_types`]. Each is
/// one of the catalog's `builtin_attributes` (a test checks it).
pub const INSTANCE_TYPE_ATTRIBUTE: &str = "ecs.instance-type";
pub const OS_TYPE_ATTRIBUTE: &str = "ecs.os-type";
pub const CPU_ARCHITECTURE_ATTRIBUTE: &str = "ecs.cpu-architecture";

#[derive(Debug)]
pub(crate) struct Language {
    /// As the catalog writes them (`attribute:<name>`, `task:group`), longest first.
    pub subjects: Vec<String>,
    /// Operator symbols, longest first.
    pub operator_symbols: Vec<(&'static str, Operator)>,
    /// Word forms (`equals`, `not_in`, and the operators whose symbol is a word: `exists`, `in`).
    pub operator_words: Vec<(String, Operator)>,
    pub boolean_symbols: Vec<String>,
    /// `and` → `&&`.
    pub boolean_words: Vec<(String, String)>,
}

impl Language {
    pub fn boolean_symbol(&self, s: &str) -> bool {
        self.boolean_symbols.iter().any(|b| b == s)
    }
}

pub(crate) fn language() -> &'static Language {
    static LANG: OnceLock<Language> = OnceLock::new();
    LANG.get_or_init(|| {
        let facts = &catalog().query_language;
        let mut subjects = facts.subjects.clone();
        subjects.sort_by_key(|s| std::cmp::Reverse(s.len()));

        let mut operator_symbols: Vec<(&'static str, Operator)> = facts
            .operators
            .iter()
            .filter_map(|s| Operator::from_symbol(s))
            .filter(|o| !o.symbol().starts_with(|c: char| c.is_ascii_alphabetic()))
            .map(|o| (o.symbol(), o))
            .collect();
        operator_symbols.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));

        let mut operator_words: Vec<(String, Operator)> = facts
            .operators
            .iter()
            .filter_map(|s| Operator::from_symbol(s))
            .filter(|o| o.symbol().starts_with(|c: char| c.is_ascii_alphabetic()))
            .map(|o| (o.symbol().to_string(), o))
            .collect();
        for (word, sym) in &facts.operator_words {
            if let Some(op) = Operator::from_symbol(sym) {
                operator_words.push((word.clone(), op));
            }
        }
        for (word, sym) in ORDERING_OPERATOR_WORDS {
            if !operator_words.iter().any(|(w, _)| w == word) {
                if let Some(op) = Operator::from_symbol(sym) {
                    operator_words.push((word.to_string(), op));
                }
            }
        }
        // Longest first: `not_equals` before a hypothetical `not`.
        operator_words.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));

        Language {
            subjects,
            operator_symbols,
            operator_words,
            boolean_symbols: facts.boolean.clone(),
            boolean_words: facts
                .boolean_words
                .iter()
                .map(|(w, s)| (w.clone(), s.clone()))
                .collect(),
        }
    })
}

/// Characters of a custom attribute name (source key ECS-2023: letters, digits, `-`, `_`, `/`, `\`, `.`).
pub(crate) fn is_attribute_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/' | '\\' | '.')
}

/// The subject for a `prefix<name>` form (`attribute:` is the only one the catalog lists).
pub(crate) fn subject_from_prefixed(prefix: &str, name: String) -> Subject {
    if prefix.eq_ignore_ascii_case("attribute:") {
        Subject::Attribute(name)
    } else {
        Subject::Other(format!("{prefix}{name}"))
    }
}

/// The subject for a fixed name, as the catalog spells it.
pub(crate) fn subject_from_name(name: &str) -> Subject {
    match name {
        "agentConnected" => Subject::AgentConnected,
        "agentVersion" => Subject::AgentVersion,
        "ec2InstanceId" => Subject::Ec2InstanceId,
        "registeredAt" => Subject::RegisteredAt,
        "runningTasksCount" => Subject::RunningTasksCount,
        "task:group" => Subject::TaskGroup,
        other => Subject::Other(other.to_string()),
    }
}
