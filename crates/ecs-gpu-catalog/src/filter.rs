//! Filtering the catalog (`ecs-gpu types`).

use crate::{Architecture, Catalog, EcsStatus, InstanceType};

/// What to keep. Every set criterion must hold; an unknown value never satisfies a criterion.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub family: Option<String>,
    /// Whole GPUs at least this many (fractional types have 0 whole GPUs).
    pub min_gpus: Option<u32>,
    /// GPU memory per GPU (per partition on g6f/gr6f), at least this many MiB.
    pub min_gpu_memory_mib: Option<u64>,
    /// Words of the GPU model, case-insensitive (`l4` matches `NVIDIA L4`, not `NVIDIA L40S`).
    pub gpu_model: Option<String>,
    pub architecture: Option<Architecture>,
    /// Only types usable with the current ECS GPU-optimized AMI.
    pub supported: bool,
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

impl Filter {
    pub fn matches(&self, t: &InstanceType) -> bool {
        if self.family.as_deref().is_some_and(|f| f != t.family) {
            return false;
        }
        if let Some(min) = self.min_gpus {
            if t.gpus.count().is_none_or(|n| n < min) {
                return false;
            }
        }
        if let Some(min) = self.min_gpu_memory_mib {
            if t.gpu_memory_mib.is_none_or(|m| u64::from(m) < min) {
                return false;
            }
        }
        if let Some(model) = &self.gpu_model {
            let want = words(model);
            let have = t.gpu_model.as_deref().map(words).unwrap_or_default();
            if want.is_empty() || !want.iter().all(|w| have.contains(w)) {
                return false;
            }
        }
        if let Some(arch) = self.architecture {
            if t.architecture != Some(arch) {
                return false;
            }
        }
        if self.supported && t.ecs_status != EcsStatus::Supported {
            return false;
        }
        true
    }
}

impl Catalog {
    /// The instance types the filter keeps, in catalog order.
    pub fn filter<'a>(&'a self, filter: &'a Filter) -> impl Iterator<Item = &'a InstanceType> + 'a {
        self.instance_types()
            .iter()
            .filter(move |t| filter.matches(t))
    }
}
