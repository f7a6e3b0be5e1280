//! All the inputs of one diagnosis, and reading and writing them as a directory of AWS CLI JSON files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use crate::saved::MAX_SAVED_ITEMS;

use crate::api::{
    Call, CallError, DescribeAutoScalingGroupsOutput, DescribeCapacityProvidersOutput,
    DescribeContainerInstancesOutput, DescribeScalingActivitiesOutput, DescribeServicesOutput,
    DescribeTaskDefinitionOutput, DescribeTasksOutput, ListContainerInstancesOutput,
};

/// What the diagnosis reads. Every part is optional: a step whose inputs are missing is `unknown`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    pub services: Option<DescribeServicesOutput>,
    pub task_definition: Option<DescribeTaskDefinitionOutput>,
    pub container_instances: Option<DescribeContainerInstancesOutput>,
    pub tasks: Option<DescribeTasksOutput>,
    pub capacity_providers: Option<DescribeCapacityProvidersOutput>,
    pub auto_scaling_groups: Option<DescribeAutoScalingGroupsOutput>,
    pub scaling_activities: Option<DescribeScalingActivitiesOutput>,
    /// The ARNs ListContainerInstances gave, when a saved `list-container-instances.json` holds
    /// them: the only AWS CLI output that can say a cluster has no container instance.
    pub container_instance_arns: Option<ListContainerInstancesOutput>,
    /// How `container_instances` came to be known empty without a DescribeContainerInstances answer
    /// (an empty list, an empty file), for the evidence.
    pub no_instances_because: Option<String>,
    /// Calls that did not answer (live mode), so the steps that need them can say why they are unknown.
    pub errors: Vec<CallError>,
}

/// The fields of the saved AWS CLI output the typed inputs leave out.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// `describe-capacity-providers.json`.
    pub capacity_providers: Option<serde_json::Value>,
    /// `describe-services.json`.
    pub services: Option<serde_json::Value>,
    /// `describe-auto-scaling-groups.json`.
    pub auto_scaling_groups: Option<serde_json::Value>,
    /// The items of each list by name, made on the first look-up: a cluster read live or saved
    /// may have thousands of services or groups, each looked up once.
    index: std::sync::OnceLock<ExtrasIndex>,
}

/// Indexes of [`Extras`]' lists by name (the first item of a name, as a search would find).
#[derive(Debug, Clone, Default)]
struct ExtrasIndex {
    providers: std::collections::HashMap<String, usize>,
    groups: std::collections::HashMap<String, usize>,
    services: std::collections::HashMap<String, usize>,
}

impl Extras {
    /// Reads the extra fields from the saved files in `dir`, found and read as
    /// [`Inputs::from_dir`] reads them (by the same reader, [`read_saved`]): a call with no file
    /// has no extras.
    ///
    /// # Errors
    /// As [`read_saved`].
    pub fn from_dir(dir: &Path) -> Result<Extras, FilesError> {
        Ok(read_saved(dir)?.extras)
    }

    fn items<'a>(value: Option<&'a serde_json::Value>, list: &str) -> &'a [serde_json::Value] {
        value
            .and_then(|v| v.get(list))
            .and_then(serde_json::Value::as_array)
            .map_or(&[][..], Vec::as_slice)
    }

    fn index(&self) -> &ExtrasIndex {
        self.index.get_or_init(|| {
            let by = |value: Option<&serde_json::Value>, list: &str, key: &str| {
                let mut map = std::collections::HashMap::new();
                for (i, item) in Extras::items(value, list).iter().enumerate() {
                    if let Some(name) = item.get(key).and_then(serde_json::Value::as_str) {
                        map.entry(name.to_string()).or_insert(i);
                    }
                }
                map
            };
            ExtrasIndex {
                providers: by(
                    self.capacity_providers.as_ref(),
                    "capacityProviders",
                    "name",
                ),
                groups: by(
                    self.auto_scaling_groups.as_ref(),
                    "AutoScalingGroups",
                    "AutoScalingGroupName",
                ),
                services: by(self.services.as_ref(), "services", "serviceName"),
            }
        })
    }

    pub(crate) fn provider(&self, name: &str) -> Option<&serde_json::Value> {
        let i = *self.index().providers.get(name)?;
        Extras::items(self.capacity_providers.as_ref(), "capacityProviders").get(i)
    }

    pub(crate) fn group(&self, name: &str) -> Option<&serde_json::Value> {
        let i = *self.index().groups.get(name)?;
        Extras::items(self.auto_scaling_groups.as_ref(), "AutoScalingGroups").get(i)
    }

    pub(crate) fn service(&self, name: &str) -> Option<&serde_json::Value> {
        let i = *self.index().services.get(name)?;
        Extras::items(self.services.as_ref(), "services").get(i)
    }
}

