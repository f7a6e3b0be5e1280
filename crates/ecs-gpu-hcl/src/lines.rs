//! [`LineIndex`]: lines and columns of byte offsets, without the text.

use crate::{count_newlines, FloorCharBoundary};

/// Where the lines of a text start, what [`line_col`](crate::line_col) needs from the text, in a
/// fraction of its size: a checker that keeps every file's positions, not every file's text, keeps
/// about a sixth of the bytes. Gives the same lines and columns as [`line_col`](crate::line_col).
///
/// ```
/// use ecs_gpu_hcl::{line_col, LineIndex};
///
/// let text = "a = 1\n# é\n  b = \"ü\"\n";
/// let lines = LineIndex::new(text);
/// for offset in 0..=text.len() as u32 + 2 {
///     assert_eq!(lines.line_col(offset), line_col(text, offset));
/// }
/// assert!(lines.is_blank_or_comment(2));
/// assert!(!lines.is_blank_or_comment(3));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineIndex {
    /// Each line's start (a byte offset), with [`SKIPPABLE`] set when the line is blank or
    /// starts with a comment (`#` or `//`). After a final line break, the empty rest is a line
    /// here, not in [`str::lines`].
    lines: Box<[u32]>,
    /// The text's length in bytes.
    len: u32,
    /// The 0-based lines that hold a character beyond ASCII, with their text (without the line
    /// break): a column counts characters there, not bytes. Ascending.
    wide: Box<[(u32, Box<str>)]>,
}

/// The bit of [`LineIndex::lines`] that marks a blank or comment line; offsets take the others
/// (a text past 2 GiB has its later positions saturate).
const SKIPPABLE: u32 = 1 << 31;

impl LineIndex {
    /// The index of a text.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut lines = Vec::with_capacity(count_newlines(bytes) + 1);
        let mut wide = Vec::new();
        let all_ascii = text.is_ascii();
        let mut begin = 0usize;
        let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
        for end in ends {
            // `end` is a line break or the end: a character boundary.
            let skip = if all_ascii || text[begin..end].is_ascii() {
                ascii_blank_or_comment(&bytes[begin..end])
            } else {
                let content = &text[begin..end];
                wide.push((to_u32(lines.len()), content.into()));
                let t = content.trim();
                t.is_empty() || t.starts_with('#') || t.starts_with("//")
            };
            let start = u32::try_from(begin).map_or(SKIPPABLE - 1, |b| b.min(SKIPPABLE - 1));
            lines.push(start | if skip { SKIPPABLE } else { 0 });
            begin = end + 1;
        }
        LineIndex {
            lines: lines.into_boxed_slice(),
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
        // The first line starts at 0, at or before any offset.
        let line = self
            .lines
            .partition_point(|&l| l & !SKIPPABLE <= offset)
            .saturating_sub(1);
        let begin = self.lines.get(line).map_or(0, |&l| l & !SKIPPABLE);
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

    /// Whether the 1-based line is blank or starts with a comment (`#` or `//`), as a text's
    /// [`str::lines`] would show it; `None` past the last line.
    pub fn blank_or_comment(&self, line: u32) -> Option<bool> {
        let i = line.checked_sub(1)? as usize;
        let &entry = self.lines.get(i)?;
        // The empty rest after a final line break is no line for `str::lines`.
        let last_is_rest = i + 1 == self.lines.len() && entry & !SKIPPABLE == self.len;
        (!last_is_rest).then_some(entry & SKIPPABLE != 0)
    }

    /// [`blank_or_comment`](Self::blank_or_comment), false past the last line.
    pub fn is_blank_or_comment(&self, line: u32) -> bool {
        self.blank_or_comment(line) == Some(true)
    }

    fn wide_line(&self, line: usize) -> Option<&str> {
        let line = u32::try_from(line).ok()?;
        let i = self.wide.binary_search_by_key(&line, |(l, _)| *l).ok()?;
        Some(&self.wide[i].1)
    }
}

/// `str::trim` then the comment test, on an ASCII line: `char::is_whitespace` in ASCII is
/// space, tab, `\n`, vertical tab, form feed and `\r`.
fn ascii_blank_or_comment(line: &[u8]) -> bool {
    for (i, &b) in line.iter().enumerate() {
        match b {
            b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r' => {}
            b'#' => return true,
            b'/' => return line.get(i + 1) == Some(&b'/'),
            _ => return false,
        }
    }
    true
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
