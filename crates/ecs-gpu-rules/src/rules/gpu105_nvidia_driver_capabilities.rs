use ecs_gpu_catalog::catalog;
use ecs_gpu_model::{Model, TaskDefinitionOrigin, Value};

use crate::task::{gpu_containers, task_definitions, Container};
use crate::{declare_rule, Findings, Severity};

// The facts in the documentation below, from ../shared/data/ecs-gpu-facts.md: ECS sets only
// `NVIDIA_VISIBLE_DEVICES`, and its guide says `utility,compute` or `all` (source key ECS-GPU); the
// capability names and the toolkit's default when the variable is not set, `utility,compute`
// (source key NCT).
declare_rule! {
    /// ## What it checks
    ///
    /// The `NVIDIA_DRIVER_CAPABILITIES` environment variable of each container that reserves GPUs:
    ///
    /// - **error** when its value names something that is not an NVIDIA driver capability
    ///   (`compute`, `compat32`, `graphics`, `utility`, `video`, `display`, `ngx`, `all`, `none`);
    /// - **warning** when the container's `environment` does not set it;
    /// - **info** instead when the image is an NVIDIA base image (`nvidia/cuda`, `nvcr.io/nvidia/*`),
    ///   which sets it itself, or when the image is not known (a variable with no value, an
    ///   attribute known only after apply): it may be one, and a warning could be wrong.
    ///
    /// Nothing is reported when the environment cannot be known in full (a variable, an
    /// `environmentFiles` entry or a `secrets` entry that may set it).
    ///
    /// ## Why it matters
    ///
    /// ECS sets only `NVIDIA_VISIBLE_DEVICES` for a GPU container; the other NVIDIA variables are not
    /// set by ECS. The driver capabilities decide which driver libraries the NVIDIA container runtime
    /// mounts into the container: `compute` for CUDA, `utility` for `nvidia-smi`, `video` for
    /// NVENC/NVDEC, `graphics` and `display` for rendering. When the variable is not set at all, the
    /// NVIDIA container toolkit mounts its default, `utility,compute`: CUDA works, and a video or
    /// graphics workload starts without its libraries. The ECS guide says to set `utility,compute` or
    /// `all` for images not built on the NVIDIA/CUDA base images, so that what the container gets is
    /// written where its GPUs are reserved, not left to the default of the toolkit on the AMI. A
    /// misspelt name is not a capability, and the runtime refuses or ignores it, so the container
    /// starts without the libraries it needs.
    ///
    /// The checker reads task definitions, not images: an image that is not an NVIDIA base image
    /// may still set the variable in its own `ENV` (`ollama/ollama` does: the last stage of its
    /// Dockerfile sets `NVIDIA_DRIVER_CAPABILITIES=compute,utility`), and the warning then has
    /// nothing to fix. `docker image inspect --format '{{.Config.Env}}' IMAGE` shows what an image
    /// sets. Set the variable in the task definition anyway (the capabilities are then written
    /// where the GPUs are reserved), or suppress the finding with that reason.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// container_definitions = jsonencode([{
    ///   name                 = "encoder"
    ///   image                = "123456789012.dkr.ecr.us-east-1.amazonaws.com/encoder:3"
    ///   resourceRequirements = [{ type = "GPU", value = "1" }]
    ///   environment = [
    ///     { name = "NVIDIA_DRIVER_CAPABILITIES", value = "compute,utility,nvenc" },
    ///   ]
    /// }])
    /// ```
    ///
    /// ## How to fix
    ///
    /// Set the capabilities the workload needs, from NVIDIA's list:
    ///
    /// ```hcl
    /// environment = [
    ///   { name = "NVIDIA_DRIVER_CAPABILITIES", value = "compute,utility,video" },
    /// ]
    /// ```
    pub static RULE = {
        id: "GPU105",
        name: "nvidia-driver-capabilities",
        severity: Warning,
        summary: "a GPU container's `NVIDIA_DRIVER_CAPABILITIES` is missing or names an unknown capability",
        check: check,
    }
}

pub(crate) const VARIABLE: &str = "NVIDIA_DRIVER_CAPABILITIES";

/// Image references of NVIDIA's own base images, which set `NVIDIA_DRIVER_CAPABILITIES` (source
/// key ECS-GPU: "images built on NVIDIA/CUDA base images").
const NVIDIA_IMAGE_PREFIXES: &[&str] = &["nvidia/cuda", "docker.io/nvidia/cuda", "nvcr.io/nvidia/"];

