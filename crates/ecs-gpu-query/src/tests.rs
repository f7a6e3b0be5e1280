use super::*;
use ecs_gpu_catalog::catalog;

fn parse(s: &str) -> Expression {
    Expression::parse(s).unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
}

fn err(s: &str) -> ParseError {
    match Expression::parse(s) {
        Ok(e) => panic!("{s:?} should not parse, got {:?}", e.root()),
        Err(e) => e,
    }
}

fn instance(attrs: &[(&str, &str)]) -> ContainerInstance {
    ContainerInstance {
        attributes: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), Some(v.to_string())))
            .collect(),
        ..ContainerInstance::default()
    }
}

fn eval_on(s: &str, i: &ContainerInstance) -> Truth {
    parse(s).evaluate(i)
}

fn types(s: &str, candidates: &[&str]) -> Vec<Truth> {
    matching_instance_types(&parse(s), candidates)
        .into_iter()
        .map(|m| m.result)
        .collect()
}

// ---- the examples of the facts file (§6) and the catalog ----

#[test]
fn facts_file_examples_parse_and_evaluate() {
    let g4 = instance(&[
        ("ecs.instance-type", "g4dn.xlarge"),
        ("ecs.availability-zone", "us-east-1a"),
    ]);
    assert_eq!(
        eval_on("attribute:ecs.instance-type == g4dn.xlarge", &g4),
        Truth::True
    );
    let e = "attribute:ecs.instance-type =~ g2.* and attribute:ecs.availability-zone != us-east-1d";
    assert_eq!(eval_on(e, &g4), Truth::False);
    let g2 = instance(&[
        ("ecs.instance-type", "g2.2xlarge"),
        ("ecs.availability-zone", "us-east-1a"),
    ]);
    assert_eq!(eval_on(e, &g2), Truth::True);
    let g2d = instance(&[
        ("ecs.instance-type", "g2.2xlarge"),
        ("ecs.availability-zone", "us-east-1d"),
    ]);
    assert_eq!(eval_on(e, &g2d), Truth::False);
    let e = "attribute:ecs.availability-zone in [us-east-1a, us-east-1b]";
    assert_eq!(eval_on(e, &g4), Truth::True);
    assert_eq!(eval_on(e, &g2d), Truth::False);
}

#[test]
fn catalog_example_parses_after_its_constraint_type() {
    let ex = &catalog().query_language.example;
    let expr = ex
        .strip_prefix("memberOf")
        .expect("example starts with memberOf");
    let e = parse(expr.trim());
    assert!(e.mentions_attribute(INSTANCE_TYPE_ATTRIBUTE));
}

#[test]
fn guide_examples_parse() {
    for s in [
        "attribute:ecs.instance-type == t2.small",
        "attribute:ecs.availability-zone in [us-east-1a, us-east-1b]",
        "task:group == service:production",
        "not(task:group == database)",
        "runningTasksCount == 1",
        "ec2InstanceId in ['i-abcd1234', 'i-wxyx7890']",
        "attribute:ecs.instance-type =~ t2.* and attribute:ecs.availability-zone != us-east-1d",
        "attribute:stack exists",
        "attribute:stack !exists",
        "attribute:stack not_exists",
        "agentConnected == false",
        "agentVersion >= 1.30.0",
        "agentVersion greater_than_equal 1.30.0",
        "registeredAt < 2018-06-18T22:28:28+00:00",
        "(attribute:a == 1 or attribute:b == 2) and attribute:c != 3",
        "attribute:ecs.os-type == linux && !(attribute:ecs.cpu-architecture == arm64)",
        "attribute:x equals y || attribute:x not_equals z",
        "attribute:ecs.instance-type matches g5\\..* AND attribute:x not_matches y",
        "attribute:ecs.instance-type !in [g5.xlarge]",
        "attribute:ecs.instance-type not_in [g5.xlarge,g6.xlarge]",
        "attribute:ecs.instance-type=~(g4dn|g5).*",
        "(attribute:ecs.instance-type =~ (g4dn|g5).*)",
        "  attribute:ecs.instance-type == \"g5.xlarge\"  ",
    ] {
        parse(s);
    }
}

