//! Property tests (the fuzzing of this crate: cargo-fuzz needs a nightly toolchain).
//!
//! - Generated expressions are printed as HCL (with Terraform's precedence deciding where
//!   parentheses are needed, and newlines wherever Terraform allows them), parsed back, and
//!   must give the generated tree.
//! - Arbitrary text, and valid conformance files with random bytes inserted, deleted or
//!   replaced, must never panic or overflow the stack; every span of a successful parse lies
//!   inside the text.
//!
//! Failing inputs proptest finds are kept in `properties.proptest-regressions` beside this file
//! and replayed first on every run; cases that once failed are also written out as named tests
//! at the bottom.

use ecs_gpu_hcl::{json, line_col, parse, parse_expression, parse_template, sexp, LineIndex, Span};

use proptest::prelude::*;

// ------------------------------------------------------------------ generated expressions

#[derive(Debug, Clone)]
enum G {
    Num(String),
    Bool(bool),
    Null,
    Str(Vec<Part>),
    Var(String),
    Attr(Box<G>, String),
    Index(Box<G>, Box<G>),
    Splat(Box<G>, String),
    Call(String, Vec<G>, bool),
    Tuple(Vec<G>, bool),
    Object(Vec<(Key, G)>, bool),
    Unary(bool, Box<G>),
    Binary(usize, Box<G>, Box<G>),
    Cond(Box<G>, Box<G>, Box<G>),
    ForTuple(String, Box<G>, Box<G>, Option<Box<G>>),
    ForObject(String, String, Box<G>, Box<G>, Box<G>, bool),
}

#[derive(Debug, Clone)]
enum Part {
    Lit(String),
    Interp(G),
}

#[derive(Debug, Clone)]
enum Key {
    Name(String),
    Quoted(String),
}

/// Operators with their precedence, as written.
const OPS: [(&str, u8); 13] = [
    ("||", 1),
    ("&&", 2),
    ("==", 3),
    ("!=", 3),
    ("<", 4),
    ("<=", 4),
    (">", 4),
    (">=", 4),
    ("+", 5),
    ("-", 5),
    ("*", 6),
    ("/", 6),
    ("%", 6),
];

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9_]{0,6}",
        Just("café".to_string()),
        Just("名前".to_string()),
        Just("with-dash".to_string()),
    ]
    .prop_filter("keyword", |n| {
        !matches!(n.as_str(), "true" | "false" | "null" | "for" | "in" | "if")
    })
}

fn lit_text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .,:;=+/é-]{1,8}"
}

fn leaf() -> impl Strategy<Value = G> {
    prop_oneof![
        "[0-9]{1,5}(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,2})?".prop_map(G::Num),
        any::<bool>().prop_map(G::Bool),
        Just(G::Null),
        name().prop_map(G::Var),
        prop::option::of(lit_text()).prop_map(|t| G::Str(t.map(Part::Lit).into_iter().collect())),
    ]
}

fn expr() -> impl Strategy<Value = G> {
    leaf().prop_recursive(5, 48, 4, |inner| {
        let b = |g: G| Box::new(g);
        prop_oneof![
            (inner.clone(), name()).prop_map(move |(t, n)| G::Attr(b(t), n)),
            (inner.clone(), inner.clone()).prop_map(move |(t, i)| G::Index(b(t), b(i))),
            (inner.clone(), name()).prop_map(move |(t, n)| G::Splat(b(t), n)),
            (
                name(),
                prop::collection::vec(inner.clone(), 0..4),
                any::<bool>()
            )
                .prop_map(|(n, a, x)| G::Call(n, a, x)),
            (prop::collection::vec(inner.clone(), 0..4), any::<bool>())
                .prop_map(|(items, nl)| G::Tuple(items, nl)),
            (
                prop::collection::vec(
                    (
                        prop_oneof![
                            name().prop_map(Key::Name),
                            lit_text().prop_map(Key::Quoted),
                            // duplicate keys, kept in order
                            Just(Key::Name("dup".to_string())),
                        ],
                        inner.clone()
                    ),
                    0..4
                ),
                any::<bool>()
            )
                .prop_map(|(items, nl)| G::Object(items, nl)),
            (any::<bool>(), inner.clone()).prop_map(move |(n, o)| G::Unary(n, b(o))),
            (0..OPS.len(), inner.clone(), inner.clone()).prop_map(move |(op, l, r)| G::Binary(
                op,
                b(l),
                b(r)
            )),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(move |(c, t, e)| G::Cond(
                b(c),
                b(t),
                b(e)
            )),
            (
                name(),
                inner.clone(),
                inner.clone(),
                prop::option::of(inner.clone())
            )
                .prop_map(move |(v, c, e, f)| G::ForTuple(v, b(c), b(e), f.map(b))),
            (
                name(),
                name(),
                inner.clone(),
                inner.clone(),
                inner.clone(),
                any::<bool>()
            )
                .prop_map(move |(k, v, c, key, val, g)| G::ForObject(
                    k,
                    v,
                    b(c),
                    b(key),
                    b(val),
                    g
                )),
            prop::collection::vec(
                prop_oneof![
                    lit_text().prop_map(Part::Lit),
                    inner.clone().prop_map(Part::Interp)
                ],
                1..4
            )
            .prop_map(|parts| {
                // adjacent literals would be one literal: keep them apart
                let mut out: Vec<Part> = Vec::new();
                for p in parts {
                    if let (Some(Part::Lit(a)), Part::Lit(b)) = (out.last_mut(), &p) {
                        a.push_str(b);
                    } else {
                        out.push(p);
                    }
                }
                G::Str(out)
            }),
        ]
    })
}

