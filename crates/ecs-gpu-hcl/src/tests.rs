//! Unit tests: each construct, asserting the tree through its S-expression rendering.

use crate::{line_col, parse, parse_expression, parse_template, sexp, ExprKind, Item};

fn e(src: &str) -> String {
    match parse_expression(src) {
        Ok(x) => sexp::expr(&x),
        Err(err) => panic!("{src:?}: {err}"),
    }
}

fn f(src: &str) -> String {
    match parse(src) {
        Ok(x) => sexp::file(&x),
        Err(err) => panic!("{src:?}: {err}"),
    }
}

/// The error message and 1-based line:column.
fn fail(src: &str) -> (String, u32, u32) {
    match parse(src) {
        Ok(x) => panic!("{src:?} parsed: {}", sexp::file(&x)),
        Err(err) => {
            let (l, c) = line_col(src, err.span.start);
            (err.message, l, c)
        }
    }
}

#[test]
fn literals() {
    assert_eq!(e("1"), "1");
    assert_eq!(e("1.5"), "1.5");
    assert_eq!(e("1e3"), "1e3");
    assert_eq!(e("2.5E-7"), "2.5E-7");
    assert_eq!(e("true"), "true");
    assert_eq!(e("false"), "false");
    assert_eq!(e("null"), "null");
    assert_eq!(e("-1"), "(neg 1)");
    assert_eq!(e("\"abc\""), "\"abc\"");
}

