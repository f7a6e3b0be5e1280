//! What a Terraform plan does to running ECS GPU tasks and instances.
//!
//! The input is the JSON of `terraform show -json PLANFILE` (plan format 1.x, Terraform 1.1 and
//! later). [`read`] makes one streaming pass over it that keeps only the GPU-stack resources
//! ([`GPU_STACK_TYPES`]) of `resource_changes`, `resource_drift`, `planned_values`, `prior_state` and
//! `configuration`, and the AMI data sources ([`AMI_DATA_SOURCE_TYPES`]) of `prior_state`;
//! [`Plan::effects`] says, per changed resource, what the apply does in ECS terms:
//! an apply that fails or waits out a timeout, capacity destroyed, a replaced or moved service, an
//! instance refresh, the NVIDIA driver an AMI change brings and whether the GPU services' images
//! still run on it, a deployment, tasks stopped or instances terminated by a lower count, a drift
//! set back, scale-in protection removed, new tasks or instances, a launch template version no
//! running instance gets, a deregistered revision, or nothing.
//!
//! Values the plan marks sensitive never appear in an effect's message, and values known only after
//! apply are never guessed.
//!
//! ```
//! use ecs_gpu_plan::{read, EffectKind};
//!
//! let json = r#"{
//!   "format_version": "1.2",
//!   "planned_values": {"root_module": {}},
//!   "resource_changes": [{
//!     "address": "aws_ecs_service.app", "mode": "managed", "type": "aws_ecs_service", "name": "app",
//!     "change": {
//!       "actions": ["delete", "create"],
//!       "before": {"name": "app", "desired_count": 2}, "after": {"name": "app2", "desired_count": 2},
//!       "after_unknown": {}, "before_sensitive": {}, "after_sensitive": {},
//!       "replace_paths": [["name"]]
//!     }
//!   }]
//! }"#;
//! let plan = read(json.as_bytes()).unwrap();
//! let effects = plan.effects();
//! assert_eq!(effects[0].kind, EffectKind::ServiceReplaced);
//! assert_eq!(effects[0].address, "aws_ecs_service.app");
//! ```

mod effects;
mod error;
mod json_tree;
mod model;
mod parse;
pub mod plan_json;
pub mod render;
mod value;

use std::fmt;
use std::io::BufRead;
use std::str::FromStr;

pub use error::Error;
pub use parse::{AMI_DATA_SOURCE_TYPES, GPU_STACK_TYPES};

/// What a change does to running GPU tasks and instances. The order is the order of disruption,
/// most disruptive first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EffectKind {
    /// The apply fails or waits until a timeout: an order AWS refuses, a wait that never ends.
    ApplyFails,
    /// An Auto Scaling group, capacity provider or cluster is destroyed or replaced.
    CapacityDestroyed,
    /// The service is destroyed (and created again): its tasks stop.
    ServiceReplaced,
    /// The Auto Scaling group replaces its instances (instance refresh).
    InstanceReplacement,
    /// An AMI change moves the NVIDIA driver of the instances launched from it: before and after
    /// where the plan says, and whether the images of the GPU services on that capacity still run.
    DriverChange,
    /// The service starts a new deployment that replaces its tasks.
    Deployment,
    /// A lower count in the code: running tasks stop, or GPU instances are terminated.
    ScaleIn,
    /// The plan sets back a value that was changed outside Terraform.
    DriftRevert,
    /// Scale-in protection of the instances that run tasks is turned off.
    ProtectionRemoved,
    /// A higher count in the code: new tasks that need free GPUs, or new GPU instances.
    ScaleOut,
    /// A new launch template version that nothing rolls out to running instances.
    NotReachingRunningInstances,
    /// An old task definition revision is deregistered.
    RevisionDeregistered,
    /// Nothing reaches a running task or instance (metadata, a reference that names the same
    /// revision).
    NoEffect,
}

impl EffectKind {
    /// Every kind, most disruptive first.
    pub const ALL: [EffectKind; 13] = [
        EffectKind::ApplyFails,
        EffectKind::CapacityDestroyed,
        EffectKind::ServiceReplaced,
        EffectKind::InstanceReplacement,
        EffectKind::DriverChange,
        EffectKind::Deployment,
        EffectKind::ScaleIn,
        EffectKind::DriftRevert,
        EffectKind::ProtectionRemoved,
        EffectKind::ScaleOut,
        EffectKind::NotReachingRunningInstances,
        EffectKind::RevisionDeregistered,
        EffectKind::NoEffect,
    ];