/// What a folder of saved outputs holds: the diagnosis's inputs and the simulation's extras, each
/// file read once ([`read_saved`]).
#[derive(Debug, Clone, Default)]
pub struct Saved {
    pub inputs: Inputs,
    pub extras: Extras,
}

/// Why a directory of saved outputs could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    // The cause is part of the message and not a `source`, so a caller that prints the error
    // chain does not print it twice.
    #[error("{}: {}", path.display(), io_text(cause))]
    Io { path: PathBuf, cause: io::Error },
    #[error("{}: not the JSON that `aws {command}` prints: {}", path.display(), json_text(cause))]
    Json {
        path: PathBuf,
        command: String,
        cause: serde_json::Error,
    },
    #[error("{}: no AWS CLI output found; expected {expected} (or files with their content); found {found}", path.display())]
    Empty {
        path: PathBuf,
        expected: String,
        found: String,
    },
    #[error("{}: not JSON (YAML or text output?): run the AWS CLI with `--output json`", path.display())]
    NotJson { path: PathBuf },
    /// A file that is not read: what it is, its size ([`ecs_gpu_fs`], the one opener of every
    /// command), or a shape that is not AWS CLI output (`saved::check_shape`).
    #[error("{}: {cause}", path.display())]
    File { path: PathBuf, cause: String },
    /// All the files of one call together list more than [`MAX_SAVED_ITEMS`] items.
    #[error("{}: the files of `{command}` together list more than {MAX_SAVED_ITEMS} {what}, more than `diagnose` reads of one list live", path.display())]
    TooManyItems {
        path: PathBuf,
        command: &'static str,
        what: &'static str,
    },
    /// An empty describe-container-instances file where the other files show instances: a call
    /// that failed, not an empty cluster.
    #[error("{}: empty, but {why}: it holds no instance because the call that wrote it failed; save it again (docs/diagnose.md has the commands)", path.display())]
    EmptyButInstances { path: PathBuf, why: String },
}

impl Inputs {
    /// Whether nothing at all is known.
    pub fn is_empty(&self) -> bool {
        self.services.is_none()
            && self.task_definition.is_none()
            && self.container_instances.is_none()
            && self.tasks.is_none()
            && self.capacity_providers.is_none()
            && self.auto_scaling_groups.is_none()
            && self.scaling_activities.is_none()
            && self.container_instance_arns.is_none()
    }

    /// The error of a call that did not answer, if it failed.
    pub fn error(&self, call: Call) -> Option<&CallError> {
        self.errors.iter().find(|e| e.call == call)
    }

    /// Reads the saved outputs in `dir` ([`read_saved`]).
    ///
    /// # Errors
    /// As [`read_saved`].
    pub fn from_dir(dir: &Path) -> Result<Inputs, FilesError> {
        Ok(read_saved(dir)?.inputs)
    }

