//! ECS-optimized AMI facts: SSM parameter names, AMI names and their owner (source keys AMI,
//! AMI-RELEASES, BOTO, CDK, ECS-2023).

use serde::Deserialize;

/// One ECS GPU-optimized AMI SSM parameter (the `.../recommended` form; `.../recommended/image_id` and
/// the other sub-parameters belong to it).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuAmiParameter {
    /// `al2023`, `al2` or `al2-kernel-5.10`.
    pub variant: String,
    pub parameter: String,
    /// End of life (`YYYY-MM-DD`), for the Amazon Linux 2 variants.
    pub end_of_life: Option<String>,
    /// The names of its AMIs up to their version (`al2023-ami-ecs-gpu-hvm-`).
    pub name_prefix: String,
    pub sources: Vec<String>,
}

impl GpuAmiParameter {
    /// The operating system of the variant, for messages: `Amazon Linux 2023`, `Amazon Linux 2`,
    /// `Amazon Linux 2 (kernel 5.10)`; the variant's own name for any other.
    pub fn os(&self) -> &str {
        match self.variant.as_str() {
            "al2023" => "Amazon Linux 2023",
            "al2" => "Amazon Linux 2",
            "al2-kernel-5.10" => "Amazon Linux 2 (kernel 5.10)",
            other => other,
        }
    }
}

/// ECS-optimized AMI facts.
#[derive(Debug, Clone)]
pub struct AmiFacts {
    /// Every ECS-optimized AMI parameter lives under this prefix.
    pub ecs_parameter_prefix: String,
    pub gpu_parameters: Vec<GpuAmiParameter>,
    /// The parameter to use by default (AL2023 GPU, `.../image_id`).
    pub recommended_parameter: String,
    pub version_pinned_form: String,
    /// `None`: no arm64 ECS GPU AMI exists.
    pub arm64_gpu_parameter: Option<String>,
    pub gpu_ami_name_prefixes: Vec<String>,
    pub ecs_ami_name_prefixes: Vec<String>,
    /// `amazon`: the owner alias of the images Amazon owns, the ECS-optimized AMIs among them
    /// (source keys BOTO, AMI-RELEASES). A name lookup says what the image is only when it is
    /// scoped to this owner: another (`self`, an account, `aws-marketplace`) or none can match
    /// other images of the same name.
    pub amazon_owner_alias: String,
    /// Why, with its sources.
    pub amazon_owner_alias_note: String,
    pub note: String,
    pub sources: Vec<String>,
}

/// What an SSM parameter name says about the AMI it resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmiClass<'a> {
    /// An ECS GPU-optimized AMI parameter. `variant` is one of [`AmiFacts::gpu_parameters`], or `None`
    /// for a GPU path of a shape the catalog does not list by name (still under the ECS GPU tree).
    EcsGpu {
        variant: Option<&'a GpuAmiParameter>,
        end_of_life: Option<&'a str>,
    },
    /// An ECS-optimized AMI parameter of a non-GPU variant.
    EcsNonGpu { end_of_life: Option<&'a str> },
    /// Not an ECS-optimized AMI parameter: nothing can be said.
    Unknown,
}

/// What an AMI name (or a name filter, with `*` and `?`) says about the AMI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmiNameClass {
    EcsGpu {
        amazon_linux_2: bool,
    },
    EcsNonGpu {
        amazon_linux_2: bool,
    },
    /// An ECS-optimized AMI that may be the GPU variant or not: a filter whose literal part is
    /// an ECS AMI name that a GPU name could still continue (`amzn2-ami-ecs-gpu-*`,
    /// `al2023-ami-ecs-*`).
    EcsAnyVariant {
        amazon_linux_2: bool,
    },
    /// A name outside the ECS AMIs, or a filter that can match other AMIs too.
    Unknown,
}

