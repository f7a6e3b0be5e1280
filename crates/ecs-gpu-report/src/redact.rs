//! The last guard against printing a secret: texts that must never be printed, replaced in every
//! text of a diagnostic (message, help, labels, resource and module addresses) by what stands for
//! them (`(sensitive)`, `(ephemeral)`), before any renderer sees it.

use aho_corasick::{AhoCorasick, MatchKind};

use crate::Diagnostic;

/// Texts shorter than this are replaced only where a message quotes a whole value (in backticks
/// or double quotes): a GPU count of `1` must not blank every `1` of a message.
const QUOTED_ONLY_BELOW: usize = 4;

/// Texts that must never be printed, each with what is printed in its place. Every text of a
/// diagnostic is searched for all of them at once, in one pass, however many there are.
///
/// ```
/// use ecs_gpu_report::Redactions;
///
/// let r = Redactions::new([("S3CRET-TOKEN".to_string(), "(sensitive)"), ("4".to_string(), "(sensitive)")]);
/// assert_eq!(r.redact("value `S3CRET-TOKEN` of 4 GPUs: `4`"), "value `(sensitive)` of 4 GPUs: `(sensitive)`");
/// ```
#[derive(Debug, Default)]
pub struct Redactions {
    /// `None` when there is nothing to hide.
    searcher: Option<AhoCorasick>,
    /// What each pattern is replaced with, by pattern index.
    replacements: Vec<String>,
    /// Texts hidden only in the diagnostics of one resource, by its address and its module's
    /// (see [`Redactions::add_for_resource`]).
    scoped: std::collections::HashMap<(String, Option<String>), Redactions>,
}

impl Redactions {
    /// The texts to hide, each with its replacement (a text given twice keeps the replacement
    /// given first). Empty texts are ignored.
    pub fn new(texts: impl IntoIterator<Item = (String, &'static str)>) -> Redactions {
        let mut patterns: Vec<String> = Vec::new();
        let mut replacements = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (text, label) in texts {
            if text.is_empty() || !seen.insert(text.clone()) {
                continue;
            }
            if text.chars().count() >= QUOTED_ONLY_BELOW {
                patterns.push(text);
                replacements.push(label.to_string());
            } else {
                for quote in ["`", "\""] {
                    patterns.push(format!("{quote}{text}{quote}"));
                    replacements.push(format!("{quote}{label}{quote}"));
                }
            }
        }
        if patterns.is_empty() {
            return Redactions::default();
        }
        // The longest text wins where several start at one place (a secret that extends another).
        let searcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .ok();
        Redactions {
            searcher,
            replacements,
            scoped: Default::default(),
        }
    }

    /// Texts hidden only in the diagnostics of the resource at `resource` (its address in its
    /// module) in the module at `module` (`None`: a root module), besides every text hidden
    /// everywhere.
    pub fn add_for_resource(
        &mut self,
        resource: String,
        module: Option<String>,
        texts: impl IntoIterator<Item = (String, &'static str)>,
    ) {
        let r = Redactions::new(texts);
        if !r.is_empty() {
            self.scoped.insert((resource, module), r);
        }
    }

    /// Whether there is nothing to hide.
    pub fn is_empty(&self) -> bool {
        self.searcher.is_none() && self.scoped.is_empty()
    }

    /// `text` with every hidden text replaced.
    pub fn redact(&self, text: &str) -> String {
        match &self.searcher {
            Some(s) => s.replace_all(text, &self.replacements),
            None => text.to_string(),
        }
    }

    fn redact_in_place(&self, text: &mut String) {
        if let Some(s) = &self.searcher {
            if s.is_match(text.as_str()) {
                *text = s.replace_all(text, &self.replacements);
            }
        }
    }

    /// Hides what `d` would print: its message, help, labels, and the resource and module
    /// addresses (an instance key may come from a value).
    pub fn apply(&self, d: &mut Diagnostic) {
        if self.is_empty() {
            return;
        }
        if let Some(resource) = d.resource.clone() {
            let modules: Vec<Option<String>> = if d.instances.is_empty() {
                vec![d.module.clone()]
            } else {
                d.instances.iter().cloned().map(Some).collect()
            };
            for module in modules {
                if let Some(r) = self.scoped.get(&(resource.clone(), module)) {
                    r.apply_here(d);
                }
            }
        }
        self.apply_here(d);
    }

    /// [`Redactions::apply`], with the texts hidden everywhere only.
    fn apply_here(&self, d: &mut Diagnostic) {
        if self.searcher.is_none() {
            return;
        }
        self.redact_in_place(&mut d.message);
        for text in d
            .help
            .iter_mut()
            .chain(d.resource.iter_mut())
            .chain(d.module.iter_mut())
            .chain(d.instances.iter_mut())
        {
            self.redact_in_place(text);
        }
        for l in &mut d.labels {
            self.redact_in_place(&mut l.message);
        }
    }
}