    /// The kebab-case name used in output and in `--fail-on`.
    pub fn as_str(self) -> &'static str {
        match self {
            EffectKind::ApplyFails => "apply-fails",
            EffectKind::CapacityDestroyed => "capacity-destroyed",
            EffectKind::ServiceReplaced => "service-replaced",
            EffectKind::InstanceReplacement => "instance-replacement",
            EffectKind::DriverChange => "driver-change",
            EffectKind::Deployment => "deployment",
            EffectKind::ScaleIn => "scale-in",
            EffectKind::DriftRevert => "drift-revert",
            EffectKind::ProtectionRemoved => "protection-removed",
            EffectKind::ScaleOut => "scale-out",
            EffectKind::NotReachingRunningInstances => "not-reaching-running-instances",
            EffectKind::RevisionDeregistered => "revision-deregistered",
            EffectKind::NoEffect => "no-effect",
        }
    }
}

impl fmt::Display for EffectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an effect kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown effect kind `{0}`; known kinds: apply-fails, capacity-destroyed, service-replaced, instance-replacement, driver-change, deployment, scale-in, drift-revert, protection-removed, scale-out, not-reaching-running-instances, revision-deregistered, no-effect")]
pub struct UnknownKind(pub String);

impl FromStr for EffectKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, UnknownKind> {
        EffectKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s.trim())
            .ok_or_else(|| UnknownKind(s.to_string()))
    }
}

/// What the apply does to one GPU-stack resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    pub kind: EffectKind,
    /// The address of the resource that changes.
    pub address: String,
    /// The addresses of the resources the effect involves (the task definition a service runs, the
    /// launch template of a group, ...).
    pub related: Vec<String>,
    /// What happens, in ECS terms: lowercase, no trailing period, identifiers in backticks.
    pub message: String,
    /// What to do about it, when there is something to do.
    pub help: Option<String>,
}

/// A plan, reduced to its GPU-stack resources.
#[derive(Debug)]
pub struct Plan {
    model: model::Model,
    /// `format_version` of the plan JSON.
    pub format_version: String,
    /// The Terraform version that made the plan, when it says.
    pub terraform_version: Option<String>,
    /// The entries of `resource_changes`, GPU stack or not, that change something: the ones
    /// Terraform's own summary counts (not `no-op`, not a data source's `read`).
    pub resource_changes: usize,
}

impl Plan {
    /// The effects, most disruptive kind first, then in plan order.
    pub fn effects(&self) -> Vec<Effect> {
        let mut effects = effects::detect(&self.model);
        effects.sort_by_key(|e| e.kind);
        effects
    }

    /// Whether planning stopped at an error (`errored: true`, plan format 1.2, Terraform 1.5 and
    /// later). The changes of such a plan are the ones planned before the error: partial.
    pub fn is_errored(&self) -> bool {
        self.model.errored
    }

    /// Terraform's `applyable`: the plan succeeded and makes some change. `false` for an errored
    /// plan and for a plan with nothing to apply (Terraform 1.8 and later write it; for an older
    /// plan it is derived the same way from `errored` and the changes).
    pub fn is_applyable(&self) -> bool {
        self.model
            .applyable
            .unwrap_or(!self.model.errored && self.resource_changes > 0)
    }

    /// Whether the plan holds every change the configuration needs: `false` for a `-target` plan
    /// (`complete: false`) and for a plan that stopped at an error. A plan with nothing to apply is
    /// complete.
    pub fn is_complete(&self) -> bool {
        self.model.completeness == model::Completeness::Complete
    }

    /// Resource changes on the GPU stack (actions other than `no-op` and `read`). A scaling target
    /// of another service (a DynamoDB table's) is not part of the GPU stack.
    pub fn gpu_stack_changes(&self) -> usize {
        self.model
            .changed
            .iter()
            .map(|&i| &self.model.resources[i])
            .filter(|r| {
                r.type_ != "aws_appautoscaling_target"
                    || r.current()
                        .str(&["service_namespace"])
                        .is_none_or(|n| n == "ecs")
            })
            .filter_map(|r| r.change.as_ref())
            .filter(|c| c.actions.iter().any(|a| a != "no-op" && a != "read"))
            .count()
    }
}

/// Reads the JSON of `terraform show -json PLANFILE` from `reader` in one streaming pass. Memory
/// holds the GPU-stack resources only, never the whole document. Pass a concrete reader (a
/// `BufReader<File>`, not a `Box<dyn BufRead>`): the parser reads byte by byte, and a dynamic
/// reader makes each byte a virtual call.
///
/// # Errors
/// The input cannot be read, is empty, is a binary plan file, is not JSON, or is JSON but not a
/// plan (a state file, other JSON), or a plan format this crate does not read.
pub fn read<R: BufRead>(mut reader: R) -> Result<Plan, Error> {
    let head = reader.fill_buf().map_err(Error::Io)?;
    check_head(head)?;
    if head.starts_with(UTF8_BOM) {
        reader.consume(UTF8_BOM.len());
    }
    // Whitespace only is an empty input, not a JSON syntax error at the last line.
    loop {
        let buf = reader.fill_buf().map_err(Error::Io)?;
        if buf.is_empty() {
            return Err(Error::Empty);
        }
        let blank = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if blank < buf.len() {
            break;
        }
        reader.consume(blank);
    }
    // The parts of a plan that are skipped are skipped without a depth limit (serde_json keeps
    // one byte per open list or object of a skipped value): `yes '[' | ecs-gpu plan -` filled
    // memory until the process aborted. The nesting is bounded on the bytes as they are read.
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(
        1 << 16,
        Nesting::new(reader),
    ));
    let raw = parse::read(&mut de).map_err(Error::from_json)?;
    de.end().map_err(Error::from_json)?;
    from_raw(raw)
}