    /// The most items of the lists of one call now known, and what they are.
    fn largest_list(&self, call: Call) -> (usize, &'static str) {
        match call {
            Call::DescribeServices => (
                self.services
                    .as_ref()
                    .map_or(0, |s| s.services.len().max(s.failures.len())),
                "services",
            ),
            Call::DescribeContainerInstances => (
                self.container_instances
                    .as_ref()
                    .map_or(0, |c| c.container_instances.len().max(c.failures.len())),
                "container instances",
            ),
            Call::DescribeTasks => (
                self.tasks
                    .as_ref()
                    .map_or(0, |t| t.tasks.len().max(t.failures.len())),
                "tasks",
            ),
            Call::DescribeCapacityProviders => (
                self.capacity_providers
                    .as_ref()
                    .map_or(0, |c| c.capacity_providers.len().max(c.failures.len())),
                "capacity providers",
            ),
            Call::DescribeAutoScalingGroups => (
                self.auto_scaling_groups
                    .as_ref()
                    .map_or(0, |a| a.auto_scaling_groups.len()),
                "Auto Scaling groups",
            ),
            Call::DescribeScalingActivities => (
                self.scaling_activities
                    .as_ref()
                    .map_or(0, |a| a.activities.len()),
                "scaling activities",
            ),
            Call::ListContainerInstances => (
                self.container_instance_arns
                    .as_ref()
                    .map_or(0, |l| l.container_instance_arns.len()),
                "container instance ARNs",
            ),
            Call::DescribeTaskDefinition | Call::DescribeClusters | Call::ListTasks => (0, "items"),
        }
    }

    /// Adds one file's output to what is known.
    fn add(&mut self, call: Call, path: &Path, text: &str) -> Result<(), FilesError> {
        fn parse<T: DeserializeOwned>(
            path: &Path,
            call: Call,
            text: &str,
        ) -> Result<T, FilesError> {
            let start = text.trim_start().chars().next();
            if !matches!(start, Some('{' | '[')) {
                return Err(FilesError::NotJson {
                    path: path.to_path_buf(),
                });
            }
            serde_json::from_str(text).map_err(|cause| FilesError::Json {
                path: path.to_path_buf(),
                command: command(call).to_string(),
                cause,
            })
        }
        match call {
            Call::DescribeServices => {
                let v: DescribeServicesOutput = parse(path, call, text)?;
                let out = self.services.get_or_insert_with(Default::default);
                out.services.extend(v.services);
                out.failures.extend(v.failures);
            }
            Call::DescribeTaskDefinition => {
                let has_wrapper = serde_json::from_str::<
                    std::collections::HashMap<String, serde::de::IgnoredAny>,
                >(text)
                .is_ok_and(|m| m.contains_key("taskDefinition"));
                let v = if has_wrapper {
                    parse::<DescribeTaskDefinitionOutput>(path, call, text)?
                } else {
                    // `--query taskDefinition` prints the task definition itself.
                    DescribeTaskDefinitionOutput {
                        task_definition: parse(path, call, text)?,
                    }
                };
                if self.task_definition.is_some() {
                    return Err(FilesError::Io {
                        path: path.to_path_buf(),
                        cause: io::Error::other(
                            "a second task definition: keep the one of the task that does not start",
                        ),
                    });
                }
                self.task_definition = Some(v);
            }
            Call::DescribeContainerInstances => {
                let v: DescribeContainerInstancesOutput = parse(path, call, text)?;
                let out = self
                    .container_instances
                    .get_or_insert_with(Default::default);
                out.container_instances.extend(v.container_instances);
                out.failures.extend(v.failures);
            }
            Call::DescribeTasks => {
                let v: DescribeTasksOutput = parse(path, call, text)?;
                let out = self.tasks.get_or_insert_with(Default::default);
                out.tasks.extend(v.tasks);
                out.failures.extend(v.failures);
            }
            Call::DescribeCapacityProviders => {
                let v: DescribeCapacityProvidersOutput = parse(path, call, text)?;
                let out = self.capacity_providers.get_or_insert_with(Default::default);
                out.capacity_providers.extend(v.capacity_providers);
                out.failures.extend(v.failures);
            }
            Call::DescribeAutoScalingGroups => {
                let v: DescribeAutoScalingGroupsOutput = parse(path, call, text)?;
                let out = self
                    .auto_scaling_groups
                    .get_or_insert_with(Default::default);
                out.auto_scaling_groups.extend(v.auto_scaling_groups);
            }
            Call::DescribeScalingActivities => {
                let v: DescribeScalingActivitiesOutput = parse(path, call, text)?;
                let out = self.scaling_activities.get_or_insert_with(Default::default);
                out.activities.extend(v.activities);
            }
            Call::ListContainerInstances => {
                let v: ListContainerInstancesOutput = parse(path, call, text)?;
                let out = self
                    .container_instance_arns
                    .get_or_insert_with(Default::default);
                out.container_instance_arns
                    .extend(v.container_instance_arns);
            }
            Call::DescribeClusters | Call::ListTasks => {}
        }
        Ok(())
    }

