//! Suppressions: `# ecs-gpu:ignore GPU303 <reason>` on the line directly above a block silences
//! that rule for the whole block; above any other line, for findings on that line. Several IDs may
//! be given, separated by commas (`GPU303,GPU304`). A suppression without a reason still works and
//! is reported (GPU001); one that silences nothing is reported as info (GPU002).

use ecs_gpu_model::{FileId, Loc, Model};

use crate::Finding;

/// The marker that starts a suppression comment.
pub const MARKER: &str = "ecs-gpu:ignore";

/// One suppression comment.
#[derive(Debug, Clone)]
pub struct Suppression {
    pub file: FileId,
    /// The comment.
    pub loc: Loc,
    pub codes: Vec<String>,
    pub reason: Option<String>,
    /// The 1-based line it applies to (the next line that is not blank or a comment).
    pub target_line: u32,
}

/// Every suppression comment of every loaded file.
pub fn collect(model: &Model) -> Vec<Suppression> {
    let mut out = Vec::new();
    for (i, file) in model.files.iter().enumerate() {
        let id = FileId(u32::try_from(i).unwrap_or(u32::MAX));
        for fc in &file.comments {
            let c = &fc.comment;
            let Some(rest) = c.text.trim().strip_prefix(MARKER) else {
                continue;
            };
            // `ecs-gpu:ignored` is not ours.
            if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
                continue;
            }
            let rest = rest.trim();
            let (codes, reason) = match rest.split_once(char::is_whitespace) {
                Some((codes, reason)) => (codes, Some(reason.trim())),
                None => (rest, None),
            };
            let codes: Vec<String> = codes
                .split(',')
                .map(|c| c.trim().to_ascii_uppercase())
                .filter(|c| !c.is_empty())
                .collect();
            out.push(Suppression {
                file: id,
                loc: Loc {
                    file: id,
                    span: c.span,
                },
                codes,
                reason: reason.filter(|r| !r.is_empty()).map(str::to_string),
                target_line: fc.next_code_line,
            });
        }
    }
    out
}

impl Suppression {
    pub fn covers(&self, model: &Model, f: &Finding) -> bool {
        if !self.codes.iter().any(|c| c == f.rule.id) {
            return false;
        }
        let file = model.file(self.file);
        let at_line = |loc: &Loc| {
            loc.file == self.file && file.line_col(loc.span.start).0 == self.target_line
        };
        // Above the offending line.
        if f.loc.as_ref().is_some_and(at_line) {
            return true;
        }
        // Above the block the finding is about: the whole block.
        if let Some(block) = &f.block {
            if at_line(block) {
                return true;
            }
        }
        // Above any block that contains the finding.
        let Some(loc) = f.loc else { return false };
        loc.file == self.file
            && model
                .resources_in_file(loc.file)
                .map(crate::rule::block_extent)
                .any(|b| at_line(&b) && b.contains(&loc))
            || nested_block_covers(model, self, loc)
    }
}

fn nested_block_covers(model: &Model, s: &Suppression, loc: Loc) -> bool {
    fn visit(model: &Model, s: &Suppression, loc: Loc, body: &ecs_gpu_model::Body) -> bool {
        body.blocks.iter().any(|b| {
            let extent = match (b.loc, b.body.loc) {
                (Some(a), Some(c)) if a.file == c.file => Some(Loc {
                    file: a.file,
                    span: a.span.to(c.span),
                }),
                (Some(a), _) => Some(a),
                _ => None,
            };
            let hit = extent.is_some_and(|e| {
                e.file == s.file
                    && model.file(s.file).line_col(e.span.start).0 == s.target_line
                    && e.contains(&loc)
            });
            hit || visit(model, s, loc, &b.body)
        })
    }
    model
        .resources_in_file(loc.file)
        .any(|r| visit(model, s, loc, &r.body))
}
