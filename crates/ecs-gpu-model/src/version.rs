//! Module version constraints, checked the way Terraform checks the copy `terraform init`
//! installed against its call's `version`.
//!
//! `terraform plan` refuses a registry module whose installed version no longer meets the call's
//! `version` ("Module version requirements have changed", Terraform's
//! `internal/configs/configload/loader_load.go`), so the checker does not follow that copy
//! either: it is not the code the configuration asks for. Terraform reads module constraints with
//! `hashicorp/go-version` (`internal/configs/version_constraint.go`), and this is that library's
//! syntax and meaning (`constraint.go`, `version.go`):
//!
//! - a constraint is a comma-separated list, all of which must hold, of an operator (`=`, `!=`,
//!   `>`, `>=`, `<`, `<=`, `~>`; none means `=`) and a version, with any spaces around them;
//! - a version is `v`, optional, then numeric segments (missing ones up to three are 0), then an
//!   optional pre-release (`-beta.1`, or `beta1` with no dash) and build metadata (`+abc`);
//! - `~> 1.2` allows 1.2 and every later 1.x, `~> 1.2.3` allows 1.2.3 and every later 1.2.x;
//! - a pre-release version meets `>`, `>=`, `<`, `<=` and `~>` only when the constraint names a
//!   pre-release of the same segments; `~>` on a pre-release allows only pre-releases.

use std::cmp::Ordering;

/// A version, as `go-version` parses one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Version {
    /// The numeric segments, padded with zeros to three.
    segments: Vec<i64>,
    /// How many segments were written (before the padding).
    written: usize,
    /// The pre-release, empty when none.
    pre: String,
}

/// Characters of a pre-release or metadata identifier (`[0-9A-Za-z\-~]`).
fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '~'
}

/// Dot-separated identifiers, none empty.
fn dotted(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|p| !p.is_empty() && p.chars().all(ident_char))
}

impl Version {
    /// Parses a version; `None` when `go-version` would refuse it.
    pub(crate) fn parse(text: &str) -> Option<Version> {
        let text = text.strip_prefix('v').unwrap_or(text);
        let numeric_end = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len());
        // Segments are digits joined by single dots; a dot that ends them belongs to nothing.
        let mut segments = Vec::new();
        for part in text[..numeric_end].split('.') {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            segments.push(part.parse::<i64>().ok()?);
        }
        let written = segments.len();
        segments.resize(written.max(3), 0);
        let rest = &text[numeric_end..];
        let (pre, meta) = match rest.split_once('+') {
            Some((pre, meta)) => (pre, Some(meta)),
            None => (rest, None),
        };
        if meta.is_some_and(|m| !dotted(m)) {
            return None;
        }
        // `-` and an identifier starting with a digit, else `-` (optional) and one starting with
        // a letter, `-` or `~`; the dash is not part of the pre-release when it can be left out.
        let starts = |s: &str, f: fn(char) -> bool| s.chars().next().is_some_and(f);
        let letter = |c: char| c.is_ascii_alphabetic() || c == '-' || c == '~';
        let pre = if pre.is_empty() {
            ""
        } else if let Some(after) = pre
            .strip_prefix('-')
            .filter(|a| (starts(a, |c| c.is_ascii_digit()) || starts(a, letter)) && dotted(a))
        {
            after
        } else if starts(pre, letter) && dotted(pre) {
            pre
        } else {
            return None;
        };
        Some(Version {
            segments,
            written,
            pre: pre.to_string(),
        })
    }

    /// `go-version`'s `Compare`. Segments of different lengths compare as if the shorter had
    /// zeros after it; only equal segments (same length too) look at the pre-releases, a version
    /// without one being the greater.
    fn compare(&self, other: &Version) -> Ordering {
        if self.segments == other.segments {
            return match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prereleases(&self.pre, &other.pre),
            };
        }
        let n = self.segments.len().max(other.segments.len());
        let at = |s: &[i64], i: usize| s.get(i).copied().unwrap_or(0);
        (0..n)
            .map(|i| at(&self.segments, i).cmp(&at(&other.segments, i)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }

    /// `go-version`'s `prereleaseCheck`: whether the pre-releases of a version and of a
    /// constraint's version let them be compared at all.
    fn prerelease_allows(&self, constraint: &Version) -> bool {
        match (self.pre.is_empty(), constraint.pre.is_empty()) {
            (false, false) => self.segments == constraint.segments,
            (false, true) => false,
            (true, _) => true,
        }
    }
}