// ---- the tree ----

#[test]
fn tree_has_typed_subjects_operators_and_arguments() {
    let e = parse("attribute:ecs.instance-type in [g5.xlarge, 'g6.xlarge']");
    let Expr::Condition(c) = e.root() else {
        panic!("a condition")
    };
    assert_eq!(c.subject, Subject::Attribute("ecs.instance-type".into()));
    assert_eq!(c.operator, Operator::In);
    let values: Vec<&str> = c
        .argument
        .values()
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(values, ["g5.xlarge", "g6.xlarge"]);
    assert_eq!(c.subject_span, Span::new(0, 27));
    assert_eq!(c.span, Span::new(0, e.text().len()));
}

#[test]
fn word_operators_map_to_their_symbols() {
    for (word, op) in [
        ("equals", Operator::Eq),
        ("not_equals", Operator::NotEq),
        ("matches", Operator::Matches),
        ("not_matches", Operator::NotMatches),
        ("not_in", Operator::NotIn),
        ("greater_than", Operator::Gt),
        ("less_than_equal", Operator::Le),
    ] {
        let e = parse(&format!("attribute:x {word} [a]"));
        assert_eq!(e.conditions()[0].operator, op, "{word}");
    }
    assert_eq!(
        parse("attribute:x not_exists").conditions()[0].operator,
        Operator::NotExists
    );
}

#[test]
fn and_binds_tighter_than_or_and_not_tightest() {
    let e = parse("attribute:a == 1 or attribute:b == 2 and attribute:c == 3");
    let Expr::Binary {
        op: BoolOp::Or,
        right,
        ..
    } = e.root()
    else {
        panic!("or at the top: {:?}", e.root())
    };
    assert!(matches!(
        **right,
        Expr::Binary {
            op: BoolOp::And,
            ..
        }
    ));
    assert!(e.ambiguous_precedence());

    let e = parse("not attribute:a == 1 and attribute:b == 2");
    assert!(matches!(
        e.root(),
        Expr::Binary {
            op: BoolOp::And,
            ..
        }
    ));
    assert!(!e.ambiguous_precedence());
    assert!(
        !parse("(attribute:a == 1 or attribute:b == 2) and attribute:c == 3")
            .ambiguous_precedence()
    );
    assert!(
        !parse("attribute:a == 1 and attribute:b == 2 and attribute:c == 3").ambiguous_precedence()
    );
}

#[test]
fn keywords_are_case_insensitive() {
    parse("attribute:a == 1 AND attribute:b EQUALS 2 Or NOT attribute:c EXISTS");
}

#[test]
fn regex_with_parentheses_is_one_argument() {
    let e = parse("(attribute:ecs.instance-type =~ (g4dn|g5)\\..*) and attribute:b exists");
    let c = e.conditions()[0];
    assert_eq!(c.argument.values()[0].text, "(g4dn|g5)\\..*");
}

// ---- errors: position and what was expected ----

#[test]
fn errors_say_where_and_what_was_expected() {
    let e = err("attribute:ecs.instance-type = g5.xlarge");
    assert_eq!(e.column, 29);
    assert!(e.expected.starts_with("an operator"), "{e}");
    assert_eq!(e.found.as_deref(), Some("="));

    let e = err("instance-type == g5.xlarge");
    assert_eq!(e.column, 1);
    assert!(e.expected.starts_with("a subject"), "{e}");
    assert!(e.expected.contains("`attribute:<name>`"), "{e}");

    let e = err("attribute:ecs.instance-type ==");
    assert_eq!(e.expected, "an argument");
    assert_eq!(e.found, None);
    assert!(
        e.to_string().contains("found the end of the expression"),
        "{e}"
    );

    let e = err("(attribute:a == 1");
    assert!(e.expected.starts_with("`)`"), "{e}");

    let e = err("attribute:a == 1)");
    assert!(e.expected.contains("has no `(`"), "{e}");

    let e = err("attribute:a == 1 attribute:b == 2");
    assert!(e.expected.contains("`&&`"), "{e}");
    assert_eq!(e.found.as_deref(), Some("attribute:b"));

    let e = err("attribute:a in [x, y");
    assert_eq!(e.expected, "`,` or `]`");

    let e = err("attribute:a in []");
    assert_eq!(e.expected, "a value in the list");

    let e = err("attribute: == x");
    assert!(e.expected.starts_with("an attribute name"), "{e}");
    assert_eq!(e.column, 11);

    let e = err("attribute:a == 'x");
    assert_eq!(e.expected, "a closing `'`");

    for empty in ["", "   ", "()", "not", "attribute:a == 1 and"] {
        err(empty);
    }
}

