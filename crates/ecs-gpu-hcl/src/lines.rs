//! [`LineIndex`]: lines and columns of byte offsets, without the text.

use crate::{count_newlines, FloorCharBoundary};

/// Where the lines of a text start, what [`line_col`](crate::line_col) needs from the text, in a
/// fraction of its size: a checker that keeps every file's positions, not every file's text, keeps
/// about a sixth of the bytes. Gives the same lines and columns as [`line_col`](crate::line_col).
///
/// ```
/// use ecs_gpu_hcl::{line_col, LineIndex};
///
/// let text = "# a comment\n\n# é\n  b = \"ü\"\n";
/// let lines = LineIndex::new(text);
/// for offset in 0..=text.len() as u32 + 2 {
///     assert_eq!(lines.line_col(offset), line_col(text, offset));
/// }
/// assert_eq!(lines.next_code_line(text, 1), 4);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineIndex {
    /// The byte offset where each line after the first starts (after each `\n`; offsets past
    /// 4 GiB saturate).
    starts: Box<[u32]>,
    /// The text's length in bytes.
    len: u32,
    /// The 0-based lines that hold a character beyond ASCII, with their text (without the line
    /// break): a column counts characters there, not bytes. Ascending.
    wide: Box<[(u32, Box<str>)]>,
}

impl LineIndex {
    /// The index of a text.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut starts = Vec::with_capacity(count_newlines(bytes));
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| to_u32(i + 1)));
        let mut wide = Vec::new();
        if !text.is_ascii() {
            let mut begin = 0usize;
            let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
            for (line, end) in ends.enumerate() {
                // `end` is a line break or the end: a character boundary.
                let content = &text[begin..end];
                if !content.is_ascii() {
                    wide.push((to_u32(line), content.into()));
                }
                begin = end + 1;
            }
        }
        LineIndex {
            starts: starts.into_boxed_slice(),
            len: to_u32(bytes.len()),
            wide: wide.into_boxed_slice(),
        }
    }

    /// The text's length in bytes.
    pub fn text_len(&self) -> usize {
        self.len as usize
    }

    /// 1-based line and column (in characters) of a byte offset, as
    /// [`line_col`](crate::line_col) gives them.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = offset.min(self.len);
        // Lines that start at or before the offset, after the first.
        let line = self.starts.partition_point(|&s| s <= offset);
        let begin = match line {
            0 => 0,
            _ => self.starts[line - 1],
        };
        let in_line = offset.saturating_sub(begin) as usize;
        let col = match self.wide_line(line) {
            Some(content) => {
                let within = content.floor_char_boundary_compat(in_line.min(content.len()));
                content[..within].chars().count()
            }
            None => in_line,
        };
        (to_u32(line + 1), u32::try_from(col + 1).unwrap_or(u32::MAX))
    }

    /// [`line_col`](Self::line_col) of both ends of a span (`end` at least `start`).
    pub fn line_col_range(&self, start: u32, end: u32) -> ((u32, u32), (u32, u32)) {
        (self.line_col(start), self.line_col(end.max(start)))
    }

    /// The first 1-based line after `line` of `text` (the text indexed) that is neither blank nor
    /// starts with a comment (`#` or `//`), as its [`str::lines`] show it: where a comment on
    /// `line` applies. Past the last line when there is none.
    pub fn next_code_line(&self, text: &str, line: u32) -> u32 {
        self.code_line_from(text, line.saturating_add(1), None)
    }

    /// [`next_code_line`](Self::next_code_line) of each of `lines`, in order: each line of the
    /// text is looked at once, however many comments follow each other (a run of a hundred
    /// thousand comment lines would otherwise be read again for each of them).
    ///
    /// ```
    /// use ecs_gpu_hcl::LineIndex;
    ///
    /// let text = "# a\n# b\n\n# c\nx = 1\n# d\n";
    /// let lines = LineIndex::new(text);
    /// assert_eq!(lines.next_code_lines(text, &[1, 2, 4, 6]), vec![5, 5, 5, 7]);
    /// ```
    pub fn next_code_lines(&self, text: &str, lines: &[u32]) -> Vec<u32> {
        let mut out = vec![0; lines.len()];
        // From the last line up: a scan that reaches the line where the previous scan started
        // has the same answer.
        let mut order: Vec<usize> = (0..lines.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(lines[i]));
        let mut known: Option<(u32, u32)> = None;
        for i in order {
            let from = lines[i].saturating_add(1);
            let answer = self.code_line_from(text, from, known);
            known = Some((from, answer));
            out[i] = answer;
        }
        out
    }

    /// The first line from `from` on that is neither blank nor a comment; `known` is a line where
    /// that scan is known to end, and how.
    fn code_line_from(&self, text: &str, from: u32, known: Option<(u32, u32)>) -> u32 {
        let mut next = from;
        loop {
            if let Some((start, answer)) = known {
                if next == start {
                    return answer;
                }
            }
            let Some(content) = self.line_text(text, next) else {
                return next;
            };
            let t = content.trim();
            if !(t.is_empty() || t.starts_with('#') || t.starts_with("//")) {
                return next;
            }
            next += 1;
        }
    }

    /// The text of a 1-based line, without its line break (`None` past the last line of
    /// [`str::lines`]: the empty rest after a final line break is none).
    fn line_text<'t>(&self, text: &'t str, line: u32) -> Option<&'t str> {
        let i = line.checked_sub(1)? as usize;
        let begin = match i {
            0 => 0,
            _ => *self.starts.get(i - 1)? as usize,
        };
        let end = self
            .starts
            .get(i)
            .map_or(text.len(), |&next| (next as usize).saturating_sub(1));
        if begin >= text.len() && self.starts.len() == i {
            return None;
        }
        text.get(begin..end)
    }

    fn wide_line(&self, line: usize) -> Option<&str> {
        let line = u32::try_from(line).ok()?;
        let i = self.wide.binary_search_by_key(&line, |(l, _)| *l).ok()?;
        Some(&self.wide[i].1)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
