//! The NVIDIA driver a launch template's image ships, when the image is known to be an ECS
//! GPU-optimized AMI release the catalog has the driver of (GPU216, GPU217, GPU218). The facts are
//! the catalog's ([`ecs_gpu_catalog::DriverFacts`]); this only reads which AMI the code names.

use ecs_gpu_catalog::{catalog, AmiNameClass, AmiRelease, GpuAmiParameter};
use ecs_gpu_model::{Loc, Model, Node, Resource};

use crate::capacity::{ami_source, string, AmiSource};

/// The ECS GPU AMI a template's image is, and the release whose driver it ships.
#[derive(Debug, Clone)]
pub struct AmiDriver {
    pub variant: &'static GpuAmiParameter,
    /// The release, with its driver.
    pub release: &'static AmiRelease,
    /// `false`: the code names one release; `true`: the newest release of the variant (the
    /// `recommended` parameter, or a name lookup that takes the newest), which the catalog knows
    /// as of its newest release.
    pub follows_newest: bool,
    /// What the code names, for messages: "`/aws/service/.../recommended/image_id`",
    /// "`data.aws_ami.gpu` (`al2023-ami-ecs-gpu-hvm-*`)".
    pub what: String,
    /// Where it is written.
    pub at: Option<Loc>,
}

impl AmiDriver {
    /// "Amazon Linux 2023": the operating system of the variant, for messages.
    pub fn os(&self) -> &'static str {
        self.variant.os()
    }

    /// "the Amazon Linux 2023 ECS GPU AMI, NVIDIA driver 580.178.04 (release 20261113, the newest
    /// the catalog knows)".
    pub fn describe(&self) -> String {
        let os = self.os();
        let which = if self.follows_newest {
            format!(
                "release {}, the newest the catalog knows",
                self.release.release
            )
        } else {
            format!("release {}", self.release.release)
        };
        format!(
            "the {os} ECS GPU AMI, NVIDIA driver {} ({which})",
            self.release.driver
        )
    }
}

/// The driver of a template's (or standalone instance's) image, when its image is an ECS GPU AMI
/// whose release the catalog knows the driver of. `None` for anything else: a literal AMI ID, a
/// variable, a parameter or name the catalog does not place, a release it has no driver for.
pub fn ami_driver(model: &Model, template: &Resource) -> Option<AmiDriver> {
    let ami = &catalog().ami;
    let drivers = &catalog().drivers;
    match ami_source(model, template) {
        AmiSource::SsmParameter { name, at, .. } => {
            let variant = ami.gpu_variant(&name)?;
            let trimmed = name.trim().trim_end_matches("/image_id");
            let under_recommended = trimmed == variant.parameter
                || trimmed.starts_with(&format!("{}/", variant.parameter));
            let (release, follows_newest) = match ami.gpu_ami_release(trimmed) {
                Some(r) => (drivers.release(&variant.variant, r)?, false),
                None if under_recommended => (drivers.newest_release(&variant.variant)?, true),
                None => return None,
            };
            Some(AmiDriver {
                variant,
                release,
                follows_newest,
                what: format!("`{}`", name.trim()),
                at,
            })
        }
        AmiSource::AmiLookup {
            data,
            class: AmiNameClass::EcsGpu { .. },
            at,
            pattern,
        } => {
            let (variant, release) = lookup_release(data)?;
            let (release, follows_newest) = match release {
                Some(r) => (drivers.release(&variant.variant, &r)?, false),
                None => (drivers.newest_release(&variant.variant)?, true),
            };
            Some(AmiDriver {
                variant,
                release,
                follows_newest,
                what: format!("`{}` (`{pattern}`)", model.local_address(data)),
                at,
            })
        }
        _ => None,
    }
}

/// What the `name` filter values of a `data "aws_ami"` (scoped to Amazon's images, as
/// [`ami_source`] checks) name: one GPU AMI variant, and the newest release they write out, or
/// `None` when a value stops at the variant's name prefix (`al2023-ami-ecs-gpu-hvm-*`: the
/// lookup takes the newest release). `None` altogether for values of several variants or that
/// write part of a release (`al2023-ami-ecs-gpu-hvm-2023.0.2025*`).
fn lookup_release(data: &Resource) -> Option<(&'static GpuAmiParameter, Option<String>)> {
    let ami = &catalog().ami;
    let mut variant: Option<&GpuAmiParameter> = None;
    let mut newest = false;
    let mut releases = Vec::new();
    for f in data.body.blocks("filter") {
        if string(f.body.attr("name")) != Some("name") {
            continue;
        }
        for v in f.body.attr("values").and_then(Node::as_list)? {
            let value = string(Some(v))?;
            let this = ami.gpu_variant_of_name(value)?;
            if variant.is_some_and(|p| p.variant != this.variant) {
                return None;
            }
            variant = Some(this);
            if let Some(r) = ami.gpu_ami_release(value) {
                releases.push(r.to_string());
            } else if value.trim() == format!("{}*", this.name_prefix) {
                newest = true;
            } else {
                return None;
            }
        }
    }
    let variant = variant?;
    if newest {
        return Some((variant, None));
    }
    Some((variant, Some(releases.into_iter().max()?)))
}