#[test]
fn error_columns_count_characters() {
    let e = err("attribute:a == é x");
    assert_eq!(e.column, 18);
}

#[test]
fn distinct_instance_is_not_an_expression() {
    // `distinctInstance` is a constraint type; as an expression it is no subject.
    err("distinctInstance");
}

// ---- evaluation on a fully known instance ----

#[test]
fn comparison_operators_on_a_known_instance() {
    let i = instance(&[("ecs.instance-type", "g5.xlarge"), ("n", "10")]);
    let cases = [
        ("attribute:ecs.instance-type == g5.xlarge", Truth::True),
        (
            "attribute:ecs.instance-type equals g5.2xlarge",
            Truth::False,
        ),
        ("attribute:ecs.instance-type != g5.2xlarge", Truth::True),
        (
            "attribute:ecs.instance-type in [g4dn.xlarge, g5.xlarge]",
            Truth::True,
        ),
        (
            "attribute:ecs.instance-type !in [g4dn.xlarge, g5.xlarge]",
            Truth::False,
        ),
        ("attribute:ecs.instance-type =~ g5\\..*", Truth::True),
        // Java matches the whole string: `g5` alone does not match `g5.xlarge`.
        ("attribute:ecs.instance-type =~ g5", Truth::False),
        ("attribute:ecs.instance-type !~ g5", Truth::True),
        ("attribute:ecs.instance-type exists", Truth::True),
        ("attribute:other exists", Truth::False),
        ("attribute:other !exists", Truth::True),
        ("attribute:other == x", Truth::False),
        ("attribute:other != x", Truth::True),
        ("attribute:n > 9", Truth::True),
        ("attribute:n >= 10", Truth::True),
        ("attribute:n < 10", Truth::False),
        ("attribute:n <= 9.5", Truth::False),
        // Attribute values that are not numbers have no documented order.
        ("attribute:ecs.instance-type > a", Truth::Unknown),
    ];
    for (s, want) in cases {
        assert_eq!(eval_on(s, &i), want, "{s}");
    }
}

#[test]
fn fixed_subjects_on_a_known_instance() {
    let i = ContainerInstance {
        ec2_instance_id: Some("i-abcd1234".into()),
        agent_connected: Some(true),
        agent_version: Some("1.82.0".into()),
        running_tasks_count: Some(2),
        registered_at: Some("2018-06-18T22:28:28Z".into()),
        task_groups: vec!["service:production".into(), "family:web".into()],
        ..ContainerInstance::default()
    };
    let cases = [
        ("ec2InstanceId in ['i-abcd1234', 'i-wxyx7890']", Truth::True),
        ("ec2InstanceId =~ i-.*", Truth::True),
        ("agentConnected == true", Truth::True),
        ("agentConnected == false", Truth::False),
        ("agentVersion >= 1.9.0", Truth::True),
        ("agentVersion < 1.100", Truth::True),
        ("agentVersion == 1.82.0", Truth::True),
        ("runningTasksCount > 1", Truth::True),
        ("runningTasksCount == 0", Truth::False),
        ("registeredAt < 2018-06-19", Truth::True),
        ("registeredAt >= 2018-06-18T22:28:28+00:00", Truth::True),
        ("registeredAt > 2018-06-18T23:00:00+01:00", Truth::True),
        ("task:group == service:production", Truth::True),
        ("not(task:group == database)", Truth::True),
        ("task:group != family:web", Truth::False),
        ("task:group exists", Truth::True),
    ];
    for (s, want) in cases {
        assert_eq!(eval_on(s, &i), want, "{s}");
    }
    let empty = ContainerInstance::default();
    assert_eq!(eval_on("task:group exists", &empty), Truth::False);
    assert_eq!(eval_on("task:group != x", &empty), Truth::True);
}

