//! Purchasing options: whether a group or fleet launches Spot Instances.

use ecs_gpu_catalog::catalog;
use ecs_gpu_model::{Body, Loc, Node, Resource};

use super::graph::{known_str, GroupCapacity};
use crate::{reads, Reads};

/// What [`spot_evidence`] and [`template_market_type`] read. No code reads an EC2 Fleet's
/// `on_demand_options`, `spot_options` and `type`, or a Spot Fleet request's `fleet_type`, yet.
pub const SPOT: Reads = reads! {
    arguments: {
        "aws_autoscaling_group": ["max_size", "mixed_instances_policy"],
        "aws_ec2_fleet": [
            "on_demand_options",
            "spot_options",
            "target_capacity_specification",
            "type",
        ],
        "aws_launch_template": ["instance_market_options"],
        "aws_spot_fleet_request": ["fleet_type", "on_demand_target_capacity", "target_capacity"],
    },
};

/// A launch template's known `instance_market_options.market_type` (`spot`, `capacity-block`),
/// with its node. `None` when not written or not known (a `dynamic` block included).
pub fn template_market_type(template: &Resource) -> Option<(&str, &Node)> {
    if template.kind != "aws_launch_template"
        || template.body.may_have_unknown("instance_market_options")
    {
        return None;
    }
    let node = template
        .body
        .block("instance_market_options")?
        .body
        .attr("market_type")?;
    Some((known_str(node)?, node))
}

/// What shows that a group or fleet launches Spot Instances: where, and why.
#[derive(Debug, Clone)]
pub struct SpotEvidence {
    /// Where it is written.
    pub at: Option<Loc>,
    /// For a label: what buys Spot Instances.
    pub why: String,
}

/// Whether a group ([`group_capacity`](super::group_capacity)) or fleet ([`fleet_capacity`](super::fleet_capacity)) is known to launch Spot
/// Instances (source key BOTO for the defaults): a launch template with `market_type = "spot"`; a
/// mixed instances policy whose known `on_demand_percentage_above_base_capacity` is under 100 (the
/// default is 100), unless a known `on_demand_base_capacity` covers the known `max_size`; an EC2
/// Fleet whose `default_target_capacity_type` is `spot`, or whose known `spot_target_capacity` is
/// above 0; a Spot Fleet request, unless its known `on_demand_target_capacity` covers its known
/// `target_capacity`. `None` on anything unknown.
pub fn spot_evidence(cap: &GroupCapacity<'_>) -> Option<SpotEvidence> {
    use crate::task::number;
    let market = &catalog().market;
    let body = &cap.group.body;
    let num = |b: &Body, name: &str| b.attr(name).and_then(number);
    for t in &cap.known_templates {
        if let Some((kind, node)) = template_market_type(t.template) {
            if kind == market.spot_market_type {
                return Some(SpotEvidence {
                    at: node.loc,
                    why: format!(
                        "the launch template buys Spot Instances (`market_type = \"{kind}\"`)"
                    ),
                });
            }
        }
    }
    match cap.group.kind.as_str() {
        "aws_autoscaling_group" => {
            let dist = cap.mixed?.body.block("instances_distribution")?;
            let node = dist.body.attr("on_demand_percentage_above_base_capacity")?;
            let pct = number(node)?;
            if pct >= f64::from(market.on_demand_percentage_default) {
                return None;
            }
            if let (Some(base), Some(max)) = (
                num(&dist.body, "on_demand_base_capacity"),
                num(body, "max_size"),
            ) {
                if base >= max {
                    return None;
                }
            }
            Some(SpotEvidence {
                at: node.loc,
                why: format!(
                    "`on_demand_percentage_above_base_capacity` is {pct}, so the rest of the group is Spot"
                ),
            })
        }
        "aws_ec2_fleet" => {
            let spec = body.block("target_capacity_specification")?;
            let default = spec.body.attr("default_target_capacity_type");
            if let Some(n) =
                default.filter(|n| known_str(n) == Some(market.spot_market_type.as_str()))
            {
                return Some(SpotEvidence {
                    at: n.loc,
                    why: "the fleet's default target capacity type is Spot".to_string(),
                });
            }
            let n = spec.body.attr("spot_target_capacity")?;
            (number(n)? > 0.0).then(|| SpotEvidence {
                at: n.loc,
                why: "the fleet has a Spot target capacity".to_string(),
            })
        }
        "aws_spot_fleet_request" => {
            if let (Some(od), Some(total)) = (
                num(body, "on_demand_target_capacity"),
                num(body, "target_capacity"),
            ) {
                if od >= total {
                    return None;
                }
            }
            Some(SpotEvidence {
                at: Some(cap.group.loc),
                why: "a Spot Fleet request launches Spot Instances".to_string(),
            })
        }
        _ => None,
    }
}
