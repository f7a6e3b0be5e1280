//! All the inputs of one diagnosis, and reading and writing them as a directory of AWS CLI JSON files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::input::{
    Call, CallError, DescribeAutoScalingGroupsOutput, DescribeCapacityProvidersOutput,
    DescribeContainerInstancesOutput, DescribeScalingActivitiesOutput, DescribeServicesOutput,
    DescribeTaskDefinitionOutput, DescribeTasksOutput,
};

/// What the walk reads. Every part is optional: a step whose inputs are missing is `unknown`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    pub services: Option<DescribeServicesOutput>,
    pub task_definition: Option<DescribeTaskDefinitionOutput>,
    pub container_instances: Option<DescribeContainerInstancesOutput>,
    pub tasks: Option<DescribeTasksOutput>,
    pub capacity_providers: Option<DescribeCapacityProvidersOutput>,
    pub auto_scaling_groups: Option<DescribeAutoScalingGroupsOutput>,
    pub scaling_activities: Option<DescribeScalingActivitiesOutput>,
    /// Calls that did not answer (live mode), so the steps that need them can say why they are unknown.
    pub errors: Vec<CallError>,
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
    #[error("{}: none of the files describe-*.json that `ecs-gpu diagnose --from` reads is there", path.display())]
    Empty { path: PathBuf },
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
    }

    /// The error of a call that did not answer, if it failed.
    pub fn error(&self, call: Call) -> Option<&CallError> {
        self.errors.iter().find(|e| e.call == call)
    }

    /// Reads the saved outputs in `dir`, one file per call (`describe-services.json`, ...). Any subset
    /// may be there; at least one must be.
    pub fn from_dir(dir: &Path) -> Result<Inputs, FilesError> {
        let meta = fs::metadata(dir).map_err(|cause| FilesError::Io {
            path: dir.to_path_buf(),
            cause,
        })?;
        if !meta.is_dir() {
            return Err(FilesError::Io {
                path: dir.to_path_buf(),
                cause: io::Error::other("not a directory"),
            });
        }
        let inputs = Inputs {
            services: read(dir, Call::DescribeServices, "ecs describe-services")?,
            task_definition: read(
                dir,
                Call::DescribeTaskDefinition,
                "ecs describe-task-definition",
            )?,
            container_instances: read(
                dir,
                Call::DescribeContainerInstances,
                "ecs describe-container-instances",
            )?,
            tasks: read(dir, Call::DescribeTasks, "ecs describe-tasks")?,
            capacity_providers: read(
                dir,
                Call::DescribeCapacityProviders,
                "ecs describe-capacity-providers",
            )?,
            auto_scaling_groups: read(
                dir,
                Call::DescribeAutoScalingGroups,
                "autoscaling describe-auto-scaling-groups",
            )?,
            scaling_activities: read(
                dir,
                Call::DescribeScalingActivities,
                "autoscaling describe-scaling-activities",
            )?,
            errors: Vec::new(),
        };
        if inputs.is_empty() {
            return Err(FilesError::Empty {
                path: dir.to_path_buf(),
            });
        }
        Ok(inputs)
    }

    /// Writes every known output to `dir` (created if missing) in the AWS CLI shape, one file per
    /// call, and returns the paths written. Unknown outputs are not written, so `from_dir` reads back
    /// exactly these inputs.
    pub fn save(&self, dir: &Path) -> Result<Vec<PathBuf>, FilesError> {
        fs::create_dir_all(dir).map_err(|cause| FilesError::Io {
            path: dir.to_path_buf(),
            cause,
        })?;
        let mut written = Vec::new();
        write(dir, Call::DescribeServices, &self.services, &mut written)?;
        write(
            dir,
            Call::DescribeTaskDefinition,
            &self.task_definition,
            &mut written,
        )?;
        write(
            dir,
            Call::DescribeContainerInstances,
            &self.container_instances,
            &mut written,
        )?;
        write(dir, Call::DescribeTasks, &self.tasks, &mut written)?;
        write(
            dir,
            Call::DescribeCapacityProviders,
            &self.capacity_providers,
            &mut written,
        )?;
        write(
            dir,
            Call::DescribeAutoScalingGroups,
            &self.auto_scaling_groups,
            &mut written,
        )?;
        write(
            dir,
            Call::DescribeScalingActivities,
            &self.scaling_activities,
            &mut written,
        )?;
        Ok(written)
    }
}

fn read<T: DeserializeOwned>(
    dir: &Path,
    call: Call,
    command: &str,
) -> Result<Option<T>, FilesError> {
    let Some(name) = call.file_name() else {
        return Ok(None);
    };
    let path = dir.join(name);
    let text = match read_bounded(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(cause) => return Err(FilesError::Io { path, cause }),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|cause| FilesError::Json {
            path,
            command: command.to_string(),
            cause,
        })
}

fn write<T: Serialize>(
    dir: &Path,
    call: Call,
    value: &Option<T>,
    written: &mut Vec<PathBuf>,
) -> Result<(), FilesError> {
    let (Some(value), Some(name)) = (value, call.file_name()) else {
        return Ok(());
    };
    let path = dir.join(name);
    let mut text = serde_json::to_string_pretty(value).map_err(|cause| FilesError::Json {
        path: path.clone(),
        command: call.operation().to_string(),
        cause,
    })?;
    text.push('\n');
    fs::write(&path, text).map_err(|cause| FilesError::Io {
        path: path.clone(),
        cause,
    })?;
    written.push(path);
    Ok(())
}

/// The largest saved output read: far above what the AWS CLI prints for thousands of instances,
/// and a bound that keeps a device or a huge file from filling memory.
pub const MAX_INPUT_BYTES: u64 = 128 * 1024 * 1024;

/// Reads a regular file of at most [`MAX_INPUT_BYTES`] as UTF-8 text.
fn read_bounded(path: &Path) -> io::Result<String> {
    use std::io::Read;
    // The kind is checked before opening: opening a FIFO waits for a writer.
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::other(
            "not a regular file (a directory, a FIFO or a device)",
        ));
    }
    let too_large = || {
        io::Error::other(format!(
            "larger than {} MiB, more than a saved AWS CLI output",
            MAX_INPUT_BYTES / (1024 * 1024)
        ))
    };
    if meta.len() > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    let file = fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| io::Error::other("not UTF-8 text"))
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