#[test]
fn registered_at_formats() {
    let day = parse_instant("2018-06-18").unwrap();
    assert_eq!(parse_instant("2018-06-18T00:00:00"), Some(day));
    assert_eq!(parse_instant("2018-06-18T00:00:00Z"), Some(day));
    assert_eq!(parse_instant("2018-06-18T02:00:00+02:00"), Some(day));
    assert_eq!(parse_instant("1970-01-01"), Some(0));
    assert_eq!(parse_instant("2000-03-01"), Some(951_868_800));
    assert_eq!(parse_instant("yesterday"), None);
    assert_eq!(parse_instant("2018-13-01"), None);
}

// ---- three-valued logic ----

#[test]
fn kleene_tables() {
    use Truth::*;
    assert_eq!(False.and(Unknown), False);
    assert_eq!(True.and(Unknown), Unknown);
    assert_eq!(True.or(Unknown), True);
    assert_eq!(False.or(Unknown), Unknown);
    assert_eq!(Unknown.not(), Unknown);
}

#[test]
fn unknown_subjects_only_decide_when_they_could() {
    let nothing = |_: &Subject| Fact::Unknown;
    assert_eq!(parse("attribute:a == 1").evaluate(&nothing), Truth::Unknown);
    let i = InstanceTypeFacts {
        instance_type: "g5.xlarge",
    };
    let cases = [
        (
            "attribute:ecs.instance-type == g4dn.xlarge and attribute:zone == a",
            Truth::False,
        ),
        (
            "attribute:ecs.instance-type == g5.xlarge and attribute:zone == a",
            Truth::Unknown,
        ),
        (
            "attribute:ecs.instance-type == g5.xlarge or attribute:zone == a",
            Truth::True,
        ),
        (
            "attribute:ecs.instance-type == g4dn.xlarge or attribute:zone == a",
            Truth::Unknown,
        ),
        (
            "not (attribute:ecs.instance-type == g4dn.xlarge or attribute:zone == a)",
            Truth::Unknown,
        ),
        ("attribute:zone exists", Truth::Unknown),
        ("runningTasksCount == 0", Truth::Unknown),
    ];
    for (s, want) in cases {
        assert_eq!(parse(s).evaluate(&i), want, "{s}");
    }
}

#[test]
fn ambiguous_precedence_is_known_only_when_both_readings_agree() {
    // a || b && c with a = false, b = true, c = false: Java reading false || (true && false) = false,
    // the other reading (false || true) && false = false: both false.
    let s = "attribute:ecs.instance-type == p5.48xlarge or attribute:ecs.instance-type == g5.xlarge and attribute:ecs.cpu-architecture == arm64";
    assert_eq!(types(s, &["g5.xlarge"]), [Truth::False]);
    // a = true, c = false: Java reading true, the other false: unknown.
    let s = "attribute:ecs.instance-type == g5.xlarge or attribute:ecs.instance-type == g6.xlarge and attribute:ecs.cpu-architecture == arm64";
    assert_eq!(types(s, &["g5.xlarge"]), [Truth::Unknown]);
}

#[test]
fn java_only_regex_is_unknown_not_false() {
    // Look-ahead is Java syntax the regex crate does not have: no claim either way.
    assert_eq!(
        types(
            "attribute:ecs.instance-type =~ (?!g5).*",
            &["g5.xlarge", "g6.xlarge"]
        ),
        [Truth::Unknown, Truth::Unknown]
    );
    assert!(whole_match_regex("g5.*").is_some());
}

// ---- matching_instance_types (rule GPU401) ----

