use ecs_gpu_model::Model;
use ecs_gpu_sim::Deployment;

use crate::terraform_root::{scenarios, SCENARIO};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// A GPU service's deployment against the most its capacity can ever hold: the tasks that must
    /// run at once for the deployment to finish, times what one task reserves, against the
    /// Auto Scaling group's `max_size` times what one instance of its instance type holds. A rolling
    /// deployment with `deployment_minimum_healthy_percent = 100` keeps every old task running, so
    /// it needs one more task's worth of room than the desired count (the maximum percent allows
    /// more, which only makes it faster); ECS native blue/green, linear and canary deployments run
    /// both revisions at full size through the bake time, so they need twice the desired count.
    /// Other services of the same size on the group count too. A group with several instance types
    /// (a mixed instances policy) is counted with the type that holds the most tasks of the
    /// service: whichever types its allocation strategy launches, it needs at least that many
    /// instances. It fires only when every input is known: the group's `max_size` and instance
    /// types from the catalog, the service's desired count, deployment configuration, task size
    /// and placement constraints. The arithmetic comes from the simulation model
    /// (`ecs-gpu simulate`, `docs/simulate.md`), which also says how many GPUs the deployment
    /// reserves at most (the maximum percent).
    ///
    /// ## Why it matters
    ///
    /// The new tasks wait in `PROVISIONING` for GPUs the group can never launch: managed scaling
    /// stops at `max_size`, the old tasks are never stopped, and the deployment never finishes (or
    /// the circuit breaker rolls it back). Nothing fails at apply time.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_autoscaling_group" "gpu" {
    ///   max_size = 2 # g5.12xlarge: 4 GPUs each
    /// }
    ///
    /// resource "aws_ecs_service" "train" {
    ///   desired_count                      = 2 # 4 GPUs a task: both instances full
    ///   deployment_minimum_healthy_percent = 100
    ///   deployment_maximum_percent         = 200
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Raise the group's `max_size` to what the deployment needs (managed scaling releases the extra
    /// instances afterwards), or let a rolling deployment stop an old task first
    /// (`deployment_minimum_healthy_percent` below 100, at the cost of fewer tasks during the
    /// deployment). For blue/green, linear and canary, size `max_size` for both revisions.
    pub static RULE = {
        id: "GPU406",
        name: "deployment-exceeds-group-capacity",
        severity: Error,
        summary: "a GPU service's deployment needs more instances at once than its Auto Scaling group's max_size allows",
        reads: { analyses: [SCENARIO] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    // Each root module on its own: another root's services are never placed on its groups.
    let roots = scenarios(model);
    let services = roots.iter().flat_map(|root| {
        let sc = &root.scenario;
        sc.services
            .iter()
            .zip(&root.services)
            .map(move |(svc, &id)| (root, sc, svc, id))
    });
    for (root, sc, svc, id) in services {
        let Some(need) = ecs_gpu_sim::deployment_need(sc, &svc.name) else {
            continue;
        };
        if need.holds() {
            continue;
        }
        let r = model.resource(id);
        let group = sc
            .group(&need.group)
            .map(|g| model.resource(root.groups[g]));
        let loc = r
            .body
            .attr("desired_count")
            .and_then(|n| n.loc)
            .or(Some(r.loc));
        let help = match need.deployment {
            Deployment::Rolling {
                minimum_healthy_percent,
                ..
            } if minimum_healthy_percent >= 100 => format!(
                "raise `max_size` of `{}` to {}, or set `deployment_minimum_healthy_percent` below 100 so an old task stops before its replacement starts",
                need.group, need.instances_needed
            ),
            _ => format!(
                "raise `max_size` of `{}` to {}",
                need.group, need.instances_needed
            ),
        };
        let mut b = report
            .add(
                loc,
                format!(
                    "the deployment of `{}` never finishes: {}",
                    svc.name,
                    need.arithmetic()
                ),
            )
            .help(help)
            .resource(r);
        if let Some(g) = group {
            let at = g.body.attr("max_size").and_then(|n| n.loc).or(Some(g.loc));
            b = b.label(at, format!("`max_size` of `{}`", need.group));
        }
        let _ = b;
    }
}
