//! The rules' documentation as Markdown: one page per rule (`docs/rules/GPU101.md`) and an index
//! (`docs/rules/README.md`), written by `scripts/generate.sh` (crates/ecs-gpu-generate), whose
//! check fails when the committed pages differ from these.

use crate::{Rule, RULES};

/// The headings every rule's documentation has, in this order.
pub const HEADINGS: [&str; 4] = [
    "## What it checks",
    "## Why it matters",
    "## Example",
    "## How to fix",
];

/// The command that rewrites `docs/rules/` from the rules (with every other generated file).
pub const REGENERATE: &str = "scripts/generate.sh";

/// Which headings a documentation text lacks or has out of order.
pub fn heading_problems(doc: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut last = 0;
    for h in HEADINGS {
        match doc.lines().position(|l| l.trim_end() == h) {
            None => problems.push(format!("missing heading `{h}`")),
            Some(p) if p < last => problems.push(format!("heading `{h}` out of order")),
            Some(p) => last = p,
        }
    }
    problems
}

/// One rule's page.
pub fn rule_page(rule: &Rule) -> String {
    format!(
        "<!-- Generated from crates/ecs-gpu-rules/src/rules/ by `{REGENERATE}`. Do not edit. -->\n\n# {} `{}`\n\nDefault severity: **{}**. {}.\n\n{}",
        rule.id,
        rule.name,
        rule.severity,
        capitalize(rule.summary),
        rule.doc()
    )
}

/// The index page.
pub fn index_page() -> String {
    let agent = &ecs_gpu_catalog::catalog().agent;
    let (cluster, gpu_support) = (&agent.cluster_variable, &agent.gpu_support_variable);
    let mut s = format!(
        "<!-- Generated from crates/ecs-gpu-rules/src/rules/ by `{REGENERATE}`. Do not edit. -->\n\n# `ecs-gpu check` rules\n\nSuppress a finding with `# ecs-gpu:ignore <ID> <reason>` on the line above it or above its block.\n\nA *GPU task definition* is one whose containers reserve GPUs. *GPU capacity*, which the GPU2xx and GPU3xx rules check, is:\n\n- the capacity providers, Auto Scaling groups and launch templates that a service of a GPU task definition is known to be placed on (through its capacity provider strategy or its cluster's default one);\n- an ECS capacity provider whose group launches NVIDIA GPU instance types (named, or selected by an `override`'s `instance_requirements` known to select only them: allowed types that all have NVIDIA GPUs, or `nvidia` accelerators that are GPUs), with that group and its launch templates; a launch template's own `instance_type` counts only when no `override` replaces it;\n- an ECS Managed Instances capacity provider whose `instance_requirements` select only NVIDIA GPU types (the same reading as an `override`'s); it has no launch template or user data, so the rules about images and user data say nothing of it;\n- a capacity provider, group or fleet whose instance types do not show NVIDIA GPUs (unknown, attribute-based, or a family ECS GPU support does not cover) but that is configured for GPU tasks: its user data sets `{gpu_support}=true`, its image is the ECS GPU-optimized AMI, or its `instance_requirements` ask only for NVIDIA GPUs (`accelerator_manufacturers = [\"nvidia\"]`, or `accelerator_names` that are all NVIDIA GPUs), unless `accelerator_count.max` is 0; never when a type it launches has no GPU. A count of accelerators, even with `accelerator_types = [\"gpu\"]`, is not enough: EC2 counts FPGAs and Inferentia chips as accelerators, and AMD and Habana devices as GPUs;\n- without a capacity provider: an Auto Scaling group, an EC2 Fleet (`aws_ec2_fleet`) or a Spot Fleet request (`aws_spot_fleet_request`), each with its launch templates, or a standalone `aws_instance`, that launches NVIDIA GPU instance types and whose user data configures the ECS agent (assigns `{cluster}` or `{gpu_support}`). A fleet's overrides replace its template's instance type as a group's do (an override that names no type, only a subnet, launches the template's); a Spot Fleet request's one inline `launch_specification` is read like an instance (its image, type, user data and instance profile; it has no metadata options), several are not followed. The image alone is not enough: the ECS GPU-optimized AMI also serves machines that never run the agent. Fleets have no instance refresh: the GPU3xx rules about Auto Scaling groups do not read them.\n\n| ID | name | default severity | finds |\n|---|---|---|---|\n"
    );
    for r in RULES {
        s.push_str(&format!(
            "| [{id}]({id}.md) | `{}` | {} | {} |\n",
            r.name,
            r.severity,
            r.summary,
            id = r.id
        ));
    }
    s
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