    /// What the container instances are when no DescribeContainerInstances answer says: none, when
    /// an empty `list-container-instances.json` or an empty describe file says so and nothing else
    /// contradicts it.
    fn settle_instances(&mut self, empty_files: &[PathBuf]) -> Result<(), FilesError> {
        let running_tasks = self
            .services
            .iter()
            .flat_map(|s| &s.services)
            .map(|s| s.running_count)
            .sum::<i64>()
            + self
                .tasks
                .iter()
                .flat_map(|t| &t.tasks)
                .filter(|t| {
                    t.container_instance_arn.is_some()
                        && t.last_status.as_deref() == Some("RUNNING")
                })
                .count() as i64;
        let listed = self
            .container_instance_arns
            .as_ref()
            .map(|l| l.container_instance_arns.len());
        if let Some(path) = empty_files.first() {
            let why = if self.container_instances.is_some() {
                Some("other files describe container instances".to_string())
            } else if let Some(n) = listed.filter(|n| *n > 0) {
                Some(format!(
                    "list-container-instances.json lists {n} container instance{}",
                    if n == 1 { "" } else { "s" }
                ))
            } else if running_tasks > 0 {
                Some(format!(
                    "the other files show {running_tasks} running task{}",
                    if running_tasks == 1 { "" } else { "s" }
                ))
            } else {
                None
            };
            if let Some(why) = why {
                return Err(FilesError::EmptyButInstances {
                    path: path.clone(),
                    why,
                });
            }
        }
        if self.container_instances.is_some() {
            return Ok(());
        }
        if listed == Some(0) {
            self.container_instances = Some(DescribeContainerInstancesOutput::default());
            self.no_instances_because =
                Some("list-container-instances.json lists no container instance".to_string());
        } else if let Some(path) = empty_files.first() {
            self.container_instances = Some(DescribeContainerInstancesOutput::default());
            self.no_instances_because = Some(format!(
                "{} is empty: read as no container instance (the AWS CLI cannot describe zero instances)",
                path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned()
                )
            ));
        }
        Ok(())
    }

    /// Writes every known output to `dir` ([`SaveDir::open`]: a new or empty folder) in the AWS
    /// CLI shape ([`Inputs::save_into`]), and returns the paths written.
    ///
    /// # Errors
    /// As [`SaveDir::open`] and [`Inputs::save_into`].
    pub fn save(&self, dir: &Path, extras: &Extras) -> Result<Vec<PathBuf>, FilesError> {
        self.save_into(&SaveDir::open(dir)?, extras)
    }

    /// Writes every known output to `to` in the AWS CLI shape, one file per call, and returns the
    /// paths written. Unknown outputs are not written, so `from_dir` reads back exactly these
    /// inputs. The fields only the simulation reads ([`Extras`]: the deployment and placement
    /// strategies, managed scaling's step sizes and warmup, a group's mixed instances policy and
    /// warm pool) are written into the same objects, so that `simulate --from` reads back what the
    /// live run read: without them it would take a blue/green service for a rolling one. Each file
    /// is created new ([`ecs_gpu_fs::NewFiles::create`]): nothing there is written through or
    /// over.
    ///
    /// # Errors
    /// A file cannot be created or written.
    pub fn save_into(&self, to: &SaveDir, extras: &Extras) -> Result<Vec<PathBuf>, FilesError> {
        let mut written = Vec::new();
        write_with(
            to,
            Call::DescribeServices,
            &self.services,
            extras
                .services
                .as_ref()
                .map(|e| ("services", "serviceName", e)),
            &mut written,
        )?;
        write(
            to,
            Call::DescribeTaskDefinition,
            &self.task_definition,
            &mut written,
        )?;
        write(
            to,
            Call::ListContainerInstances,
            &self.container_instance_arns,
            &mut written,
        )?;
        write(
            to,
            Call::DescribeContainerInstances,
            &self.container_instances,
            &mut written,
        )?;
        write(to, Call::DescribeTasks, &self.tasks, &mut written)?;
        write_with(
            to,
            Call::DescribeCapacityProviders,
            &self.capacity_providers,
            extras
                .capacity_providers
                .as_ref()
                .map(|e| ("capacityProviders", "name", e)),
            &mut written,
        )?;
        write_with(
            to,
            Call::DescribeAutoScalingGroups,
            &self.auto_scaling_groups,
            extras
                .auto_scaling_groups
                .as_ref()
                .map(|e| ("AutoScalingGroups", "AutoScalingGroupName", e)),
            &mut written,
        )?;
        write(
            to,
            Call::DescribeScalingActivities,
            &self.scaling_activities,
            &mut written,
        )?;
        Ok(written)
    }
}