impl AmiFacts {
    /// Classifies an SSM parameter name, such as the `name` of a `data "aws_ssm_parameter"` or a
    /// `resolve:ssm:` image ID.
    pub fn classify_parameter(&self, name: &str) -> AmiClass<'_> {
        let name = name.trim();
        let Some(rest) = name.strip_prefix(&self.ecs_parameter_prefix) else {
            return AmiClass::Unknown;
        };
        // The longest listed GPU parameter that this name is, or is under.
        let listed = self
            .gpu_parameters
            .iter()
            .filter(|p| name == p.parameter || name.starts_with(&format!("{}/", p.parameter)))
            .max_by_key(|p| p.parameter.len());
        let segments: Vec<&str> = rest.split('/').collect();
        let eol = self.end_of_life_for_os(segments.first().copied().unwrap_or(""));
        if let Some(p) = listed {
            return AmiClass::EcsGpu {
                variant: Some(p),
                end_of_life: p.end_of_life.as_deref(),
            };
        }
        if segments.contains(&"gpu") {
            return AmiClass::EcsGpu {
                variant: None,
                end_of_life: eol,
            };
        }
        AmiClass::EcsNonGpu { end_of_life: eol }
    }

    /// Amazon Linux 2 ECS AMIs share the GPU variants' end of life.
    fn end_of_life_for_os(&self, os_segment: &str) -> Option<&str> {
        if os_segment != "amazon-linux-2" {
            return None;
        }
        self.gpu_parameters
            .iter()
            .find(|p| p.variant == "al2")
            .and_then(|p| p.end_of_life.as_deref())
    }

    /// The end of life of Amazon Linux 2 ECS AMIs.
    pub fn amazon_linux_2_end_of_life(&self) -> Option<&str> {
        self.end_of_life_for_os("amazon-linux-2")
    }

    /// Classifies an AMI name or name filter (`al2023-ami-ecs-gpu-hvm-*`).
    pub fn classify_name(&self, pattern: &str) -> AmiNameClass {
        let literal = pattern.split(['*', '?']).next().unwrap_or_default().trim();
        let al2 = literal.starts_with("amzn2-");
        if self
            .gpu_ami_name_prefixes
            .iter()
            .any(|p| literal.starts_with(p.as_str()))
        {
            return AmiNameClass::EcsGpu {
                amazon_linux_2: al2,
            };
        }
        // A literal part that a GPU name could still continue (`al2023-ami-ecs-*`) matches both.
        let could_be_gpu = pattern.len() != literal.len()
            && self
                .gpu_ami_name_prefixes
                .iter()
                .any(|p| p.starts_with(literal));
        if self
            .ecs_ami_name_prefixes
            .iter()
            .any(|p| literal.starts_with(p.as_str()))
        {
            return if could_be_gpu {
                AmiNameClass::EcsAnyVariant {
                    amazon_linux_2: al2,
                }
            } else {
                AmiNameClass::EcsNonGpu {
                    amazon_linux_2: al2,
                }
            };
        }
        AmiNameClass::Unknown
    }

    /// The GPU AMI variant an SSM parameter name belongs to: a listed parameter, one under it
    /// (`.../recommended/image_id`), or a version-pinned one in the variant's folder
    /// (`/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/al2023-ami-ecs-gpu-hvm-...`). `None`
    /// for any other name.
    pub fn gpu_variant(&self, name: &str) -> Option<&GpuAmiParameter> {
        let name = name.trim();
        let folder = |p: &GpuAmiParameter| {
            p.parameter
                .strip_suffix("/recommended")
                .unwrap_or(&p.parameter)
                .to_string()
        };
        self.gpu_parameters
            .iter()
            .filter(|p| {
                name == p.parameter
                    || name.starts_with(&format!("{}/", p.parameter))
                    || name.starts_with(&format!("{}/", folder(p)))
            })
            .max_by_key(|p| p.parameter.len())
    }

    /// The GPU AMI variant whose AMIs an AMI name (or name filter) names: the one whose name
    /// prefix the name's literal start begins with (`amzn2-ami-ecs-gpu-hvm-*` is `al2`). `None`
    /// for any other name, and for a filter that stops before the prefix (`amzn2-ami-ecs-*`).
    pub fn gpu_variant_of_name(&self, name: &str) -> Option<&GpuAmiParameter> {
        let literal = name.trim().split(['*', '?']).next().unwrap_or_default();
        self.gpu_parameters
            .iter()
            .filter(|p| literal.starts_with(p.name_prefix.as_str()))
            .max_by_key(|p| p.name_prefix.len())
    }

    /// The release (`YYYYMMDD`) of an ECS GPU-optimized AMI, read from its name
    /// (`al2023-ami-ecs-gpu-hvm-2023.0.20260323-kernel-6.1-x86_64`,
    /// `amzn2-ami-ecs-gpu-hvm-2.0.20230906-x86_64-ebs`) or from the version-pinned SSM parameter
    /// that ends in it (source key AMI-RELEASES). `None` for any other name, and for a filter whose
    /// release is not written out (`al2023-ami-ecs-gpu-hvm-2023.0.2026*`).
    pub fn gpu_ami_release<'a>(&self, name: &'a str) -> Option<&'a str> {
        let last = name.trim().rsplit('/').next()?;
        let rest = self
            .gpu_ami_name_prefixes
            .iter()
            .find_map(|p| last.strip_prefix(p.as_str()))?;
        let version = rest.split('-').next()?;
        let release = version.rsplit('.').next()?;
        (release.len() == 8 && release.bytes().all(|b| b.is_ascii_digit())).then_some(release)
    }
}