#[test]
fn string_escapes() {
    assert_eq!(
        e(r#""a\nb\t\"\\ \u00e9 \U0001F600""#),
        "\"a\\nb\\t\\\"\\\\ é 😀\""
    );
    assert_eq!(e(r#""$${x} %%{y}""#), "\"${x} %{y}\"");
    assert_eq!(e(r#""cost: $5 and 50%""#), "\"cost: $5 and 50%\"");
    assert!(parse_expression(r#""\q""#).is_err());
    assert!(parse_expression(r#""\u12""#).is_err());
    assert!(parse_expression(r#""\uD800""#).is_err());
}

#[test]
fn template_interpolation() {
    assert_eq!(e(r#""a${var.x}b""#), "(tpl \"a\" ${(. var x)} \"b\")");
    assert_eq!(e(r#""${x}""#), "(tpl ${x})");
    assert_eq!(
        e(r#""${ "in${"ner"}" }""#),
        "(tpl ${(tpl \"in\" ${\"ner\"})})"
    );
    // newlines and comments inside an interpolation are whitespace
    assert_eq!(e("\"${ # c\n 1 }\""), "(tpl ${1})");
}

#[test]
fn template_directives() {
    assert_eq!(
        e(r#""%{ if a }yes%{ else }no%{ endif }""#),
        "(tpl (%if a \"yes\" else \"no\"))"
    );
    assert_eq!(
        e(r#""%{ for k, v in m }${k}=${v},%{ endfor }""#),
        "(tpl (%for k v m (tpl ${k} \"=\" ${v} \",\")))"
    );
    assert_eq!(
        e(r#""%{ for v in l }%{ if v > 1 }${v}%{ endif }%{ endfor }""#),
        "(tpl (%for v l (tpl (%if (> v 1) (tpl ${v})))))"
    );
}

#[test]
fn strip_markers() {
    assert_eq!(e(r#""a  ${~ x ~}  b""#), "(tpl \"a\" ${x} \"b\")");
    // Outside quotes a literal ends at each newline and a strip marker trims only the literal
    // beside it, not across the line break: Terraform renders this as "line1\n  a\n  b\nend".
    let t = parse_template("line1\n  %{~ for x in xs ~}\n  ${x}\n  %{~ endfor ~}\nend").unwrap();
    assert_eq!(
        sexp::template(&t),
        "(tpl \"line1\\n\" (%for x xs (tpl \"  \" ${x} \"\\n\")) \"end\")"
    );
    // inside quotes an escaped newline is part of one literal, so it is trimmed
    assert_eq!(e(r#""a\n  ${~x}""#), "(tpl \"a\" ${x})");
}

#[test]
fn template_errors() {
    assert!(parse_template("%{ if x }a").is_err());
    assert!(parse_template("%{ endif }").is_err());
    assert!(parse_template("%{ for x in y }a%{ endif }").is_err());
    assert!(parse_template("%{ bogus }").is_err());
    let err = parse_template("%{ if x }a").unwrap_err();
    assert!(err.message.contains("endif"), "{}", err.message);
}

#[test]
fn standalone_template_keeps_backslashes() {
    let t = parse_template("#!/bin/bash\necho \"${cluster}\" \\n\n").unwrap();
    assert_eq!(
        sexp::template(&t),
        "(tpl \"#!/bin/bash\\necho \\\"\" ${cluster} \"\\\" \\\\n\\n\")"
    );
}

#[test]
fn heredocs() {
    assert_eq!(
        f("x = <<EOT\nhello\n  ${name}\nEOT\n"),
        "(attr x (tpl \"hello\\n  \" ${name} \"\\n\"))"
    );
    // `<<-` removes the smallest common indentation; blank lines do not count
    assert_eq!(
        f("x = <<-EOT\n    a\n\n      b\n    EOT\n"),
        "(attr x \"a\\n\\n  b\\n\")"
    );
    // the closing marker may be indented, also for `<<`
    assert_eq!(f("x = <<EOT\n  a\n  EOT\n"), "(attr x \"  a\\n\")");
    // no backslash escapes in heredocs; `$${` still escapes
    assert_eq!(
        f("x = <<EOT\na\\nb $${x}\nEOT\n"),
        "(attr x \"a\\\\nb ${x}\\n\")"
    );
    // empty heredoc
    assert_eq!(f("x = <<EOT\nEOT\n"), "(attr x \"\")");
    // a heredoc inside a call, followed by more arguments
    assert_eq!(
        f("x = f(<<EOT\nhi\nEOT\n, 2)\n"),
        "(attr x (call f \"hi\\n\" 2))"
    );
    let t = parse("x = <<EOT\nEOT\n").unwrap();
    let Item::Attribute(a) = &t.body.items[0] else {
        panic!()
    };
    let ExprKind::Template(tpl) = &a.value.kind else {
        panic!()
    };
    assert!(tpl.heredoc);
}

/// Each expected tree here was checked against `terraform console` (Terraform 1.11.4): `<<-`
/// counts indentation after strip markers, line by line, as Terraform does.
#[test]
fn heredoc_with_directives_matches_terraform() {
    // renders "  port 1\n  port 2\n": the strip after `for` hides the next line's start
    assert_eq!(
        f("x = <<-EOT\n  %{ for p in ports ~}\n  port ${p}\n  %{ endfor ~}\n  EOT\n"),
        "(attr x (tpl (%for p ports (tpl \"  port \" ${p} \"\\n\"))))"
    );
    // renders "    port 1\n    port 2\n    tail\n": a line emptied by `%{~` counts zero
    assert_eq!(
        f("x = <<-EOT\n    %{~ for p in [1, 2] ~}\n    port ${p}\n    %{~ endfor ~}\n    tail\n  EOT\n"),
        "(attr x (tpl (%for p (tuple 1 2) (tpl \"    port \" ${p} \"\\n\")) \"    tail\\n\"))"
    );
    // renders "  a\n\n  x 1\n\n": four spaces removed from every line
    assert_eq!(
        f("x = <<-EOT\n      a\n    %{ for p in [1] }\n      x ${p}\n    %{ endfor }\n  EOT\n"),
        "(attr x (tpl \"  a\\n\" (%for p (tuple 1) (tpl \"\\n  x \" ${p} \"\\n\")) \"\\n\"))"
    );
}

#[test]
fn operators_and_precedence() {
    assert_eq!(e("1 + 2 * 3"), "(+ 1 (* 2 3))");
    assert_eq!(e("1 - 2 - 3"), "(- (- 1 2) 3)");
    assert_eq!(e("a || b && c"), "(|| a (&& b c))");
    assert_eq!(e("a == b != c"), "(!= (== a b) c)");
    assert_eq!(e("a < b == c >= d"), "(== (< a b) (>= c d))");
    assert_eq!(e("!a && -b > 1 % 2"), "(&& (! a) (> (neg b) (% 1 2)))");
    assert_eq!(e("a ? b : c ? d : e"), "(? a b (? c d e))");
    assert_eq!(e("a || b ? 1 : 2"), "(? (|| a b) 1 2)");
    assert_eq!(e("(1 + 2) * 3"), "(* (paren (+ 1 2)) 3)");
    assert_eq!(e("- - 1"), "(neg (neg 1))");
    assert_eq!(e("a <= b"), "(<= a b)");
    assert_eq!(e("x / 2"), "(/ x 2)");
}

#[test]
fn traversals() {
    assert_eq!(e("var.x"), "(. var x)");
    assert_eq!(e("a.b[0].c"), "(. ([] (. a b) 0) c)");
    assert_eq!(e("a.0"), "([] a 0)");
    assert_eq!(e("a.0.b.12"), "([] (. ([] a 0) b) 12)");
    assert_eq!(
        parse_expression("a.0.1").unwrap_err().message,
        "invalid legacy index `.0.1`: write `[0][1]`"
    );
    assert_eq!(e("a[\"k\"]"), "([] a \"k\")");
    assert_eq!(e("f(1).x"), "(. (call f 1) x)");
    assert_eq!(e("[1, 2][0]"), "([] (tuple 1 2) 0)");
    assert_eq!(e("count.index-1"), "(. count index-1)");
    assert_eq!(e("count.index - 1"), "(- (. count index) 1)");
}

#[test]
fn splats() {
    assert_eq!(e("a[*].id"), "([*] a (. _ id))");
    assert_eq!(e("a[*]"), "([*] a _)");
    assert_eq!(e("a.*.id"), "(.* a (. _ id))");
    assert_eq!(e("a[*].b[0].c"), "([*] a (. ([] (. _ b) 0) c))");
    // an index after an attribute-only splat applies to the result
    assert_eq!(e("a.*.b[0]"), "([] (.* a (. _ b)) 0)");
    assert_eq!(e("a[*].b[*].c"), "([*] ([*] a (. _ b)) (. _ c))");
    assert_eq!(
        e("aws_instance.web[*].id"),
        "([*] (. aws_instance web) (. _ id))"
    );
}

#[test]
fn calls() {
    assert_eq!(e("f()"), "(call f)");
    assert_eq!(e("f(1, 2,)"), "(call f 1 2)");
    assert_eq!(e("f(a...)"), "(call... f a)");
    assert_eq!(e("concat(a, b...)"), "(call... concat a b)");
    assert_eq!(
        e("provider::aws::arn_parse(x)"),
        "(call provider::aws::arn_parse x)"
    );
    assert_eq!(e("f(\n  1,\n  2\n)"), "(call f 1 2)");
    assert!(parse_expression("provider::aws::x").is_err());
}

#[test]
fn tuples() {
    assert_eq!(e("[]"), "(tuple)");
    assert_eq!(e("[1, 2, 3]"), "(tuple 1 2 3)");
    assert_eq!(e("[1,\n 2,\n]"), "(tuple 1 2)");
    assert_eq!(e("[true &&\nfalse]"), "(tuple (&& true false))");
}

#[test]
fn objects() {
    assert_eq!(e("{}"), "(object)");
    assert_eq!(e("{ a = 1, b = 2 }"), "(object (a 1) (b 2))");
    assert_eq!(e("{ a: 1, \"b\": 2 }"), "(object (a 1) (\"b\" 2))");
    assert_eq!(e("{\n  a = 1\n  b = 2\n}"), "(object (a 1) (b 2))");
    assert_eq!(e("{\n  a = 1,\n  b = 2,\n}"), "(object (a 1) (b 2))");
    assert_eq!(e("{ (var.k) = 1 }"), "(object ((paren (. var k)) 1))");
    assert_eq!(e("{ \"${p}-x\" = 1 }"), "(object ((tpl ${p} \"-x\") 1))");
    assert_eq!(e("{ null = 1, true = 2 }"), "(object (null 1) (true 2))");
    assert_eq!(
        e("{ a = { b = [1] } }"),
        "(object (a (object (b (tuple 1)))))"
    );
}

#[test]
fn duplicate_object_keys_are_kept_in_order() {
    assert_eq!(e("{ a = 1, b = 2, a = 3 }"), "(object (a 1) (b 2) (a 3))");
    assert_eq!(
        f("x = jsonencode([{\n  environment = []\n  environment = [{ name = \"A\", value = \"1\" }]\n}])\n"),
        "(attr x (call jsonencode (tuple (object (environment (tuple)) (environment (tuple (object (name \"A\") (value \"1\"))))))))"
    );
}

#[test]
fn for_expressions() {
    assert_eq!(e("[for x in xs : x]"), "(for-tuple x xs x)");
    assert_eq!(
        e("[for i, x in xs : x if i > 0]"),
        "(for-tuple i x xs x if (> i 0))"
    );
    assert_eq!(e("{for k, v in m : k => v}"), "(for-object k v m k => v)");
    assert_eq!(
        e("{for k, v in m : v.g => k... if v.on}"),
        "(for-object k v m (. v g) => k... if (. v on))"
    );
    assert_eq!(
        e("{\n  for k, v in m :\n  k => v\n}"),
        "(for-object k v m k => v)"
    );
}

#[test]
fn multi_line_for_values_issue_7() {
    assert_eq!(
        f("locals {\n  m = { for k in [\"a\"] : k =>\n    true &&\n    false\n  }\n}\n"),
        "(block locals (attr m (for-object k (tuple \"a\") k => (&& true false))))"
    );
    assert_eq!(
        f("locals {\n  y = { for k in [\"a\"] : k =>\n    true\n    ? 1\n    : 2\n  }\n}\n"),
        "(block locals (attr y (for-object k (tuple \"a\") k => (? true 1 2))))"
    );
    assert_eq!(
        f("x = [for k in l :\n  k\n  if k\n  != \"\"\n]\n"),
        "(attr x (for-tuple k l k if (!= k \"\")))"
    );
    // an object inside a `for` value turns newlines back on for its own items
    assert_eq!(
        f("x = { for k in l : k => {\n  a = 1\n  b = 2\n} }\n"),
        "(attr x (for-object k l k => (object (a 1) (b 2))))"
    );
}

#[test]
fn newlines_end_attributes() {
    assert_eq!(f("a = 1\nb = 2\n"), "(attr a 1) (attr b 2)");
    assert_eq!(f("a = 1\r\nb = 2\r\n"), "(attr a 1) (attr b 2)");
    // Terraform rejects a trailing operator at the end of an attribute's line, so do we
    let (msg, line, col) = fail("x = true &&\n  false\n");
    assert_eq!((line, col), (1, 12));
    assert_eq!(
        msg,
        "expected an expression, found newline: an expression continues on the next line only inside parentheses, brackets or a `for` expression"
    );
    let (_, line, _) = fail("x = { a = true\n  ? 1 : 2 }\n");
    assert_eq!(line, 2);
    // inside parentheses newlines are whitespace
    assert_eq!(
        f("x = (true &&\n  false)\n"),
        "(attr x (paren (&& true false)))"
    );
}

#[test]
fn blocks() {
    assert_eq!(
        f("resource \"aws_instance\" \"web\" {\n  ami = \"x\"\n}\n"),
        "(block resource \"aws_instance\" \"web\" (attr ami \"x\"))"
    );
    assert_eq!(f("a b c {\n}\n"), "(block a \"b\" \"c\")");
    assert_eq!(f("a {}\n"), "(block a)");
    assert_eq!(f("a { b = 1 }\n"), "(block a (attr b 1))");
    assert_eq!(
        f("a {\n  b {\n    c = 1\n  }\n  d = 2\n}"),
        "(block a (block b (attr c 1)) (attr d 2))"
    );
    assert_eq!(f(""), "");
    assert_eq!(f("\n\n# only a comment\n"), "");
}

#[test]
fn block_spans_and_labels() {
    let src = "resource \"aws_x\" y {\n  a = 1\n}\n";
    let file = parse(src).unwrap();
    let Item::Block(b) = &file.body.items[0] else {
        panic!()
    };
    assert_eq!(
        &src[b.span.start as usize..b.span.end as usize],
        &src[..src.len() - 1]
    );
    assert_eq!(b.labels[0].name, "aws_x");
    assert_eq!(
        &src[b.labels[0].span.start as usize..b.labels[0].span.end as usize],
        "\"aws_x\""
    );
    assert_eq!(b.labels[1].name, "y");
    let Item::Attribute(a) = &b.body.items[0] else {
        panic!()
    };
    assert_eq!(&src[a.span.start as usize..a.span.end as usize], "a = 1");
    assert_eq!(
        &src[a.value.span.start as usize..a.value.span.end as usize],
        "1"
    );
}

#[test]
fn comments_are_collected() {
    let src = "# one\na = 1 // two\n/* three\n */ b = [ # four\n 1 ]\n";
    let file = parse(src).unwrap();
    let texts: Vec<_> = file.comments.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["one", "two", "three", "four"]);
    let c = &file.comments[1];
    assert_eq!(&src[c.span.start as usize..c.span.end as usize], "// two");
    assert_eq!(sexp::file(&file), "(attr a 1) (attr b (tuple 1))");
}

#[test]
fn unicode_identifiers_bom_crlf() {
    assert_eq!(f("\u{feff}a = 1\n"), "(attr a 1)");
    assert_eq!(f("café = naïve.ü\n"), "(attr café (. naïve ü))");
    assert_eq!(f("名前 = \"値\"\r\n"), "(attr 名前 \"値\")");
    assert_eq!(f("x = <<EOT\r\na\r\nEOT\r\n"), "(attr x \"a\\n\")");
    assert_eq!(f("x = [\r\n  1,\r\n]\r\n"), "(attr x (tuple 1))");
    // a lone carriage return is no whitespace (Terraform: "Invalid character")
    let (msg, l, c) = fail("x = [1]\r y = 2\n");
    assert_eq!(
        msg,
        "expected a newline after the attribute value, found control character \"\\r\""
    );
    assert_eq!((l, c), (1, 8));
    assert!(fail("x = \"a\rb\"\n").0.contains("carriage return"));
    assert!(fail("x = <<EOT\na\rb\nEOT\n").0.contains("carriage return"));
    assert_eq!(f("# a\rb\nx = 1\n"), "(attr x 1)");
}

#[test]
fn tfvars() {
    assert_eq!(
        f("region = \"us-east-1\"\ninstance_types = [\"g5.xlarge\", \"g6.xlarge\"]\ntags = {\n  Team = \"ml\"\n}\n"),
        "(attr region \"us-east-1\") (attr instance_types (tuple \"g5.xlarge\" \"g6.xlarge\")) (attr tags (object (Team \"ml\")))"
    );
}

#[test]
fn error_messages_and_positions() {
    let (msg, l, c) = fail("resource \"a\" \"b\" ]\n");
    assert_eq!(msg, "expected `{` after block labels, found `]`");
    assert_eq!((l, c), (1, 18));
    let (msg, l, c) = fail("a = 1 b = 2\n");
    assert_eq!(
        msg,
        "expected a newline after the attribute value, found `b`"
    );
    assert_eq!((l, c), (1, 7));
    let (msg, _, _) = fail("a {\n  b = 1\n");
    assert_eq!(msg, "expected `}` to close the block, found end of file");
    let (msg, l, c) = fail("x = \"abc\n");
    assert!(msg.starts_with("unterminated string"), "{msg}");
    assert_eq!((l, c), (1, 5));
    let (msg, l, _) = fail("x = <<EOT\nabc\n");
    assert!(msg.starts_with("unterminated heredoc"), "{msg}");
    assert_eq!(l, 1);
    let (msg, _, _) = fail("/* open");
    assert!(msg.starts_with("unterminated comment"), "{msg}");
    let (msg, l, c) = fail("x = { a = 1 b = 2 }\n");
    assert_eq!(
        msg,
        "expected `,`, a newline or `}` after the object item, found `b`"
    );
    assert_eq!((l, c), (1, 13));
    let (msg, _, _) = fail("x = [1 2]\n");
    assert_eq!(msg, "expected `,` or `]` in the tuple, found `2`");
    let (msg, _, _) = fail("x = \n");
    assert_eq!(
        msg,
        "expected an expression, found newline: an expression continues on the next line only inside parentheses, brackets or a `for` expression"
    );
    let (msg, _, _) = fail("a { b {} }\n");
    assert!(msg.contains("single-line block"), "{msg}");
    let (msg, _, _) = fail("a {} b {}\n");
    assert_eq!(
        msg,
        "expected a newline after the block's closing `}`, found `b`"
    );
    let (msg, _, _) = fail("x = {for k in l : k}\n");
    assert!(msg.contains("`=>`"), "{msg}");
    let (msg, _, _) = fail("x = a ? b\n");
    assert!(msg.contains("`:`"), "{msg}");
    let (msg, _, _) = fail("x = \"${a\"\n");
    assert!(msg.contains("interpolation"), "{msg}");
    let (msg, _, _) = fail("resource \"${x}\" {}\n");
    assert!(msg.contains("literal"), "{msg}");
    let (msg, _, _) = fail("@ = 1\n");
    assert_eq!(msg, "expected an attribute name or a block type, found `@`");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for open in [
        "[",
        "(",
        "{a=",
        "f(",
        "\"${",
        "-",
        "!",
        "{for x in y: x => ",
    ] {
        let src = format!("x = {}", open.repeat(100_000));
        let err = parse(&src).unwrap_err();
        assert!(
            err.message.contains("nesting too deep"),
            "{open}: {}",
            err.message
        );
    }
    let blocks = "a {\n".repeat(100_000);
    assert!(parse(&blocks)
        .unwrap_err()
        .message
        .contains("nesting too deep"));
    // (Five thousand: a hundred thousand directives, each a piece the scanner keeps, are refused
    // first by the syntax tree's budget.)
    let tpl = "%{ if x }".repeat(5_000);
    assert!(parse_template(&tpl)
        .unwrap_err()
        .message
        .contains("nesting too deep"));
    // nesting far deeper than any real configuration parses, in any build
    let ok = format!("x = {}1{}\n", "[".repeat(50), "]".repeat(50));
    assert!(parse(&ok).is_ok());
}

#[test]
fn parse_expression_rejects_trailing_text() {
    assert!(parse_expression("1 2").is_err());
    assert_eq!(e("  1  "), "1");
    assert_eq!(e("{\n a = 1\n}"), "(object (a 1))");
}

#[test]
fn line_col_counts_characters() {
    let src = "ab\ncé d";
    assert_eq!(line_col(src, 0), (1, 1));
    assert_eq!(line_col(src, 3), (2, 1));
    assert_eq!(line_col(src, 6), (2, 3));
    assert_eq!(line_col(src, 5), (2, 2)); // inside `é`: the character's column
    assert_eq!(line_col(src, 999), (2, 5));
}

mod json {
    use crate::json::{parse, JsonValue};

    #[test]
    fn a_member_is_the_last_of_its_key() {
        let j = parse(r#"{"a": 1, "b": {"c": true}, "a": "two"}"#).unwrap();
        assert_eq!(
            j.member("a").map(|m| &m.value),
            Some(&JsonValue::String("two".into()))
        );
        let b = j.member("b").unwrap();
        assert_eq!(
            b.member("c").map(|m| &m.value),
            Some(&JsonValue::Bool(true))
        );
        assert!(j.member("c").is_none());
        assert!(parse("[1]").unwrap().member("a").is_none());
    }

    #[test]
    fn values_and_spans() {
        let src = r#"{"a": [1, -2.5e3, true, false, null, "x\n\u00e9\ud83d\ude00"], "a": {}}"#;
        let j = parse(src).unwrap();
        let JsonValue::Object(m) = &j.value else {
            panic!()
        };
        assert_eq!(m.len(), 2, "duplicate keys kept");
        assert_eq!(m[0].key, "a");
        assert_eq!(
            &src[m[0].key_span.start as usize..m[0].key_span.end as usize],
            "\"a\""
        );
        let JsonValue::Array(items) = &m[0].value.value else {
            panic!()
        };
        assert_eq!(items[1].value, JsonValue::Number("-2.5e3".into()));
        assert_eq!(items[5].value, JsonValue::String("x\né😀".into()));
        assert_eq!(
            &src[items[1].span.start as usize..items[1].span.end as usize],
            "-2.5e3"
        );
    }

    #[test]
    fn errors() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "1.",
            "\"abc",
            "tru",
            "{} x",
            "[1 2]",
            "\"\t\"",
            "{a: 1}",
            "\"\\x\"",
            "-",
            "1e",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
        let e = parse("{\n  \"a\": 1,\n  \"b\" 2\n}").unwrap_err();
        assert_eq!(e.message, "expected `:` after the object key, found `2`");
        assert_eq!(
            crate::line_col("{\n  \"a\": 1,\n  \"b\" 2\n}", e.span.start),
            (3, 7)
        );
    }

    #[test]
    fn deep_nesting() {
        assert!(parse(&"[".repeat(100_000))
            .unwrap_err()
            .message
            .contains("nesting too deep"));
        assert!(parse(&"{\"a\":".repeat(100_000))
            .unwrap_err()
            .message
            .contains("nesting too deep"));
    }

    #[test]
    fn bom_and_whitespace() {
        assert_eq!(
            parse("\u{feff} \r\n 1 \n").unwrap().value,
            JsonValue::Number("1".into())
        );
    }
}

/// Found by comparing acceptance with `terraform fmt` on mutated files: Terraform allows
/// spaces and comments around `.` and `::`.
#[test]
fn whitespace_inside_traversals_and_provider_function_names() {
    assert_eq!(e("a. b"), "(. a b)");
    assert_eq!(e("a .b"), "(. a b)");
    assert_eq!(e("a. /* c */ b.c"), "(. (. a b) c)");
    assert_eq!(e("a. *.b"), "(.* a (. _ b))");
    assert_eq!(e("a[*]. b"), "([*] a (. _ b))");
    assert_eq!(e("a[*]. b. *.c"), "(.* ([*] a (. _ b)) (. _ c))");
    assert_eq!(e("provider :: a :: b(1)"), "(call provider::a::b 1)");
    assert_eq!(e("f (1)"), "(call f 1)");
}

/// Terraform's own parser refuses these; so do we, with its reasons.
#[test]
fn body_rules_terraform_enforces_while_parsing() {
    let (msg, l, c) = fail("a {\n  b = 1\n  b = 2\n}\n");
    assert_eq!(
        msg,
        "the argument `b` was already set on line 2; each argument may be set only once"
    );
    assert_eq!((l, c), (3, 3));
    assert!(fail("c = 1\nc = 2\n").0.contains("already set"));
    // blocks may repeat
    assert_eq!(
        f("a {\n  b {}\n  b {}\n}\n"),
        "(block a (block b) (block b))"
    );
    // a multi-line block's items end with a newline, also the last one
    let (msg, l, c) = fail("a {\n  b = 1 }\n");
    assert_eq!(
        msg,
        "expected a newline after the attribute value, found `}`"
    );
    assert_eq!((l, c), (2, 9));
    let (msg, _, _) = fail("a {\n  b {\n  }}\n");
    assert_eq!(
        msg,
        "expected a newline after the block's closing `}`, found `}`"
    );
}

#[test]
fn redefined_arguments_in_large_bodies() {
    let mut text: String = (0..5000).map(|i| format!("v{i} = {i}\n")).collect();
    assert!(parse(&text).is_ok());
    text.push_str("v40 = 1\n");
    let (msg, line, _) = fail(&text);
    assert_eq!(
        msg,
        "the argument `v40` was already set on line 41; each argument may be set only once"
    );
    assert_eq!(line, 5001);
    let (msg, _, _) = fail("a {\n  x = 1\n  b {}\n  x = 2\n}\n");
    assert!(msg.contains("already set on line 2"), "{msg}");
}

#[test]
fn line_col_counts_lines_across_whole_chunks() {
    // Lengths around and across the 64-byte steps of the newline count.
    let mut seed = 7u32;
    for len in 0..300 {
        let text: String = (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                if seed >> 28 == 0 {
                    '\n'
                } else {
                    'x'
                }
            })
            .collect();
        let lines = text.matches('\n').count() as u32 + 1;
        assert_eq!(line_col(&text, len).0, lines, "length {len}");
    }
}

/// A syntax tree takes some tens of times its text when the text is a long run of tiny nodes
/// (`[{a=1},{a=1},...]`): past its budget the file is an error at the place where the budget ran
/// out, before the tree grows further.
#[test]
fn a_dense_file_past_the_tree_budget_is_refused_at_its_place() {
    let text = format!("locals {{\n  x = [{}]\n}}\n", "{a=1},".repeat(2 << 20));
    let (msg, line, col) = fail(&text);
    assert!(
        msg.starts_with("syntax tree over its memory budget (16 MiB plus 6 bytes per byte"),
        "{msg}"
    );
    assert_eq!(line, 2);
    assert!(col > 1000, "{col}");
}

/// The tree's nodes stay small: a bigger `Expr` or `ObjectItem` takes more memory on every
/// file (boxed rare variants keep them so), and moves the budget closer to real code.
#[test]
fn the_syntax_tree_nodes_stay_small() {
    use std::mem::size_of;
    assert!(
        size_of::<crate::Expr>() <= 64,
        "{}",
        size_of::<crate::Expr>()
    );
    assert!(size_of::<crate::ObjectItem>() <= 128);
    assert!(size_of::<crate::TemplatePart>() <= 72);
}