/// The folder `diagnose --save` writes into: opened (or created) before the live run, so a folder
/// that cannot take the files is said before any AWS call.
#[derive(Debug)]
pub struct SaveDir {
    files: ecs_gpu_fs::NewFiles,
}

impl SaveDir {
    /// The folder at `dir`, created when missing. It is refused when it is a link or not a folder
    /// (files written through it would land elsewhere), and when it holds JSON files already:
    /// `--from` reads every `*.json` file of a folder, so an earlier save mixed with this one would
    /// give another verdict than this run. Files other than JSON may be there.
    ///
    /// # Errors
    /// What is wrong with the folder, naming it (and the JSON files it holds).
    pub fn open(dir: &Path) -> Result<SaveDir, FilesError> {
        let refused = |cause: String| FilesError::File {
            path: dir.to_path_buf(),
            cause,
        };
        let files = ecs_gpu_fs::NewFiles::open(dir).map_err(|e| {
            refused(match e {
                ecs_gpu_fs::FileError::Link => {
                    "a link: not followed (the saved files would land where it leads); give a folder".to_string()
                }
                e => e.to_string(),
            })
        })?;
        let names = files.names().map_err(|e| refused(e.to_string()))?;
        let json: Vec<&String> = names
            .iter()
            .filter(|n| n.to_ascii_lowercase().ends_with(".json"))
            .collect();
        if !json.is_empty() {
            let shown: Vec<String> = json
                .iter()
                .take(5)
                .map(|n| format!("`{}`", ecs_gpu_report::escape_control(n)))
                .collect();
            let more = match json.len() - shown.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            return Err(refused(format!(
                "holds JSON files already ({}{more}): `--from` reads every JSON file of a folder, so they would mix with this run's; save to a new or empty folder",
                shown.join(", ")
            )));
        }
        Ok(SaveDir { files })
    }

    /// The folder, as given.
    pub fn path(&self) -> &Path {
        self.files.path()
    }
}

/// The AWS CLI command of a call, for messages.
fn command(call: Call) -> &'static str {
    match call {
        Call::DescribeServices => "ecs describe-services",
        Call::DescribeTaskDefinition => "ecs describe-task-definition",
        Call::DescribeContainerInstances => "ecs describe-container-instances",
        Call::DescribeTasks => "ecs describe-tasks",
        Call::DescribeCapacityProviders => "ecs describe-capacity-providers",
        Call::DescribeAutoScalingGroups => "autoscaling describe-auto-scaling-groups",
        Call::DescribeScalingActivities => "autoscaling describe-scaling-activities",
        Call::DescribeClusters => "ecs describe-clusters",
        Call::ListContainerInstances => "ecs list-container-instances",
        Call::ListTasks => "ecs list-tasks",
    }
}