/// The deepest nesting of lists and objects a plan may have: far beyond Terraform's values (whose
/// parts this crate keeps are bounded at 128 levels by the JSON parser itself).
pub const MAX_NESTING: u32 = 512;

/// A reader that fails once the JSON it passes on nests lists and objects more than
/// [`MAX_NESTING`] levels deep, looking at each byte once (strings are skipped, escapes and all).
#[derive(Debug)]
struct Nesting<R> {
    inner: R,
    depth: u32,
    in_string: bool,
    escaped: bool,
}

impl<R> Nesting<R> {
    fn new(inner: R) -> Self {
        Nesting {
            inner,
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }
}

impl<R: std::io::Read> std::io::Read for Nesting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => {
                    self.depth += 1;
                    if self.depth > MAX_NESTING {
                        return Err(std::io::Error::other(format!(
                            "lists and objects nested more than {MAX_NESTING} levels deep: not a plan"
                        )));
                    }
                }
                b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
        Ok(n)
    }
}

/// Same as [`read`], from bytes in memory.
///
/// # Errors
/// As [`read`].
pub fn read_slice(bytes: &[u8]) -> Result<Plan, Error> {
    check_head(bytes)?;
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::Empty);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let raw = parse::read(&mut de).map_err(Error::from_json)?;
    de.end().map_err(Error::from_json)?;
    from_raw(raw)
}

/// Whether the first bytes of a file are those of a binary plan file (a zip archive) rather than
/// JSON.
pub fn is_binary_plan(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04")
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Refuses, by their first bytes, the inputs that are not JSON text: a binary plan file, and JSON
/// in UTF-16 (what Windows PowerShell 5's `>` writes).
fn check_head(head: &[u8]) -> Result<(), Error> {
    if is_binary_plan(head) {
        return Err(Error::BinaryPlan);
    }
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        return Err(Error::Utf16);
    }
    Ok(())
}

fn from_raw(raw: parse::Raw) -> Result<Plan, Error> {
    if let Some(what) = raw.not_object {
        return Err(Error::NotAPlan {
            what: what.to_string(),
        });
    }
    let is_plan = raw.has("resource_changes") || raw.has("planned_values");
    if !is_plan {
        if raw.has("lineage") && raw.has("serial") {
            return Err(Error::StateFile {
                what: "a raw terraform.tfstate",
            });
        }
        if raw.has("values") || raw.has("format_version") || raw.has("terraform_version") {
            return Err(Error::StateFile {
                what: "the output of `terraform show -json` without a plan file",
            });
        }
        let what = if raw.keys.is_empty() {
            "an empty JSON object".to_string()
        } else {
            let shown: Vec<String> = raw.keys.iter().take(5).map(|k| format!("`{k}`")).collect();
            let more = if raw.keys.len() > 5 { ", ..." } else { "" };
            format!("a JSON object with keys {}{more}", shown.join(", "))
        };
        return Err(Error::NotAPlan { what });
    }
    // The format's documentation makes `format_version` a version string; only a version-shaped
    // value is ever quoted back: anything else may be anything.
    let format_version = match &raw.format_version {
        parse::FormatVersion::Absent => String::new(),
        parse::FormatVersion::NotText => return Err(Error::BadFormatVersion),
        parse::FormatVersion::Text(v) => v.clone(),
    };
    let version_like = format_version.len() <= 16
        && format_version
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if raw.format_version != parse::FormatVersion::Absent && !version_like {
        return Err(Error::BadFormatVersion);
    }
    if !format_version.is_empty() && format_version.split('.').next() != Some("1") {
        return Err(Error::UnsupportedFormat {
            version: format_version,
        });
    }
    let terraform_version = raw.terraform_version.clone();
    let resource_changes = raw.resource_changes_changing;
    Ok(Plan {
        model: model::Model::build(raw, model::Relations::build),
        format_version,
        terraform_version,
        resource_changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for k in EffectKind::ALL {
            assert_eq!(k.as_str().parse::<EffectKind>(), Ok(k));
        }
        assert!("deploy".parse::<EffectKind>().is_err());
    }
}
