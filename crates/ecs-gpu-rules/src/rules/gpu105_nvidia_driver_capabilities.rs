use ecs_gpu_catalog::{catalog, gpu_base_images};
use ecs_gpu_model::{Model, Value};

use crate::task::{
    containers_in_json, gpu_containers, task_definitions, Container, TASK_DEFINITIONS,
};
use crate::{declare_rule, Findings, Severity};

// The facts in the documentation below, from crates/ecs-gpu-catalog/data/sources/ecs-gpu-facts.md: ECS sets only
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
    /// - **warning** when its value is valid but has neither `compute` nor `all`: the container
    ///   reserves GPUs and gets no CUDA libraries;
    /// - **info** when the container does not set it and its image is not known to set it (an
    ///   image that is not in the catalog's list of CUDA-based images, or an image that is not
    ///   known, such as a variable with no value). The toolkit's default then applies.
    ///
    /// Nothing is reported for a container that does not set it and whose image the catalog lists
    /// as built on the NVIDIA CUDA base images or setting the variable itself (`nvidia/cuda`,
    /// `nvcr.io/nvidia/*`, `vllm/vllm-openai`, `ollama/ollama`, `pytorch/pytorch:*-cuda*`,
    /// `rayproject/ray:*-gpu`, ...: `crates/ecs-gpu-catalog/data/gpu-base-images.json`, each with
    /// its source), nor when the environment cannot be known in full (a variable, an
    /// `environmentFiles` entry or a `secrets` entry that may set it).
    ///
    /// ## Why it matters
    ///
    /// ECS sets only `NVIDIA_VISIBLE_DEVICES` for a GPU container; the other NVIDIA variables are not
    /// set by ECS. The driver capabilities decide which driver libraries the NVIDIA container runtime
    /// mounts into the container: `compute` for CUDA, `utility` for `nvidia-smi`, `video` for
    /// NVENC/NVDEC, `graphics` and `display` for rendering. A value without `compute` (`utility`
    /// alone, `graphics`) leaves CUDA out: the container sees the GPU in `nvidia-smi` and every CUDA
    /// call fails. A misspelt name is not a capability, and the runtime refuses or ignores it, so
    /// the container starts without the libraries it needs.
    ///
    /// When the variable is not set at all, neither in the task definition nor in the image, the
    /// NVIDIA container toolkit mounts its default, `utility,compute`: CUDA works, and only a video
    /// or graphics workload starts without its libraries. That is why an unset variable is at most
    /// an info. The ECS guide says to set `utility,compute` or `all` for images not built on the
    /// NVIDIA/CUDA base images. The checker reads task definitions, not images:
    /// `docker image inspect --format '{{.Config.Env}}' IMAGE` shows what an image sets.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// container_definitions = jsonencode([{
    ///   name                 = "encoder"
    ///   image                = "123456789012.dkr.ecr.us-east-1.amazonaws.com/encoder:3"
    ///   resourceRequirements = [{ type = "GPU", value = "1" }]
    ///   environment = [
    ///     { name = "NVIDIA_DRIVER_CAPABILITIES", value = "utility,nvenc" },
    ///   ]
    /// }])
    /// ```
    ///
    /// ## How to fix
    ///
    /// Set the capabilities the workload needs, from NVIDIA's list, with `compute` for CUDA:
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
        summary: "a GPU container's `NVIDIA_DRIVER_CAPABILITIES` names an unknown capability or leaves out `compute`",
        reads: { analyses: [TASK_DEFINITIONS] },
        check: check,
    }
}

pub(crate) const VARIABLE: &str = "NVIDIA_DRIVER_CAPABILITIES";

/// The image, when the catalog lists it as CUDA-based (a partly known image may prove it).
fn cuda_based_image(c: &Container<'_>) -> Option<String> {
    let images = gpu_base_images();
    let image = c.get("image")?;
    match &image.value {
        Value::String(s) => images.find(s).map(|_| s.to_string()),
        Value::Unknown(u) => u
            .fragments
            .first()
            .filter(|f| images.find_prefix(f).is_some())
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
            // An empty value is the toolkit's default, as an unset one.
            let set = env.iter().find(|(name, _)| *name == VARIABLE).filter(
                |(_, value)| !matches!(&value.value, Value::String(v) if v.trim().is_empty()),
            );
            match set {
                Some((_, value)) => {
                    let Value::String(v) = &value.value else {
                        continue;
                    };
                    let names: Vec<&str> = v
                        .split(',')
                        .map(str::trim)
                        .filter(|n| !n.is_empty())
                        .collect();
                    let invalid: Vec<&str> = caps
                        .invalid_names(v)
                        .into_iter()
                        .filter(|n| !n.is_empty())
                        .collect();
                    // A hidden value is quoted as `(sensitive)`, never in pieces: a piece of a
                    // secret is not the secret, so the last guard (which hides whole texts)
                    // would let it through.
                    let shown = value.shown();
                    if invalid.is_empty() {
                        if names.iter().any(|n| *n == "compute" || *n == "all") {
                            continue;
                        }
                        report
                            .add(
                                value.loc,
                                format!(
                                    "`{VARIABLE}` of GPU container {} is `{shown}`, without `compute`: CUDA libraries are not mounted",
                                    c.display_name()
                                ),
                            )
                            .help(format!(
                                "add `compute` to the value (`{}` is the usual choice), or stop reserving GPUs for this container",
                                caps.default
                            ))
                            .task(td);
                        continue;
                    }
                    let message = if value.is_sensitive() {
                        format!(
                            "`{VARIABLE}` of container {} is `{shown}`, and names what is not an NVIDIA driver capability",
                            c.display_name()
                        )
                    } else {
                        let names = invalid
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ");
                        format!(
                            "`{VARIABLE}` of container {} names {names}, not an NVIDIA driver capability",
                            c.display_name()
                        )
                    };
                    report
                        .add(value.loc, message)
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
                // The image sets it (or its CUDA base image does): nothing to say.
                None if cuda_based_image(&c).is_some() => {}
                None => {
                    let at = c
                        .get("environment")
                        .and_then(|e| e.loc)
                        .or(c.gpu_requirements()[0].loc)
                        .or(c.node.loc);
                    // In the syntax of the file the container is written in.
                    let add = if containers_in_json(td) {
                        format!(
                            "`{{\"name\": \"{VARIABLE}\", \"value\": \"compute,utility,video\"}}`"
                        )
                    } else {
                        format!("`{{ name = \"{VARIABLE}\", value = \"compute,utility,video\" }}`")
                    };
                    let image = match c.get("image").map(|i| &i.value) {
                        Some(Value::String(image)) => {
                            format!("its image `{image}` is not known to set it")
                        }
                        _ => "its image is not known".to_string(),
                    };
                    report
                        .add(
                            at,
                            format!(
                                "GPU container {} does not set `{VARIABLE}` and {image}: the toolkit's default `{}` applies",
                                c.display_name(),
                                caps.default
                            ),
                        )
                        .severity(Severity::Info)
                        .help(format!(
                            "enough for CUDA; a video or graphics workload needs it in `environment`: {add}"
                        ))
                        .task(td);
                }
            }
        }
    }
}