#[test]
fn matching_instance_types_on_instance_type_expressions() {
    let c = ["g5.xlarge", "g5.2xlarge"];
    assert_eq!(
        types("attribute:ecs.instance-type == g4dn.xlarge", &c),
        [Truth::False, Truth::False]
    );
    assert_eq!(
        types("attribute:ecs.instance-type == g5.2xlarge", &c),
        [Truth::False, Truth::True]
    );
    assert_eq!(
        types("attribute:ecs.instance-type =~ g5.*", &c),
        [Truth::True, Truth::True]
    );
    assert_eq!(
        types("attribute:ecs.instance-type =~ g5", &c),
        [Truth::False, Truth::False]
    );
    assert_eq!(
        types(
            "attribute:ecs.instance-type in [g6.xlarge, p5.48xlarge]",
            &c
        ),
        [Truth::False, Truth::False]
    );
    assert_eq!(
        types("attribute:ecs.instance-type != g5.xlarge", &c),
        [Truth::False, Truth::True]
    );
    assert!(matches_none(
        &parse("attribute:ecs.instance-type == g4dn.xlarge"),
        &c
    ));
    assert!(!matches_none(
        &parse("attribute:ecs.instance-type == g5.xlarge"),
        &c
    ));
    assert!(!matches_none(
        &parse("attribute:ecs.instance-type == g4dn.xlarge"),
        &[]
    ));
}

#[test]
fn matching_instance_types_knows_architecture_not_os() {
    // The AMI decides the operating system: any type may run Windows (for CPU tasks).
    assert_eq!(
        types(
            "attribute:ecs.os-type == windows",
            &["g5.xlarge", "m5.large"]
        ),
        [Truth::Unknown, Truth::Unknown]
    );
    assert_eq!(
        types(
            "attribute:ecs.cpu-architecture == arm64",
            &["g5.xlarge", "g5g.xlarge"]
        ),
        [Truth::False, Truth::True]
    );
    // A type the catalog does not know: its architecture is unknown.
    assert_eq!(
        types("attribute:ecs.cpu-architecture == arm64", &["m7i.large"]),
        [Truth::Unknown]
    );
    // Anything else is unknown, so the expression never rules a type out on it.
    assert_eq!(
        types(
            "attribute:ecs.availability-zone == us-east-1a",
            &["g5.xlarge"]
        ),
        [Truth::Unknown]
    );
    assert_eq!(
        types(
            "ec2InstanceId == i-1 or attribute:ecs.instance-type == g4dn.xlarge",
            &["g5.xlarge"]
        ),
        [Truth::Unknown]
    );
}

// ---- vocabulary drift against the catalog ----

#[test]
fn every_catalog_operator_and_word_is_understood() {
    let facts = &catalog().query_language;
    for sym in &facts.operators {
        let op = Operator::from_symbol(sym).unwrap_or_else(|| panic!("operator {sym} unknown"));
        let arg = if op.is_unary() { "" } else { " [x]" };
        parse(&format!("attribute:a {sym}{arg}"));
    }
    for (word, sym) in &facts.operator_words {
        assert!(Operator::from_symbol(sym).is_some(), "{word} -> {sym}");
        let op = Operator::from_symbol(sym).unwrap();
        let arg = if op.is_unary() { "" } else { " [x]" };
        assert_eq!(
            parse(&format!("attribute:a {word}{arg}")).conditions()[0].operator,
            op
        );
    }
    for (word, sym) in ORDERING_OPERATOR_WORDS {
        if let Some(catalog_sym) = facts.operator_words.get(word) {
            assert_eq!(catalog_sym, sym, "the catalog maps {word} differently");
        }
    }
    for (word, sym) in &facts.boolean_words {
        assert!(facts.boolean.contains(sym), "{word} -> {sym}");
    }
}

#[test]
fn every_catalog_subject_is_understood() {
    for s in &catalog().query_language.subjects {
        let written = s.replace("<name>", "x");
        let e = parse(&format!("{written} exists"));
        assert!(
            !matches!(e.conditions()[0].subject, Subject::Other(_)),
            "subject {s} has no semantics"
        );
    }
}

#[test]
fn attribute_constants_are_catalog_builtins() {
    let b = &catalog().query_language.builtin_attributes;
    for a in [
        INSTANCE_TYPE_ATTRIBUTE,
        OS_TYPE_ATTRIBUTE,
        CPU_ARCHITECTURE_ATTRIBUTE,
    ] {
        assert!(
            b.iter().any(|x| x == a),
            "{a} is not a catalog builtin attribute"
        );
    }
}