/// The precedence level a node prints at: 0 conditional, 1..=6 binary, 7 unary, 8 postfix/term.
fn level(g: &G) -> u8 {
    match g {
        G::Cond(..) => 0,
        G::Binary(op, ..) => OPS[*op].1,
        G::Unary(..) => 7,
        _ => 8,
    }
}

/// Prints `g` where a node of at least `min` level is needed: (HCL source, expected S-expression).
fn print(g: &G, min: u8) -> (String, String) {
    let (src, tree) = print_bare(g);
    // a number, or a unary, cannot carry `.name`/`[i]` without parentheses (`1.x`, `-a.b`)
    let needs = level(g) < min || (min == 9 && matches!(g, G::Num(_)));
    if needs {
        (format!("({src})"), format!("(paren {tree})"))
    } else {
        (src, tree)
    }
}

fn sep(newlines: bool) -> &'static str {
    if newlines {
        ",\n  "
    } else {
        ", "
    }
}

fn print_bare(g: &G) -> (String, String) {
    match g {
        G::Num(n) => (n.clone(), n.clone()),
        G::Bool(b) => (b.to_string(), b.to_string()),
        G::Null => ("null".into(), "null".into()),
        G::Var(n) => (n.clone(), n.clone()),
        G::Str(parts) => {
            let mut src = String::from("\"");
            let mut tree = Vec::new();
            for p in parts {
                match p {
                    Part::Lit(t) => {
                        src.push_str(t);
                        tree.push(format!("{t:?}"));
                    }
                    Part::Interp(e) => {
                        let (s, t) = print(e, 0);
                        src.push_str(&format!("${{{s}}}"));
                        tree.push(format!("${{{t}}}"));
                    }
                }
            }
            src.push('"');
            let tree = match parts.as_slice() {
                [] => "\"\"".to_string(),
                [Part::Lit(_)] => tree.remove(0),
                _ => format!("(tpl {})", tree.join(" ")),
            };
            (src, tree)
        }
        G::Attr(t, n) => {
            let (s, tr) = print(t, 9);
            (format!("{s}.{n}"), format!("(. {tr} {n})"))
        }
        G::Index(t, i) => {
            let (s, tr) = print(t, 9);
            let (is, it) = print(i, 0);
            (format!("{s}[{is}]"), format!("([] {tr} {it})"))
        }
        G::Splat(t, n) => {
            let (s, tr) = print(t, 9);
            (format!("{s}[*].{n}"), format!("([*] {tr} (. _ {n}))"))
        }
        G::Call(n, args, expand) => {
            let printed: Vec<_> = args.iter().map(|a| print(a, 0)).collect();
            let src_args: Vec<_> = printed.iter().map(|p| p.0.clone()).collect();
            let tree_args: Vec<_> = printed.iter().map(|p| format!(" {}", p.1)).collect();
            let expand = *expand && !args.is_empty();
            let dots = if expand { "..." } else { "" };
            let head = if expand { "call..." } else { "call" };
            (
                format!("{n}({}{dots})", src_args.join(", ")),
                format!("({head} {n}{})", tree_args.concat()),
            )
        }
        G::Tuple(items, nl) => {
            let printed: Vec<_> = items.iter().map(|a| print(a, 0)).collect();
            let src: Vec<_> = printed.iter().map(|p| p.0.clone()).collect();
            let tree: Vec<_> = printed.iter().map(|p| format!(" {}", p.1)).collect();
            (
                format!("[{}]", src.join(sep(*nl))),
                format!("(tuple{})", tree.concat()),
            )
        }
        G::Object(items, nl) => {
            let mut src = Vec::new();
            let mut tree = String::from("(object");
            for (k, v) in items {
                let (vs, vt) = print(v, 0);
                let (ks, kt) = match k {
                    Key::Name(n) => (n.clone(), n.clone()),
                    Key::Quoted(q) => (format!("{q:?}"), format!("{q:?}")),
                };
                src.push(format!("{ks} = {vs}"));
                tree.push_str(&format!(" ({kt} {vt})"));
            }
            tree.push(')');
            let joined = if *nl {
                format!("{{\n  {}\n}}", src.join("\n  "))
            } else {
                format!("{{ {} }}", src.join(", "))
            };
            (joined, tree)
        }
        G::Unary(not, o) => {
            let (s, t) = print(o, 7);
            if *not {
                (format!("!{s}"), format!("(! {t})"))
            } else {
                (format!("-{s}"), format!("(neg {t})"))
            }
        }
        G::Binary(op, l, r) => {
            let (sym, p) = OPS[*op];
            let (ls, lt) = print(l, p);
            let (rs, rt) = print(r, p + 1);
            (format!("{ls} {sym} {rs}"), format!("({sym} {lt} {rt})"))
        }
        G::Cond(c, t, e) => {
            let (cs, ct) = print(c, 1);
            let (ts, tt) = print(t, 0);
            let (es, et) = print(e, 0);
            (format!("{cs} ? {ts} : {es}"), format!("(? {ct} {tt} {et})"))
        }
        G::ForTuple(v, c, e, cond) => {
            let (cs, ct) = print(c, 0);
            let (es, et) = print(e, 0);
            let (fs, ft) = match cond {
                Some(f) => {
                    let (s, t) = print(f, 0);
                    (format!("\n  if {s}"), format!(" if {t}"))
                }
                None => (String::new(), String::new()),
            };
            (
                format!("[for {v} in {cs} :\n  {es}{fs}]"),
                format!("(for-tuple {v} {ct} {et}{ft})"),
            )
        }
        G::ForObject(k, v, c, key, val, grouping) => {
            let (cs, ct) = print(c, 0);
            let (ks, kt) = print(key, 0);
            let (vs, vt) = print(val, 0);
            let g = if *grouping { "..." } else { "" };
            // the value on its own line, after `=>` (a shape real container definitions have)
            (
                format!("{{ for {k}, {v} in {cs} : {ks} =>\n  {vs}{g}\n}}"),
                format!("(for-object {k} {v} {ct} {kt} => {vt}{g})"),
            )
        }
    }
}