/// `go-version`'s `comparePrereleases`: part by part, a missing part counting as empty.
fn compare_prereleases(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let a: Vec<&str> = a.split('.').collect();
    let b: Vec<&str> = b.split('.').collect();
    (0..a.len().max(b.len()))
        .map(|i| {
            compare_part(
                a.get(i).copied().unwrap_or(""),
                b.get(i).copied().unwrap_or(""),
            )
        })
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// `go-version`'s `comparePart`: numbers before words, numbers by value, words by bytes; an
/// empty part is before a number and after a word.
fn compare_part(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (na, nb) = (a.parse::<i64>().ok(), b.parse::<i64>().ok());
    if a.is_empty() {
        return if nb.is_some() {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    if b.is_empty() {
        return if na.is_some() {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    match (na, nb) {
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) if a > b => Ordering::Greater,
        (Some(x), Some(y)) if x > y => Ordering::Greater,
        // As `go-version` does: different texts of the same number (`01`, `1`) are not equal.
        _ => Ordering::Less,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Equal,
    NotEqual,
    Greater,
    Less,
    GreaterEqual,
    LessEqual,
    /// `~>`: this version or a later one that changes only its last written segment.
    Pessimistic,
}

/// One operator and version of a constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Single {
    op: Op,
    version: Version,
}

impl Single {
    fn allows(&self, v: &Version) -> bool {
        let c = &self.version;
        match self.op {
            Op::Equal => v.compare(c).is_eq(),
            Op::NotEqual => v.compare(c).is_ne(),
            Op::Greater => v.prerelease_allows(c) && v.compare(c).is_gt(),
            Op::Less => v.prerelease_allows(c) && v.compare(c).is_lt(),
            Op::GreaterEqual => v.prerelease_allows(c) && v.compare(c).is_ge(),
            Op::LessEqual => v.prerelease_allows(c) && v.compare(c).is_le(),
            Op::Pessimistic => {
                if !v.prerelease_allows(c) || (!c.pre.is_empty() && v.pre.is_empty()) {
                    return false;
                }
                if v.compare(c).is_lt() || c.segments.len() > v.segments.len() {
                    return false;
                }
                // Every written segment but the last is the same; the last padded one is at least
                // the constraint's (`go-version` compares that one, not the last written).
                let (fixed, last) = (c.written - 1, c.segments.len() - 1);
                c.segments[..fixed] == v.segments[..fixed] && c.segments[last] <= v.segments[last]
            }
        }
    }
}

/// A module call's `version`: every part must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Constraints(Vec<Single>);

/// Go's `\s` in regular expressions.
fn go_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0c' | '\r')
}

impl Constraints {
    /// Parses a constraint; `None` when Terraform would say it is not one ("Invalid version
    /// constraint").
    pub(crate) fn parse(text: &str) -> Option<Constraints> {
        text.split(',')
            .map(|single| {
                let single = single.trim_matches(go_space);
                let op_end = single
                    .find(|c: char| !matches!(c, '=' | '!' | '<' | '>' | '~'))
                    .unwrap_or(single.len());
                let op = match &single[..op_end] {
                    "" | "=" => Op::Equal,
                    "!=" => Op::NotEqual,
                    ">" => Op::Greater,
                    "<" => Op::Less,
                    ">=" => Op::GreaterEqual,
                    "<=" => Op::LessEqual,
                    "~>" => Op::Pessimistic,
                    _ => return None,
                };
                let version = Version::parse(single[op_end..].trim_start_matches(go_space))?;
                Some(Single { op, version })
            })
            .collect::<Option<Vec<_>>>()
            .map(Constraints)
    }

    /// Whether the version meets every part.
    pub(crate) fn allows(&self, v: &Version) -> bool {
        self.0.iter().all(|c| c.allows(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allows(constraint: &str, version: &str) -> bool {
        let c = Constraints::parse(constraint).unwrap_or_else(|| panic!("`{constraint}`"));
        let v = Version::parse(version).unwrap_or_else(|| panic!("`{version}`"));
        c.allows(&v)
    }

    /// Cases of `go-version`'s own `constraint_test.go` (`TestConstraintCheck`), and what module
    /// calls commonly write.
    #[test]
    fn constraints_allow_what_terraform_allows() {
        for (constraint, version, expected) in [
            (">= 1.0, < 1.2", "1.1.5", true),
            ("< 1.0, < 1.2", "1.1.5", false),
            ("= 1.0", "1.1.5", false),
            ("= 1.0", "1.0.0", true),
            ("1.0", "1.0.0", true),
            ("~> 1.0", "2.0", false),
            ("~> 1.0", "1.1", true),
            ("~> 1.0", "1.2.3", true),
            ("~> 1.0.0", "1.2.3", false),
            ("~> 1.0.0", "1.0.7", true),
            ("~> 1.0.0", "1.1.0", false),
            ("~> 1.0.7", "1.0.4", false),
            ("~> 1.0.7", "1.0.7", true),
            ("~> 1.0.7", "1.0.8", true),
            ("~> 1.0.7", "1.0.7.5", true),
            ("~> 1.0.7", "1.0.6.99", false),
            ("~> 1.0.7", "1.0.8.0", true),
            ("~> 1.0.9.5", "1.0.9.5", true),
            ("~> 1.0.9.5", "1.0.9.4", false),
            ("~> 1.0.9.5", "1.0.9.6", true),
            ("~> 1.0.9.5", "1.0.9.5.0", true),
            ("~> 1.0.9.5", "1.0.9.5.1", true),
            ("~> 2.0", "2.1.0-beta", false),
            ("~> 2.1.0-a", "2.2.0", false),
            ("~> 2.1.0-a", "2.1.0", false),
            ("~> 2.1.0-a", "2.1.0-beta", true),
            ("~> 2.1.0-a", "2.2.0-alpha", false),
            ("> 2.0", "2.1.0-beta", false),
            (">= 2.1.0-a", "2.1.0-beta", true),
            (">= 2.1.0-a", "2.1.1-beta", false),
            (">= 2.0.0", "2.1.0-beta", false),
            (">= 2.1.0-a", "2.1.1", true),
            (">= 2.1.0-a", "2.1.0", true),
            ("<= 2.1.0-a", "2.0.0", true),
            ("!= 1.0", "1.0.1", true),
            ("!=1.0", "1.0.0", false),
            ("~> 8.0", "8.4.1", true),
            ("~> 8.0", "9.0.0", false),
            ("~> 8.0", "7.9.9", false),
            ("v1.2.0", "1.2", true),
            (" >= 5.1 ,< 6 ", "5.30.0", true),
            (">= 5.1, < 6", "6.0.0", false),
            ("1.2.3+build.5", "1.2.3", true),
            // Only the last written segment may grow, and here that is the major one.
            ("~> 1", "1.9.0", true),
            ("~> 1", "2.0.0", true),
            ("~> 1", "0.9.0", false),
        ] {
            assert_eq!(
                allows(constraint, version),
                expected,
                "`{constraint}` on `{version}`"
            );
        }
    }

    #[test]
    fn what_terraform_refuses_is_not_a_constraint() {
        for bad in [
            "",
            "~>",
            ">= ",
            "=> 1.0",
            "1.0,",
            "latest",
            "1..0",
            "1.0.",
            ">= 1.0 < 2.0",
            "^1.0",
            "~1.0",
            "1.0.0+",
            ">= 1.x",
            "11387778780781445675529500000000000000000",
        ] {
            assert_eq!(Constraints::parse(bad), None, "`{bad}`");
        }
        assert!(Version::parse("1.0.0-rc.1+build.7").is_some());
        assert!(Version::parse("1.0beta1").is_some());
        assert!(Version::parse("1.0.0--x").is_some());
        // `-?` then `[A-Za-z\-~]+`: a lone dash is a pre-release.
        assert!(Version::parse("1.0.0-").is_some());
        assert_eq!(Version::parse("1.0.0 "), None);
        assert_eq!(Version::parse("one"), None);
    }

    /// What Terraform itself said of every constraint and installed version of
    /// `tests/version_constraints/record.sh` (`terraform validate` on a call with that `version`
    /// and a manifest with that version): the checker follows the same copies, and refuses the
    /// same constraints and versions.
    #[test]
    fn constraints_and_versions_are_read_as_terraform_reads_them() {
        let table = include_str!("../tests/version_constraints/terraform.tsv");
        let mut lines = table.lines();
        assert!(lines.next().is_some_and(|l| l.starts_with("Terraform v")));
        let mut cases = 0;
        for line in lines {
            let [constraint, version, verdict] = line.split('\t').collect::<Vec<_>>()[..] else {
                panic!("not a case: {line:?}");
            };
            let (c, v) = (Constraints::parse(constraint), Version::parse(version));
            match verdict {
                "badversion" => assert_eq!(v, None, "`{version}`"),
                "invalid" => {
                    assert!(v.is_some(), "`{version}`");
                    assert_eq!(c, None, "`{constraint}`");
                }
                "allow" | "deny" => {
                    let (Some(c), Some(v)) = (c, v) else {
                        panic!("`{constraint}` on `{version}`: not read");
                    };
                    assert_eq!(
                        c.allows(&v),
                        verdict == "allow",
                        "`{constraint}` on `{version}`"
                    );
                }
                other => panic!("unknown verdict {other:?}"),
            }
            cases += 1;
        }
        assert!(cases > 800, "{cases} cases");
    }

    proptest::proptest! {
        /// Whatever a call or a manifest holds, reading and checking it never panics, and a
        /// version always meets `= itself` (`go-version` compares equal versions equal).
        #[test]
        fn any_text_is_read_without_panicking(
            constraint in "[ 0-9.v+~<>=!,a-z-]{0,12}",
            version in "v?[0-9]{1,3}(\\.[0-9]{1,3}){0,4}(-?[0-9a-z.~-]{0,6})?(\\+[0-9a-z.]{0,4})?",
        ) {
            let c = Constraints::parse(&constraint);
            if let Some(v) = Version::parse(&version) {
                if let Some(c) = &c {
                    let _ = c.allows(&v);
                }
                let same = Constraints::parse(&format!("= {version}"));
                proptest::prop_assert!(same.is_some_and(|s| s.allows(&v)), "`{}`", version);
            }
        }
    }

    /// `go-version`'s `TestComparePreReleases` and `TestVersionCompare` cases.
    #[test]
    fn versions_compare_as_go_version_compares_them() {
        for (a, b, expected) in [
            ("1.2.3", "1.4.5", Ordering::Less),
            ("1.2-beta", "1.2-beta", Ordering::Equal),
            ("1.2", "1.1.4", Ordering::Greater),
            ("1.2", "1.2-beta", Ordering::Greater),
            ("1.2+foo", "1.2+beta", Ordering::Equal),
            ("v1.2", "v1.2-beta", Ordering::Greater),
            ("1.0.0-alpha", "1.0.0-alpha.1", Ordering::Less),
            ("1.0.0-alpha.1", "1.0.0-alpha.beta", Ordering::Less),
            ("1.0.0-alpha.beta", "1.0.0-beta", Ordering::Less),
            ("1.0.0-beta.2", "1.0.0-beta.11", Ordering::Less),
            ("1.0.0-beta.11", "1.0.0-rc.1", Ordering::Less),
            ("1.0.0-rc.1", "1.0.0", Ordering::Less),
            ("1.2.3.4", "1.2.3", Ordering::Greater),
            ("1.2.3.0", "1.2.3", Ordering::Equal),
            ("3.4.5.6", "3.4.5.6", Ordering::Equal),
        ] {
            let (va, vb) = (Version::parse(a).unwrap(), Version::parse(b).unwrap());
            assert_eq!(va.compare(&vb), expected, "`{a}` against `{b}`");
            assert_eq!(vb.compare(&va), expected.reverse(), "`{b}` against `{a}`");
        }
    }
}