#[test]
fn never_panics_on_odd_input() {
    for s in [
        "(((((",
        ")))))",
        "[",
        "]",
        "!!!!",
        "attribute:a in [",
        "attribute:a == (",
        "'",
        "\"",
        "attribute:a =~ )",
        "not not not",
        "é",
        "attribute:a == x &&& attribute:b == y",
        "attribute:a == x ||",
        "attribute:\u{0}",
        "task:group",
        "task:groupx == 1",
    ] {
        let _ = Expression::parse(s);
    }
    // Deep, but within what the parser reads (deeper: `deep_nesting_is_refused_as_too_deep...`).
    let deep = format!("{}attribute:a == 1{}", "(".repeat(120), ")".repeat(120));
    parse(&deep);
}

/// A small deterministic fuzz: random token soups must never panic, and whatever parses must
/// evaluate (with and without known facts) without panicking, with `!e` always the negation of `e`.
#[test]
fn random_token_soups_never_panic_and_negation_is_consistent() {
    const TOKENS: [&str; 34] = [
        "attribute:ecs.instance-type",
        "attribute:x",
        "task:group",
        "runningTasksCount",
        "agentVersion",
        "registeredAt",
        "==",
        "!=",
        "=~",
        "!~",
        ">",
        ">=",
        "<",
        "<=",
        "exists",
        "!exists",
        "in",
        "!in",
        "not_in",
        "and",
        "or",
        "not",
        "&&",
        "||",
        "!",
        "(",
        ")",
        "[",
        "]",
        ",",
        "g5.xlarge",
        "g5.*",
        "'a b'",
        "(g4dn|g5).*",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let facts = InstanceTypeFacts {
        instance_type: "g5.xlarge",
    };
    let mut parsed = 0;
    for _ in 0..20_000 {
        let len = 1 + (next() % 9) as usize;
        let text: Vec<&str> = (0..len)
            .map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize])
            .collect();
        let text = text.join(if next() % 3 == 0 { "" } else { " " });
        if let Ok(e) = Expression::parse(&text) {
            parsed += 1;
            let t = e.evaluate(&facts);
            let negated = Expression::parse(&format!("!( {text} )")).expect("negation parses");
            assert_eq!(negated.evaluate(&facts), t.not(), "{text}");
            let _ = e.evaluate(&ContainerInstance::default());
        }
    }
    assert!(parsed > 100, "only {parsed} soups parsed");
}

// ---- cases from `ecs-gpu diagnose`'s former parser (merged here) ----

fn known_instance() -> ContainerInstance {
    let mut i = ContainerInstance {
        ec2_instance_id: Some("i-0123".into()),
        agent_connected: Some(true),
        agent_version: Some("1.80.0".into()),
        running_tasks_count: Some(2),
        registered_at: Some("2026-01-02T03:04:05+00:00".into()),
        task_groups: vec!["service:train".into()],
        ..ContainerInstance::default()
    };
    for (k, v) in [
        ("ecs.instance-type", Some("g5.xlarge")),
        ("ecs.availability-zone", Some("us-east-1a")),
        ("ecs.capability.nvidia-driver-version.580.159.03", None),
        ("team", Some("ml")),
    ] {
        i.attributes.insert(k.into(), v.map(String::from));
    }
    i
}