/// Whether the image is known to be an NVIDIA base image (a partly known image may prove it).
fn nvidia_image(c: &Container<'_>) -> Option<String> {
    let image = c.get("image")?;
    match &image.value {
        Value::String(s) => NVIDIA_IMAGE_PREFIXES
            .iter()
            .any(|p| s.starts_with(p))
            .then(|| s.to_string()),
        Value::Unknown(u) => u
            .fragments
            .iter()
            .find(|f| NVIDIA_IMAGE_PREFIXES.iter().any(|p| f.starts_with(p)))
            .map(|f| format!("{f}...")),
        _ => None,
    }
}

/// Whether `secrets` may set the variable (an unknown list or name, or the name itself).
fn secrets_may_set(c: &Container<'_>) -> bool {
    let Some(secrets) = c.get("secrets") else {
        return false;
    };
    if matches!(secrets.value, Value::Null) {
        return false;
    }
    let Some(list) = secrets.as_list() else {
        return true;
    };
    list.iter().any(|s| match s.get("name").map(|n| &n.value) {
        Some(Value::String(n)) => n == VARIABLE,
        _ => true,
    })
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let caps = &catalog().capabilities;
    for td in task_definitions(model) {
        for c in gpu_containers(td) {
            let Some(env) = c.environment() else { continue };
            let set = env.iter().find(|(name, _)| *name == VARIABLE);
            match set {
                Some((_, value)) => {
                    let Value::String(v) = &value.value else {
                        continue;
                    };
                    let invalid: Vec<&str> = caps
                        .invalid_names(v)
                        .into_iter()
                        .filter(|n| !n.is_empty())
                        .collect();
                    if invalid.is_empty() {
                        continue;
                    }
                    let names = invalid
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    report
                        .add(
                            value.loc,
                            format!(
                                "`{VARIABLE}` of container {} names {names}, not an NVIDIA driver capability",
                                c.display_name()
                            ),
                        )
                        .severity(Severity::Error)
                        .help(format!(
                            "use names from {}; `{}` is the usual choice",
                            caps.names
                                .iter()
                                .map(|n| format!("`{n}`"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            caps.default
                        ))
                        .task(td);
                }
                None if secrets_may_set(&c) => {}
                None => {
                    let at = c
                        .get("environment")
                        .and_then(|e| e.loc)
                        .or(c.gpu_requirements()[0].loc)
                        .or(c.node.loc);
                    match nvidia_image(&c) {
                        Some(image) => {
                            report
                                .add(
                                    at,
                                    format!(
                                        "GPU container {} does not set `{VARIABLE}`; its NVIDIA base image `{image}` sets it",
                                        c.display_name()
                                    ),
                                )
                                .severity(Severity::Info)
                                .help(format!(
                                    "nothing to do unless the workload needs more than the image's capabilities (`video`, `graphics`): then set `{VARIABLE}` in `environment`"
                                ))
                                .task(td);
                        }
                        None => {
                            // In the syntax of the file the container is written in.
                            let add = if matches!(td.origin, TaskDefinitionOrigin::JsonFile(_)) {
                                format!(
                                    "add `{{\"name\": \"{VARIABLE}\", \"value\": \"{}\"}}` to `environment`",
                                    caps.default
                                )
                            } else {
                                format!(
                                    "add `{{ name = \"{VARIABLE}\", value = \"{}\" }}` to `environment`",
                                    caps.default
                                )
                            };
                            match c.get("image").map(|i| &i.value) {
                                Some(Value::String(image)) => {
                                    report
                                        .add(
                                            at,
                                            format!(
                                                "GPU container {} does not set `{VARIABLE}`, and its image `{image}` is not known to be an NVIDIA base image",
                                                c.display_name()
                                            ),
                                        )
                                        .help(format!(
                                            "{add}, unless the image sets it in its own `ENV` (`docker image inspect` shows it)"
                                        ))
                                        .task(td);
                                }
                                // Not known: it may be an NVIDIA base image, so no warning.
                                _ => {
                                    report
                                        .add(
                                            at,
                                            format!(
                                                "GPU container {} does not set `{VARIABLE}`, and its image is not known",
                                                c.display_name()
                                            ),
                                        )
                                        .severity(Severity::Info)
                                        .help(format!(
                                            "unless the image is built on an NVIDIA CUDA base image or sets it in its own `ENV`, {add}"
                                        ))
                                        .task(td);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