/// The call a file is the output of, by its name: the name `--save` writes, or that name with a
/// suffix (`describe-container-instances-2.json`).
fn call_by_name(name: &str) -> Option<Call> {
    let lower = name.to_ascii_lowercase();
    let stem = lower.strip_suffix(".json")?;
    Call::ALL.into_iter().find(|c| {
        c.file_name()
            .and_then(|f| f.strip_suffix(".json"))
            .is_some_and(|f| {
                stem == f
                    || stem
                        .strip_prefix(f)
                        .is_some_and(|r| r.starts_with(['-', '_', '.']))
            })
    })
}

/// The call a file is the output of, by the keys at its top: what `check` does for files it is
/// given by any name.
fn call_by_content(text: &str) -> Option<Call> {
    let keys: std::collections::HashMap<String, serde::de::IgnoredAny> =
        serde_json::from_str(text).ok()?;
    let has = |k: &str| keys.contains_key(k);
    Some(if has("services") {
        Call::DescribeServices
    } else if has("taskDefinition") || has("containerDefinitions") {
        Call::DescribeTaskDefinition
    } else if has("containerInstances") {
        Call::DescribeContainerInstances
    } else if has("containerInstanceArns") {
        Call::ListContainerInstances
    } else if has("tasks") {
        Call::DescribeTasks
    } else if has("capacityProviders") {
        Call::DescribeCapacityProviders
    } else if has("AutoScalingGroups") {
        Call::DescribeAutoScalingGroups
    } else if has("Activities") {
        Call::DescribeScalingActivities
    } else {
        return None;
    })
}

fn write<T: Serialize>(
    dir: &SaveDir,
    call: Call,
    value: &Option<T>,
    written: &mut Vec<PathBuf>,
) -> Result<(), FilesError> {
    write_with(dir, call, value, None, written)
}

/// [`write`], with the extra fields of each object of the list `extra.0` merged in: the object of
/// `extra.2`'s list with the same value of the key `extra.1` (a service's `serviceName`).
fn write_with<T: Serialize>(
    dir: &SaveDir,
    call: Call,
    value: &Option<T>,
    extra: Option<(&str, &str, &serde_json::Value)>,
    written: &mut Vec<PathBuf>,
) -> Result<(), FilesError> {
    let (Some(value), Some(name)) = (value, call.file_name()) else {
        return Ok(());
    };
    let path = dir.path().join(name);
    let json_error = |cause| FilesError::Json {
        path: path.clone(),
        command: call.operation().to_string(),
        cause,
    };
    let mut value = serde_json::to_value(value).map_err(json_error)?;
    if let Some((list, key, extras)) = extra {
        let extras = extras.get(list).and_then(serde_json::Value::as_array);
        let items = value
            .get_mut(list)
            .and_then(serde_json::Value::as_array_mut);
        if let (Some(items), Some(extras)) = (items, extras) {
            // By name, through a map: a live run may have read thousands of groups.
            let by_key: std::collections::HashMap<&str, &serde_json::Value> = extras
                .iter()
                .filter_map(|e| Some((e.get(key)?.as_str()?, e)))
                .collect();
            for item in items {
                let found = item
                    .get(key)
                    .and_then(serde_json::Value::as_str)
                    .and_then(|id| by_key.get(id).copied());
                if let Some(e) = found {
                    merge_missing(item, e);
                }
            }
        }
    }
    let mut text = serde_json::to_string_pretty(&value).map_err(json_error)?;
    text.push('\n');
    let refused = |e: ecs_gpu_fs::FileError| FilesError::File {
        path: path.clone(),
        cause: e.to_string(),
    };
    let mut file = dir.files.create(name).map_err(refused)?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .map_err(|e| refused(ecs_gpu_fs::FileError::Write(e)))?;
    written.push(path);
    Ok(())
}