#[test]
fn diagnose_cases_evaluate_as_before() {
    let i = known_instance();
    let cases = [
        ("attribute:ecs.instance-type == g5.xlarge", Truth::True),
        ("attribute:ecs.instance-type == g5.xlarg", Truth::False),
        (
            "attribute:ecs.instance-type not_equals g6.xlarge",
            Truth::True,
        ),
        // Glued operators, as people type them.
        ("attribute:ecs.instance-type==g5.xlarge", Truth::True),
        (
            "attribute:ecs.availability-zone in [us-east-1c]",
            Truth::False,
        ),
        (
            "attribute:ecs.availability-zone not_in [us-east-1c,us-east-1d]",
            Truth::True,
        ),
        ("attribute:ecs.instance-type =~ (g5|g6)\\..*", Truth::True),
        ("attribute:ecs.instance-type =~ g6.*", Truth::False),
        ("attribute:ecs.instance-type matches g5\\.x.*", Truth::True),
        ("attribute:ecs.instance-type not_matches p.*", Truth::True),
        // A name-only attribute exists.
        (
            "attribute:ecs.capability.nvidia-driver-version.580.159.03 exists",
            Truth::True,
        ),
        ("attribute:gpu not_exists", Truth::True),
        ("attribute:gpu == yes", Truth::False),
        ("!(attribute:team == x)", Truth::True),
        ("not attribute:team == x", Truth::True),
        (
            "not (attribute:team == ml && attribute:team exists)",
            Truth::False,
        ),
        (
            "(attribute:ecs.instance-type =~ (g5|g6).*) && (attribute:team in [ml])",
            Truth::True,
        ),
        ("ec2InstanceId == i-0123", Truth::True),
        ("agentVersion >= 1.79.2", Truth::True),
        ("agentVersion > 1.100.0", Truth::False),
        // Versions order part by part, a missing part being 0 (`==` stays text equality).
        ("agentVersion <= 1.80", Truth::True),
        ("agentVersion >= 1.80", Truth::True),
        ("agentVersion == 1.80", Truth::False),
        ("runningTasksCount < 3", Truth::True),
        ("runningTasksCount <= 2", Truth::True),
        ("runningTasksCount > 2", Truth::False),
        ("registeredAt > 2025-12-31", Truth::True),
        ("registeredAt < 2026-01-02T04:00:00+01:00", Truth::False),
        ("task:group == service:train", Truth::True),
        ("task:group =~ service:web.*", Truth::False),
    ];
    for (s, want) in cases {
        assert_eq!(eval_on(s, &i), want, "{s}");
    }
}

#[test]
fn evaluate_with_a_chosen_precedence() {
    let i = known_instance();
    // false || (true && true) with && first; (false || true) && true with || first: both true.
    let e = parse("attribute:team == x or attribute:team == ml and agentConnected == true");
    assert_eq!(e.evaluate(&i), Truth::True);
    // true || (true && false) = true with && first; (true || true) && false = false with || first.
    let e = parse("attribute:team == ml or attribute:team == ml and agentConnected == false");
    assert_eq!(e.evaluate(&i), Truth::Unknown);
    assert_eq!(e.evaluate_with(Precedence::AndFirst, &i), Truth::True);
    assert_eq!(e.evaluate_with(Precedence::OrFirst, &i), Truth::False);
    // Not mixed: one tree, whatever the precedence.
    let e = parse("(attribute:team == x or attribute:team == ml) and agentConnected == false");
    assert_eq!(e.evaluate_with(Precedence::OrFirst, &i), Truth::False);
    assert_eq!(e.evaluate_with(Precedence::AndFirst, &i), Truth::False);
}

#[test]
fn diagnose_parse_errors_still_say_where() {
    for (s, column, expected) in [
        ("", 1, "a condition"),
        ("attribute:ecs.instance-type", 28, "an operator"),
        ("attribute:ecs.instance-type ~= g5.*", 29, "an operator"),
        ("instance-type == g5.xlarge", 1, "a subject"),
        ("attribute:a in [x", 18, "`,` or `]`"),
        ("(attribute:a exists", 20, "`)`"),
        ("attribute:a == x y", 18, "`&&`"),
        ("attribute:a ==", 15, "an argument"),
    ] {
        let e = err(s);
        assert_eq!(e.column, column, "{s}: {e}");
        assert!(e.expected.starts_with(expected), "{s}: {e}");
    }
}