/// Every span lies inside the text and starts before it ends.
fn check_spans(text: &str, spans: &[Span]) {
    for s in spans {
        assert!(s.start <= s.end, "{s:?}");
        assert!(s.end as usize <= text.len(), "{s:?} past {}", text.len());
        let _ = line_col(text, s.start);
        let _ = line_col(text, s.end);
    }
}

fn expr_spans(e: &ecs_gpu_hcl::Expr, out: &mut Vec<Span>) {
    out.push(e.span);
}

fn file_spans(f: &ecs_gpu_hcl::File) -> Vec<Span> {
    let mut out: Vec<Span> = f.comments.iter().map(|c| c.span).collect();
    out.push(f.body.span);
    for item in &f.body.items {
        match item {
            ecs_gpu_hcl::Item::Attribute(a) => {
                out.push(a.span);
                out.push(a.name.span);
                expr_spans(&a.value, &mut out);
            }
            ecs_gpu_hcl::Item::Block(b) => {
                out.push(b.span);
                out.push(b.body.span);
                out.extend(b.labels.iter().map(|l| l.span));
            }
        }
    }
    out
}

/// Parses `text` every way the crate can, checking nothing panics and spans stay in bounds.
fn parse_everything(text: &str) {
    if let Ok(f) = parse(text) {
        check_spans(text, &file_spans(&f));
    }
    if let Ok(e) = parse_expression(text) {
        check_spans(text, &[e.span]);
    }
    let _ = parse_template(text);
    if let Ok(j) = json::parse(text) {
        check_spans(text, &[j.span]);
    }
    if let Err(e) = parse(text) {
        check_spans(text, &[e.span]);
    }
}

