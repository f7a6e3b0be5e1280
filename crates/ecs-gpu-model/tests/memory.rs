//! Evaluation memory is bounded: values are shared, not copied, and what an evaluation builds is
//! charged to a budget (a few lines of `range` and `for` that would build gigabytes). One test in
//! its own binary, so the peak memory it reads is its own.

mod common;

use common::*;
use ecs_gpu_model::LoadNoteKind;

/// Peak resident memory of this process, in bytes (Linux).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

const TEN_MB_LOCALS: &str = r#"
locals {
  a = "xxxxxxxxxx"
  b = join("", [for i in range(1000) : local.a])
  c = join("", [for i in range(1000) : local.b])
"#;

#[test]
fn memory_bombs_stay_within_the_budget() {
    // A list of 1,000 references to one 10 MB string holds the text once (each element copied
    // it before: 10 GB), and `length` of it is known.
    let shared = format!(
        "{TEN_MB_LOCALS}  d = [for i in range(1000) : local.c]\n}}\n\
         resource \"aws_ecs_task_definition\" \"t\" {{\n  count = length(local.d) > 5 ? 1 : 0\n  family = \"x\"\n  container_definitions = \"[]\"\n}}\n"
    );
    let (_d, m) = load(&[("main.tf", &shared)]);
    assert_eq!(
        m.resources
            .iter()
            .filter(|r| r.kind == "aws_ecs_task_definition" && !r.instances_unknown)
            .count(),
        1
    );
    assert!(m.notes.iter().all(|n| n.kind != LoadNoteKind::MemoryBudget));

    // A thousand new 10 MB strings pass the budget: the value is unknown, with one note at the
    // place the budget ran out, and the run ends.
    let built = format!(
        "{TEN_MB_LOCALS}  d = [for i in range(1000) : \"${{local.c}}${{i}}\"]\n}}\n\
         resource \"t\" \"t\" {{\n  x = local.d\n}}\n"
    );
    let (_d, m) = load(&[("main.tf", &built)]);
    let notes: Vec<_> = m
        .notes
        .iter()
        .filter(|n| n.kind == LoadNoteKind::MemoryBudget)
        .collect();
    assert_eq!(notes.len(), 1, "{:?}", m.notes);
    let loc = notes[0].loc.expect("the place");
    let text = std::fs::read_to_string(_d.path().join("main.tf")).unwrap();
    assert!(text[loc.span.start as usize..].starts_with("\"${local.c}${i}\""));
    // Past the budget, what depends on the value is unknown too (never a guess).
    assert!(find(&m, "t", "t").body.attr("x").expect("x").is_unknown());

    // Well under what the copies took (each scenario went past 4 GB).
    assert!(peak_rss() < 1 << 30, "peak memory {} MB", peak_rss() >> 20);
}
