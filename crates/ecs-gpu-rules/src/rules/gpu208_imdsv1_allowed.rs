use ecs_gpu_model::{Model, Node, Value};

use crate::capacity::GPU_CAPACITY;
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates (and standalone `aws_instance`s) of GPU capacity whose
    /// `metadata_options { http_tokens = "optional" }` is
    /// written explicitly (and whose `http_endpoint` is not `"disabled"`).
    ///
    /// An absent `metadata_options` block or `http_tokens` is **not** reported: the AWS provider sends
    /// nothing then, and EC2 applies the AMI's setting (the Amazon Linux 2023 AMIs require IMDSv2)
    /// or the account's default, which the configuration does not show. A Spot Fleet request's
    /// inline `launch_specification` has no `metadata_options` argument (hashicorp/aws 5.100.0),
    /// so it is never reported; its launch templates are read like a group's.
    ///
    /// ## Why it matters
    ///
    /// With IMDSv1 allowed, any process or container that can make the instance fetch a URL
    /// (server-side request forgery in a model server, a notebook) can read the instance role's
    /// credentials, which on ECS container instances can register instances and read task secrets.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   metadata_options {
    ///     http_tokens = "optional"
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Require IMDSv2: `metadata_options { http_tokens = "required" }`. The ECS agent and the AWS SDKs
    /// use IMDSv2; set `http_put_response_hop_limit = 2` if containers in `bridge` mode need the
    /// metadata service.
    pub static RULE = {
        id: "GPU208",
        name: "imdsv1-allowed",
        severity: Warning,
        summary: "a launch template or instance of GPU capacity allows IMDSv1",
        reads: {
            arguments: {
                "aws_instance": ["metadata_options"],
                "aws_launch_configuration": ["metadata_options"],
                "aws_launch_template": ["metadata_options"],
            },
            analyses: [GPU_CAPACITY],
        },
        check: check,
    }
}

fn string(n: Option<&Node>) -> Option<&str> {
    match n.map(|n| &n.value) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (t, reason) in &report.gpu_capacity().templates {
        // A Spot Fleet request's inline `launch_specification` has no `metadata_options` (the
        // provider's schema has none): what its instances allow is the image's and the account's
        // default, not in the sources.
        if crate::capacity::is_fleet(t.template) {
            continue;
        }
        let body = &t.template.body;
        if body.may_have_unknown("metadata_options") {
            continue;
        }
        let Some(mo) = body.block("metadata_options") else {
            continue;
        };
        let tokens = mo.body.attr("http_tokens");
        if string(tokens) != Some("optional")
            || string(mo.body.attr("http_endpoint")) == Some("disabled")
        {
            continue;
        }
        let (why_at, why) = reason.label(model);
        report
            .add(
                tokens.and_then(|n| n.loc),
                "`http_tokens = \"optional\"` allows IMDSv1 on GPU capacity",
            )
            .label(why_at, why)
            .help("set `http_tokens = \"required\"`")
            .resource(t.template);
    }
}