fn conformance_texts() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/valid");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

proptest! {
    // 256 cases per property; PROPTEST_CASES=100000 for a longer hunt

    #[test]
    fn printed_expressions_parse_back_to_the_same_tree(g in expr()) {
        let (src, tree) = print(&g, 0);
        let parsed = parse_expression(&src).map_err(|e| {
            let (l, c) = line_col(&src, e.span.start);
            TestCaseError::fail(format!("{src}\n{l}:{c}: {e}"))
        })?;
        prop_assert_eq!(sexp::expr(&parsed), tree.clone(), "source:\n{}", src);
        // the same expression as an attribute value in a block, and inside an object
        let file = format!("locals {{\n  x = {src}\n}}\n");
        let f = parse(&file).map_err(|e| TestCaseError::fail(format!("{file}\n{e}")))?;
        prop_assert_eq!(sexp::file(&f), format!("(block locals (attr x {tree}))"));
        // in the body of a resource block: as an attribute, in a nested block and in a
        // single-line block
        let file = format!(
            "resource \"aws_x\" \"n\" {{\n  x = {src}\n  nested {{\n    y = [{src}, {{ k = {src} }}]\n  }}\n}}\nresource \"aws_y\" \"n\" {{ z = {src} }}\n"
        );
        let f = parse(&file).map_err(|e| TestCaseError::fail(format!("{file}\n{e}")))?;
        check_spans(&file, &file_spans(&f));
        // and cut short, or with a byte taken out: no panic, spans inside the text
        for cut in [file.len() / 3, file.len() / 2, file.len() - 3] {
            if file.is_char_boundary(cut) {
                parse_everything(&file[..cut]);
                let mut shorter = file.clone();
                if shorter.is_char_boundary(cut + 1) {
                    shorter.remove(cut);
                    parse_everything(&shorter);
                }
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        parse_everything(&s);
    }

    #[test]
    fn arbitrary_hcl_like_text_never_panics(s in "[a-z{}\\[\\]()\"$%~<>=!&|?:,.*#/\\\\\n -]{0,300}") {
        parse_everything(&s);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        parse_everything(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_conformance_files_never_panic(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..8),
    ) {
        let texts = conformance_texts();
        prop_assume!(!texts.is_empty());
        let mut bytes = texts[which.index(texts.len())].clone().into_bytes();
        for (at, kind, byte) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match kind {
                0 => bytes.insert(i, byte),
                1 => {
                    bytes.remove(i);
                }
                _ => bytes[i] = byte,
            }
        }
        parse_everything(&String::from_utf8_lossy(&bytes));
    }
}

// ------------------------------------------------------------------ regressions

/// Pathological inputs that once could, or easily could, crash a recursive parser.
#[test]
fn pathological_inputs_give_errors() {
    for text in [
        "x = ".to_string() + &"[".repeat(100_000),
        "x = ".to_string() + &"{a = ".repeat(50_000),
        "x = \"".to_string() + &"${\"".repeat(50_000),
        "x = <<EOT\n".to_string() + &"a\n".repeat(10_000),
        "/*".repeat(10_000),
        "x = ".to_string() + &"!-".repeat(100_000) + "1",
        "x = a".to_string() + &".b".repeat(100_000),
        "x = a".to_string() + &"[*]".repeat(50_000),
        "x = 1".to_string() + &" + 1".repeat(2_000),
        "x = 1".to_string() + &" ? 1 : 1".repeat(50_000),
        "%{ for x in y }".repeat(50_000),
        "\u{feff}".to_string(),
        "\r".to_string(),
        "x = <<".to_string(),
        "x = <<-".to_string(),
        "x = \"\\u".to_string(),
        "x = \"\\U0011FFFF\"".to_string(),
        "x = {for".to_string(),
        "x = [for".to_string(),
        "x = a::".to_string(),
        "a \"".to_string(),
    ] {
        parse_everything(&text);
    }
}

/// Traversal chains build trees as deep as they are long, so they count as nesting: a realistic
/// length parses, an absurd one is an error (walking a 100,000-deep tree would overflow the
/// stack).
#[test]
fn traversal_chains_count_as_nesting() {
    for (unit, ok) in [(".b", 200), ("[0]", 200)] {
        let text = format!("x = a{}\n", unit.repeat(ok));
        assert!(parse(&text).is_ok(), "{unit} x {ok}");
        let text = format!("x = a{}\n", unit.repeat(100_000));
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("nesting too deep"), "{}", err.message);
    }
}

/// A flat chain of binary operators is not nesting, as in Terraform: 300 `+` terms (refused as
/// "nesting too deep" before) and 100,000 parse, and the tree of the longest drops without
/// overflowing a test thread's stack. Mixed precedences and real nesting inside the chain too.
#[test]
fn operator_chains_of_any_length_parse() {
    for unit in [
        " + 1",
        " || true",
        " * 2 - 1",
        " + (1)",
        " + a.b[0]",
        " == -1",
    ] {
        // Thirty thousand terms: far past the nesting limit and any thread's stack, within the
        // syntax tree's budget (`ecs_gpu_hcl::tree_budget`), which refuses longer dense chains.
        for n in [300, 30_000] {
            let text = format!("x = a{}\n", unit.repeat(n));
            let file = parse(&text).unwrap_or_else(|e| panic!("{unit} x {n}: {}", e.message));
            drop(file);
        }
    }
    // Nesting inside a long chain still counts as nesting.
    let text = format!(
        "x = 1{} + {}1{}\n",
        " + 1".repeat(1000),
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(parse(&text)
        .unwrap_err()
        .message
        .contains("nesting too deep"));
}

// ------------------------------------------------------------------ line index

/// What a suppression's search for the next line of code reads in a text: each line of
/// `str::lines`, blank or starting with a comment.
fn blank_or_comment_lines(text: &str) -> Vec<bool> {
    text.lines()
        .map(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#') || t.starts_with("//")
        })
        .collect()
}

fn assert_line_index_agrees(text: &str) -> Result<(), TestCaseError> {
    let index = LineIndex::new(text);
    prop_assert_eq!(index.text_len(), text.len());
    let n = u32::try_from(text.len()).unwrap() + 2;
    for offset in 0..=n {
        prop_assert_eq!(
            index.line_col(offset),
            line_col(text, offset),
            "{:?} at {}",
            text,
            offset
        );
    }
    // A suppression's search, as it reads the lines of the text.
    let skippable = blank_or_comment_lines(text);
    let lines = u32::try_from(skippable.len()).unwrap();
    let mut all = Vec::new();
    for line in 0..=lines + 2 {
        let mut expected = line + 1;
        while skippable.get(expected as usize - 1) == Some(&true) {
            expected += 1;
        }
        prop_assert_eq!(
            index.next_code_line(text, line),
            expected,
            "{:?} after line {}",
            text,
            line
        );
        all.push((line, expected));
    }
    // The same answers asked all at once, in any order, repeats included.
    all.extend(all.clone().into_iter().rev().step_by(2));
    let asked: Vec<u32> = all.iter().map(|(line, _)| *line).collect();
    let expected: Vec<u32> = all.iter().map(|(_, e)| *e).collect();
    prop_assert_eq!(index.next_code_lines(text, &asked), expected, "{:?}", text);
    Ok(())
}

/// Line-shaped text: code, comments, blank and indented lines, `\r\n`, characters beyond ASCII
/// (including Unicode spaces `str::trim` removes).
fn line_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\n"),
        Just("\r\n"),
        Just(" "),
        Just("\t"),
        Just("\u{b}"),
        Just("\u{a0}"),
        Just("\u{2003}"),
        Just("#"),
        Just("/"),
        Just("//"),
        Just("x"),
        Just("a = 1"),
        Just("é"),
        Just("☃"),
        Just("\u{1f600}"),
    ];
    prop::collection::vec(piece, 0..80).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn line_index_gives_line_col_and_comment_lines(text in line_text()) {
        assert_line_index_agrees(&text)?;
    }

    #[test]
    fn line_index_of_any_text(text in "\\PC{0,200}") {
        assert_line_index_agrees(&text)?;
    }
}

/// A long text: lines of every kind, `\r\n`, characters beyond ASCII, a last line without a break.
#[test]
fn line_index_of_long_texts() {
    let mut text = String::new();
    for i in 0..300 {
        text.push_str(match i % 7 {
            0 => "# comment\n",
            1 => "\n",
            2 => "  // é\n",
            3 => "resource \"x\" \"y\" {\n",
            4 => "  a = \"ü\" # trailing\n",
            5 => "   \r\n",
            _ => "}\n",
        });
    }
    text.push_str("last");
    assert_line_index_agrees(&text).unwrap();
}