#[test]
fn conditions_display_in_normal_form() {
    let show = |s: &str| parse(s).conditions()[0].to_string();
    assert_eq!(
        show("attribute:ecs.instance-type == g5.xlarg"),
        "attribute:ecs.instance-type == g5.xlarg"
    );
    assert_eq!(show("attribute:a   equals  x"), "attribute:a == x");
    assert_eq!(show("attribute:a not_in [x,y]"), "attribute:a !in [x, y]");
    assert_eq!(show("attribute:a in x"), "attribute:a in x");
    assert_eq!(show("attribute:a not_exists"), "attribute:a !exists");
    assert_eq!(show("ATTRIBUTE:a EXISTS"), "attribute:a exists");
    assert_eq!(show("TASK:GROUP == x"), "task:group == x");
    assert_eq!(show("attribute:a =~ (g5|g6).*"), "attribute:a =~ (g5|g6).*");
    assert_eq!(show("attribute:a == 'x y'"), "attribute:a == 'x y'");
    assert_eq!(show("attribute:a == \"it's\""), "attribute:a == \"it's\"");
    assert_eq!(show("attribute:a in ['', b]"), "attribute:a in ['', b]");
    assert_eq!(show("attribute:a == 'x)'"), "attribute:a == 'x)'");
    // The normal form reads back as the same condition.
    for s in [
        "attribute:a not_in ['x, y', z]",
        "ec2InstanceId in ['i-abcd1234', 'i-wxyx7890']",
        "attribute:a == \"it's\"",
        "registeredAt less_than 2018-06-18",
        "attribute:a == 'x)'",
        "attribute:a =~ '(a|b'",
    ] {
        let c = parse(s).conditions()[0].clone();
        let again = parse(&c.to_string()).conditions()[0].clone();
        assert_eq!(
            (
                &again.subject,
                again.operator,
                again.argument.values().len()
            ),
            (&c.subject, c.operator, c.argument.values().len()),
            "{s}"
        );
        let texts = |c: &Condition| -> Vec<String> {
            c.argument.values().iter().map(|l| l.text.clone()).collect()
        };
        assert_eq!(texts(&again), texts(&c), "{s}");
    }
}

#[test]
fn format_instant_reads_back() {
    assert_eq!(format_instant(0), "1970-01-01T00:00:00Z");
    assert_eq!(format_instant(951_868_800), "2000-03-01T00:00:00Z");
    assert_eq!(format_instant(-1), "1969-12-31T23:59:59Z");
    for secs in [
        0,
        1,
        -86_401,
        951_868_799,
        1_529_360_908,
        1_767_323_045,
        4_102_444_800,
    ] {
        assert_eq!(parse_instant(&format_instant(secs)), Some(secs), "{secs}");
    }
}

/// Nesting deeper than the parser reads is refused as too deep (not as invalid), at any depth,
/// without exhausting the stack; the deepest nesting read still parses.
#[test]
fn deep_nesting_is_refused_as_too_deep_not_a_stack_overflow() {
    let cond = "attribute:ecs.instance-type == g5.xlarge";
    let nested = |n: usize| format!("{}{cond}{}", "(".repeat(n), ")".repeat(n));
    let negated = |n: usize| format!("{}{cond}", "not ".repeat(n));
    assert!(Expression::parse(&nested(MAX_NESTING - 1)).is_ok());
    assert!(Expression::parse(&negated(MAX_NESTING - 1)).is_ok());
    for n in [MAX_NESTING, 5_000, 200_000] {
        for text in [nested(n), negated(n)] {
            let e = Expression::parse(&text).unwrap_err();
            assert!(e.too_deep, "{n}: {e}");
        }
    }
    // Other syntax errors are not "too deep".
    assert!(!err("attribute:ecs.instance-type ==").too_deep);
}

#[test]
fn unspaced_symbol_operators_are_found() {
    for text in [
        "attribute:a == x||attribute:b == y",
        "attribute:a==x&&attribute:b==y",
        "attribute:a == x&& attribute:b == y",
        "attribute:a == x &&attribute:b == y",
        "||attribute:a == x",
    ] {
        assert!(has_unspaced_symbol_operator(text), "{text}");
    }
    for text in [
        "attribute:a == x || attribute:b == y",
        "attribute:a == x && attribute:b == y",
        "attribute:a == x and attribute:b == y",
        "attribute:ecs.instance-type =~ g5.*",
    ] {
        assert!(!has_unspaced_symbol_operator(text), "{text}");
    }
}
