use ecs_gpu_model::{Model, Node, Value};

use crate::capacity::GPU_CAPACITY;
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// The `instance_refresh` of Auto Scaling groups of GPU capacity whose effective instance warmup is
    /// under 300 seconds: `preferences.instance_warmup` when set; otherwise AWS falls back to the
    /// group's `default_instance_warmup`, then to its `health_check_grace_period` (whose provider
    /// default is 300). So an absent `instance_warmup` is reported only when that fallback is known
    /// and under 300. Unknown values are not reported, nor is a negative `default_instance_warmup`
    /// (AWS reads -1 as "no default warmup", not as a warmup).
    ///
    /// ## Why it matters
    ///
    /// A GPU instance needs minutes before it can run tasks: boot, NVIDIA driver and persistence
    /// daemon, ECS agent registration, then pulling multi-gigabyte CUDA images. A short warmup lets the
    /// refresh replace the next batch before the new instances serve, so GPU capacity drops during
    /// every refresh.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// instance_refresh {
    ///   strategy = "Rolling"
    ///   preferences {
    ///     instance_warmup = 60
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Set `instance_warmup` to at least 300 seconds (more with large images).
    pub static RULE = {
        id: "GPU304",
        name: "instance-warmup-too-short",
        severity: Warning,
        summary: "the instance refresh of GPU capacity has a warmup under 300 seconds",
        reads: {
            arguments: {
                "aws_autoscaling_group": [
                    "default_instance_warmup",
                    "health_check_grace_period",
                    "instance_refresh",
                ],
            },
            analyses: [GPU_CAPACITY],
        },
        check: check,
    }
}

/// Warmup below which the rule fires, in seconds.
const MIN_WARMUP: f64 = 300.0;

fn seconds(n: &Node) -> Option<f64> {
    match &n.value {
        Value::Number(x) => Some(*x),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (group, reason) in &report.gpu_capacity().groups {
        let body = &group.group.body;
        if body.may_have_unknown("instance_refresh") {
            continue;
        }
        let Some(refresh) = body.block("instance_refresh") else {
            continue;
        };
        if refresh.body.may_have_unknown("preferences") {
            continue;
        }
        let prefs = refresh.body.block("preferences");
        let warmup = prefs.and_then(|p| p.body.attr("instance_warmup"));
        let (value, at, what) = match warmup {
            Some(n) => match seconds(n) {
                Some(v) => (v, n.loc, "`instance_warmup`".to_string()),
                None => continue,
            },
            None => match body.attr("default_instance_warmup") {
                // A negative value is no warmup: AWS takes -1 as "remove the default", and what
                // the refresh then falls back to is not this attribute.
                Some(n) => match seconds(n).filter(|v| *v >= 0.0) {
                    Some(v) => (
                        v,
                        n.loc,
                        "`default_instance_warmup`, which the refresh falls back to,".to_string(),
                    ),
                    None => continue,
                },
                None => match body.attr("health_check_grace_period") {
                    Some(n) => match seconds(n) {
                        Some(v) => (
                            v,
                            n.loc,
                            "`health_check_grace_period`, which the refresh falls back to,"
                                .to_string(),
                        ),
                        None => continue,
                    },
                    // The AWS provider's default (catalog: source key TF-AWS).
                    None => (
                        f64::from(
                            ecs_gpu_catalog::catalog()
                                .autoscaling
                                .health_check_grace_period_provider_default,
                        ),
                        None,
                        String::new(),
                    ),
                },
            },
        };
        if value >= MIN_WARMUP {
            continue;
        }
        let (why_at, why) = reason.label(model);
        report
            .add(
                at.or(refresh.loc),
                format!("{what} is {value} seconds, too short for a GPU instance to start serving tasks"),
            )
            .label(why_at, why)
            .help("set `instance_warmup` in the refresh preferences to at least 300 seconds")
            .resource(group.group);
    }
}
