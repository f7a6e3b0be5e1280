//! An AMI change of a launch template (or launch configuration) is a change of the NVIDIA driver of
//! every instance launched from it: the driver before and after, where the plan says which ECS GPU
//! AMI release each image is, and whether the images of the GPU services on that capacity still
//! run on the new driver (the catalog's facts: `ecs_gpu_catalog::DriverFacts`).
//!
//! Which AMI an image is: a `resolve:ssm:` image ID names its parameter on both sides of the
//! change; an AMI ID is matched, on the side after the apply, against the AMI data sources the plan
//! read (`prior_state`: an `aws_ssm_parameter` whose value it is, an `aws_ami` whose ID it is).
//! The side before is then not known: the plan holds no earlier read of a data source.

use ecs_gpu_catalog::{catalog, AmiRelease, GpuAmiParameter, ImageCuda, RunVerdict};

use super::relations::{
    capacity_provider_associations, capacity_provider_services, cluster_services,
    group_capacity_providers, service_task_definitions, template_groups,
};
use super::{list, relate};
use crate::json_tree::Value;
use crate::model::{Change, Model};
use crate::value::{Side, Val};
use crate::{Effect, EffectKind};

/// The ECS GPU AMI an image is.
struct Ami {
    variant: &'static GpuAmiParameter,
    /// The release whose driver it ships: the pinned one, or the newest the catalog knows.
    release: Option<&'static AmiRelease>,
    follows_newest: bool,
    /// Where it was read: "`resolve:ssm:...`", "`data.aws_ssm_parameter.ami`
    /// (`/aws/.../image_id`)".
    what: String,
}

impl Ami {
    fn os(&self) -> &'static str {
        self.variant.os()
    }

    /// "580.178.04 (`...`: the Amazon Linux 2023 ECS GPU AMI, release 20261113, the newest the
    /// catalog knows, CUDA 13.0)", or what is not known.
    fn driver(&self) -> String {
        let Some(r) = self.release else {
            return format!(
                "a driver the catalog does not have ({}: the {} ECS GPU AMI, a release it has no driver for)",
                self.what,
                self.os()
            );
        };
        let newest = if self.follows_newest {
            ", the newest the catalog knows"
        } else {
            ""
        };
        let cuda = catalog()
            .drivers
            .cuda_of_driver(&r.driver)
            .map_or(String::new(), |c| format!(", CUDA {c}"));
        format!(
            "{} ({}: the {} ECS GPU AMI, release {}{newest}{cuda})",
            r.driver,
            self.what,
            self.os(),
            r.release
        )
    }
}

/// The ECS GPU AMI an SSM parameter name (or `resolve:ssm:` reference) gives.
fn from_parameter(name: &str, what: String) -> Option<Ami> {
    let ami = &catalog().ami;
    let drivers = &catalog().drivers;
    // `resolve:ssm:name:version` / `name:label`: the name is before a `:` after the path.
    let name = match name.rfind(':') {
        Some(i) if name[..i].contains('/') => &name[..i],
        _ => name,
    };
    let variant = ami.gpu_variant(name)?;
    let trimmed = name.trim().trim_end_matches("/image_id");
    let under_recommended =
        trimmed == variant.parameter || trimmed.starts_with(&format!("{}/", variant.parameter));
    let (release, follows_newest) = match ami.gpu_ami_release(trimmed) {
        Some(r) => (drivers.release(&variant.variant, r), false),
        None if under_recommended => (drivers.newest_release(&variant.variant), true),
        None => return None,
    };
    Some(Ami {
        variant,
        release,
        follows_newest,
        what,
    })
}

/// The ECS GPU AMI an AMI name gives (`al2023-ami-ecs-gpu-hvm-2023.0.20261113-kernel-6.1-x86_64`).
fn from_name(name: &str, what: String) -> Option<Ami> {
    let ami = &catalog().ami;
    let variant = ami.gpu_variant_of_name(name)?;
    let release = ami.gpu_ami_release(name)?;
    Some(Ami {
        variant,
        release: catalog().drivers.release(&variant.variant, release),
        follows_newest: false,
        what,
    })
}

/// The ECS GPU AMI of a template's `image_id` on one side of the change. `after` also looks the
/// AMI ID up among the data sources the plan read in the template's module.
fn ami_of(m: &Model, i: usize, side: &Side<'_>, after: bool) -> Option<Ami> {
    let raw = side.raw(&["image_id"])?.as_str()?;
    if let Some(param) = raw.strip_prefix("resolve:ssm:") {
        // The reference is a parameter name, not the image: shown whole unless sensitive.
        let what = match side.get(&["image_id"]) {
            Val::Known(_) => format!("`{raw}`"),
            _ => "the image ID".to_string(),
        };
        return from_parameter(param, what);
    }
    if !after || !raw.starts_with("ami-") {
        return None;
    }
    let module = &m.resources[i].module;
    for d in m.data.iter().filter(|d| &d.module == module) {
        let s = d.side();
        match d.type_.as_str() {
            "aws_ssm_parameter" => {
                let holds = ["value", "insecure_value"]
                    .iter()
                    .any(|k| s.raw(&[k]).and_then(Value::as_str) == Some(raw));
                let Val::Known(name) = s.get(&["name"]) else {
                    continue;
                };
                let Some(name) = name.as_str().filter(|_| holds) else {
                    continue;
                };
                return from_parameter(name, format!("`{}` (`{name}`)", d.address));
            }
            "aws_ami" => {
                if s.raw(&["id"]).and_then(Value::as_str) != Some(raw) {
                    continue;
                }
                let Val::Known(name) = s.get(&["name"]) else {
                    continue;
                };
                let name = name.as_str()?;
                return from_name(name, format!("`{}` (`{name}`)", d.address));
            }
            _ => {}
        }
    }
    None
}