/// Adds to `into` what `from` has and it has not, object by object (what `into` has is kept; a
/// `null` is had not).
fn merge_missing(into: &mut serde_json::Value, from: &serde_json::Value) {
    if into.is_null() {
        *into = from.clone();
        return;
    }
    let (Some(into), Some(from)) = (into.as_object_mut(), from.as_object()) else {
        return;
    };
    for (k, v) in from {
        match into.get_mut(k) {
            Some(existing) => merge_missing(existing, v),
            None => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Reads the saved outputs in `dir`, each file once: every `*.json` file, known by its name
/// (`describe-services.json`, ...) or else by its content (a `services.json`, a misspelt name, the
/// `--query taskDefinition` output). Several files of one call add up (the API describes at most
/// 100 container instances a call: `describe-container-instances-2.json` and so on). Any subset of
/// the calls may be there; at least one must be.
///
/// Every file is opened by the one bounded opener of every command ([`ecs_gpu_fs`]: a regular
/// file, not the kernel's, at most [`MAX_INPUT_BYTES`]) and its shape is checked before it is
/// parsed (`saved::check_shape`): what a parse builds stays within a small multiple of
/// the files' size. The fields only the simulation reads ([`Extras`]) are taken from the same
/// text, without building the rest of it.
///
/// # Errors
/// The folder or a file cannot be read, a file is not what the AWS CLI prints, or nothing in the
/// folder is.
pub fn read_saved(dir: &Path) -> Result<Saved, FilesError> {
    let io = |path: &Path, cause| FilesError::Io {
        path: path.to_path_buf(),
        cause,
    };
    let meta = fs::metadata(dir).map_err(|e| io(dir, e))?;
    if !meta.is_dir() {
        return Err(io(dir, io::Error::other("not a directory")));
    }
    let mut names: Vec<String> = fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut inputs = Inputs::default();
    let mut extras = Extras::default();
    let mut empty_files = Vec::new();
    for name in names
        .iter()
        .filter(|n| n.to_ascii_lowercase().ends_with(".json"))
    {
        let path = dir.join(name);
        let text = read_bounded(&path)?;
        crate::saved::check_shape(&text).map_err(|e| FilesError::File {
            path: path.clone(),
            cause: e.to_string(),
        })?;
        let call = call_by_name(name).or_else(|| call_by_content(&text));
        // `aws ecs describe-container-instances` cannot be called with no instance: on an empty
        // cluster a script that saves its output leaves an empty file.
        if call == Some(Call::DescribeContainerInstances) && text.trim().is_empty() {
            empty_files.push(path);
            continue;
        }
        let Some(call) = call else {
            continue;
        };
        inputs.add(call, &path, &text)?;
        let (items, what) = inputs.largest_list(call);
        if items > MAX_SAVED_ITEMS {
            return Err(FilesError::TooManyItems {
                path,
                command: command(call),
                what,
            });
        }
        type Read = fn(&str) -> Result<Vec<serde_json::Value>, serde_json::Error>;
        let (slot, list, read): (_, _, Read) = match call {
            Call::DescribeServices => (&mut extras.services, "services", crate::saved::services),
            Call::DescribeCapacityProviders => (
                &mut extras.capacity_providers,
                "capacityProviders",
                crate::saved::capacity_providers,
            ),
            Call::DescribeAutoScalingGroups => (
                &mut extras.auto_scaling_groups,
                "AutoScalingGroups",
                crate::saved::auto_scaling_groups,
            ),
            _ => continue,
        };
        let items = read(&text).map_err(|cause| FilesError::Json {
            path: path.clone(),
            command: command(call).to_string(),
            cause,
        })?;
        let all = slot.get_or_insert_with(|| serde_json::json!({ list: [] }));
        if let Some(serde_json::Value::Array(into)) = all.get_mut(list) {
            into.extend(items);
        }
    }
    inputs.settle_instances(&empty_files)?;
    if inputs.is_empty() {
        let expected: Vec<&str> = Call::ALL.iter().filter_map(|c| c.file_name()).collect();
        let shown: Vec<&str> = names.iter().take(10).map(String::as_str).collect();
        return Err(FilesError::Empty {
            path: dir.to_path_buf(),
            expected: expected.join(", "),
            found: if shown.is_empty() {
                "nothing".to_string()
            } else if names.len() > shown.len() {
                format!(
                    "{}, and {} more",
                    shown.join(", "),
                    names.len() - shown.len()
                )
            } else {
                shown.join(", ")
            },
        });
    }
    Ok(Saved { inputs, extras })
}

/// The largest saved output read: far above what the AWS CLI prints for thousands of instances,
/// and a bound that keeps a device or a huge file from filling memory.
pub const MAX_INPUT_BYTES: u64 = 128 * 1024 * 1024;

/// Reads a saved output through the one bounded opener ([`ecs_gpu_fs`]), as UTF-8 text.
fn read_bounded(path: &Path) -> Result<String, FilesError> {
    let bytes = ecs_gpu_fs::read(path, MAX_INPUT_BYTES).map_err(|e| FilesError::File {
        path: path.to_path_buf(),
        cause: match e {
            ecs_gpu_fs::FileError::TooLarge { size } => format!(
                "larger than {} MiB ({size} bytes), more than a saved AWS CLI output",
                MAX_INPUT_BYTES >> 20
            ),
            e => e.to_string(),
        },
    })?;
    decode(bytes).map_err(|cause| FilesError::Io {
        path: path.to_path_buf(),
        cause,
    })
}

/// UTF-8 text, with or without a BOM, or UTF-16 with a BOM (what Windows PowerShell's `>` writes).
fn decode(bytes: Vec<u8>) -> io::Result<String> {
    let utf16 = |le: bool| -> io::Result<String> {
        let units: Vec<u16> = bytes[2..]
            .chunks(2)
            .map(|c| {
                let pair = [c[0], c.get(1).copied().unwrap_or(0)];
                if le {
                    u16::from_le_bytes(pair)
                } else {
                    u16::from_be_bytes(pair)
                }
            })
            .collect();
        String::from_utf16(&units).map_err(|_| io::Error::other("not valid UTF-16 text"))
    };
    match bytes.as_slice() {
        [0xFF, 0xFE, ..] => utf16(true),
        [0xFE, 0xFF, ..] => utf16(false),
        [0xEF, 0xBB, 0xBF, ..] => {
            String::from_utf8(bytes[3..].to_vec()).map_err(|_| io::Error::other("not UTF-8 text"))
        }
        _ => String::from_utf8(bytes).map_err(|_| io::Error::other("not UTF-8 text")),
    }
}

/// An I/O error in words, without the OS error number.
fn io_text(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let t = e.to_string();
            match t.find(" (os error") {
                Some(i) => t[..i].to_string(),
                None => t,
            }
        }
    }
}

/// A JSON error with its place and what was expected, never the value found: serde_json quotes it
/// (`invalid type: string "..."`), and a value may be anything a user pasted.
fn json_text(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let text = e.to_string();
    let text = match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => text.as_str(),
    };
    let what = match e.classify() {
        Category::Data => {
            let expected = text
                .find(", expected ")
                .map(|i| &text[i + 2..])
                .unwrap_or("");
            let found = [
                "string",
                "integer",
                "floating point",
                "boolean",
                "map",
                "sequence",
                "null",
            ]
            .into_iter()
            .find(|k| text.starts_with(&format!("invalid type: {k}")));
            match (text.starts_with("missing field"), found) {
                (true, _) => text.split('`').nth(1).map_or_else(
                    || "a field is missing".to_string(),
                    |f| format!("field `{f}` is missing"),
                ),
                (false, Some(k)) if !expected.is_empty() => {
                    let article = if k.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    };
                    format!("found {article} {k}, {expected}")
                }
                (false, _) if !expected.is_empty() => format!("unexpected value, {expected}"),
                _ => "unexpected value".to_string(),
            }
        }
        Category::Eof => "the file ends early".to_string(),
        Category::Syntax | Category::Io => text.to_string(),
    };
    format!("line {}, column {}: {what}", e.line(), e.column())
}
