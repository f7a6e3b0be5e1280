use ecs_gpu_catalog::catalog;
use ecs_gpu_model::{Model, Node, Resource};

use crate::capacity::{string, GroupCapacity, GPU_CAPACITY};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates of GPU capacity with a `network_interfaces` block whose `interface_type`
    /// is `efa` or `efa-only` (an Elastic Fabric Adapter), used by an Auto Scaling group or fleet
    /// with that template alone, which launches an instance type the catalog knows to have no
    /// EFA (source key karpenter-preview-efa, generated from EC2 DescribeInstanceTypes'
    /// `NetworkInfo.EfaInfo`): for example `g5.xlarge` (EFA starts at `g5.8xlarge`), `g6.xlarge`,
    /// `g4dn.xlarge`. Types the sources do not list (p2, p3, g3, types outside the catalog) are
    /// not reported.
    ///
    /// ## Why it matters
    ///
    /// An EFA exists only on the instance types that support it (EC2 User Guide, "Supported
    /// instance types" of the EFA page, <https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types>;
    /// DescribeInstanceTypes' `network-info.efa-supported`). A launch of another type with an EFA
    /// interface is refused: the group's or fleet's launches fail for that type, and with no other
    /// type the GPU capacity never comes up.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   instance_type = "g5.xlarge"
    ///   network_interfaces {
    ///     device_index   = 0
    ///     interface_type = "efa"
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Use a type with EFA (`g5.8xlarge` and larger, `g6e.8xlarge` and larger, `p4d.24xlarge`,
    /// `p5.48xlarge`), or drop `interface_type = "efa"` for types without it.
    pub static RULE = {
        id: "GPU210",
        name: "efa-on-instance-type-without-efa",
        severity: Error,
        summary: "a launch template requests EFA for an instance type without EFA support",
        reads: {
            arguments: { "aws_launch_template": ["network_interfaces"] },
            analyses: [GPU_CAPACITY],
        },
        check: check,
    }
}

/// The `interface_type` node of a launch template's `network_interfaces` that requests an EFA.
fn efa_interface(template: &Resource) -> Option<&Node> {
    if template.kind != "aws_launch_template" {
        return None;
    }
    let efa = &catalog().efa;
    template.body.blocks("network_interfaces").find_map(|b| {
        let node = b.body.attr("interface_type")?;
        string(Some(node))
            .is_some_and(|t| efa.interface_types.iter().any(|e| e == t))
            .then_some(node)
    })
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let efa = &catalog().efa;
    let gpu = report.gpu_capacity();
    let units: Vec<&GroupCapacity<'_>> = gpu
        .groups
        .iter()
        .map(|(g, _)| g.as_ref())
        .chain(gpu.fleets.iter().map(|(f, _)| f))
        .collect();
    for cap in units {
        // With several templates an override may launch from another one.
        let [template] = cap.known_templates.as_slice() else {
            continue;
        };
        if cap.templates.as_ref().is_none_or(|all| all.len() != 1) {
            continue;
        }
        let Some(interface) = efa_interface(template.template) else {
            continue;
        };
        for t in &cap.known_instance_types {
            if efa.supports(&t.name) != Some(false) {
                continue;
            }
            report
                .add(
                    t.node.loc,
                    format!(
                        "`{}` has no EFA support, and the launch template requests an EFA interface, so EC2 refuses to launch it",
                        t.name
                    ),
                )
                .label(interface.loc, "the EFA interface is requested here")
                .label(
                    Some(cap.group.loc),
                    format!("`{}` launches it", model.local_address(cap.group)),
                )
                .help("use an instance type with EFA, or remove `interface_type = \"efa\"`")
                .resource(template.template);
        }
    }
}