/// The services placed on a group's capacity: those whose strategy names one of its capacity
/// providers, and those with no strategy and no launch type in a cluster whose default strategy
/// does.
fn services_of_group(m: &Model, g: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for cp in group_capacity_providers(m, g) {
        for s in capacity_provider_services(m, cp) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        for assoc in capacity_provider_associations(m, cp) {
            let names_it = m.resources[assoc]
                .after()
                .raw(&["default_capacity_provider_strategy"])
                .and_then(Value::as_array)
                .is_some_and(|items| {
                    let name = m.resources[cp].after().str(&["name"]);
                    items
                        .iter()
                        .any(|it| it.get("capacity_provider").and_then(Value::as_str) == name)
                });
            if !names_it {
                continue;
            }
            let cluster_name = m.resources[assoc].after().str(&["cluster_name"]);
            for c in m.of_type("aws_ecs_cluster") {
                if m.resources[c].after().str(&["name"]) != cluster_name {
                    continue;
                }
                for s in cluster_services(m, c) {
                    let a = m.resources[s].after();
                    let no_strategy = a
                        .raw(&["capacity_provider_strategy"])
                        .and_then(Value::as_array)
                        .is_none_or(|v| v.is_empty());
                    let no_launch_type = a.str(&["launch_type"]).is_none_or(str::is_empty);
                    if no_strategy && no_launch_type && !out.contains(&s) {
                        out.push(s);
                    }
                }
            }
        }
    }
    out
}

/// The images of a task definition's GPU containers (after the apply), when known.
fn gpu_images(side: &Side<'_>) -> Vec<String> {
    let Val::Known(Value::String(text)) = side.get(&["container_definitions"]) else {
        return Vec::new();
    };
    let Ok(defs) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in defs.as_array().into_iter().flatten() {
        let gpu = c
            .get("resourceRequirements")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|rs| {
                rs.iter()
                    .any(|r| r.get("type").and_then(serde_json::Value::as_str) == Some("GPU"))
            });
        if let (true, Some(image)) = (gpu, c.get("image").and_then(serde_json::Value::as_str)) {
            if !out.iter().any(|i| i == image) {
                out.push(image.to_string());
            }
        }
    }
    out
}

/// What the new driver does to one image.
fn verdict(image: &str, after: Option<&AmiRelease>) -> (String, bool) {
    let drivers = &catalog().drivers;
    let ImageCuda::Known(known) = drivers.image_cuda(image) else {
        return (format!("`{image}`: its CUDA is not known"), false);
    };
    let cuda = format!("`{image}` (CUDA {})", known.cuda);
    let Some(r) = after else {
        return (format!("{cuda}: the new driver is not known"), false);
    };
    match drivers.can_run(&known, &r.driver) {
        RunVerdict::Runs => (format!("{cuda} runs on it"), false),
        RunVerdict::MayRunMinorCompat => (
            format!("{cuda} may run on it only through CUDA minor version compatibility"),
            false,
        ),
        RunVerdict::MayRunForwardCompat => (
            format!(
                "{cuda} may run on it only through forward compatibility (a data center GPU, and the image's compatibility package supporting branch {})",
                r.driver.branch()
            ),
            false,
        ),
        RunVerdict::Cannot(why) => (format!("{cuda} cannot run on it ({why})"), true),
        RunVerdict::Unknown => (format!("{cuda}: not known"), false),
    }
}

pub(super) fn effects(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    if !(c.is_update() || c.is_replace()) || !c.changes(&["image_id"]) {
        return;
    }
    let before = ami_of(m, i, &c.before(), false);
    let after = ami_of(m, i, &c.after(), true);
    if before.is_none() && after.is_none() {
        return;
    }
    let same = |a: &Ami, b: &Ami| match (a.release, b.release) {
        (Some(x), Some(y)) => x.driver == y.driver,
        _ => false,
    };
    if let (Some(b), Some(a)) = (&before, &after) {
        if same(b, a) {
            return;
        }
    }
    let r = &m.resources[i];
    let from = before.as_ref().map_or_else(
        || "a driver the plan does not say (the image before is an AMI ID, and the plan holds no earlier read of its source)".to_string(),
        Ami::driver,
    );
    let to = after.as_ref().map_or_else(
        || "a driver the plan does not say (the new image is not a known ECS GPU AMI)".to_string(),
        Ami::driver,
    );
    let mut related = Vec::new();
    let mut verdicts = Vec::new();
    let mut broken = Vec::new();
    for g in template_groups(m, i) {
        relate(&mut related, m, &[g]);
        for s in services_of_group(m, g) {
            relate(&mut related, m, &[s]);
            for td in service_task_definitions(m, s) {
                for image in gpu_images(&m.resources[td].after()) {
                    let (text, cannot) = verdict(&image, after.as_ref().and_then(|a| a.release));
                    if cannot {
                        broken.push(m.resources[s].address.clone());
                    }
                    verdicts.push(format!("`{}`: {text}", m.resources[s].address));
                }
            }
        }
    }
    let services = if verdicts.is_empty() {
        String::new()
    } else {
        format!(
            "; the GPU services on this capacity: {}",
            verdicts.join("; ")
        )
    };
    let help = (!broken.is_empty()).then(|| {
        broken.dedup();
        format!(
            "keep {} on capacity whose driver runs its image, or move it to an image built for the CUDA the new driver supports, before the new AMI reaches its instances",
            list(broken.iter().map(String::as_str))
        )
    });
    out.push(Effect {
        kind: EffectKind::DriverChange,
        address: r.address.clone(),
        related,
        message: format!(
            "the AMI change moves the NVIDIA driver of the instances it launches from {from} to {to}{services}"
        ),
        help,
    });
}
