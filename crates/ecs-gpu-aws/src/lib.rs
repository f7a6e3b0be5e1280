//! The live, read-only AWS client that fills `ecs-gpu-diagnose`'s inputs.
//!
//! It reads a cluster through the official AWS SDK for Rust — aws-config's default credential
//! chain, an optional profile, region and endpoint override — with Describe, List and Get calls
//! only: an SDK interceptor refuses anything else and records what was sent ([`Collected::operations`]).
//! Lists are paginated and Describe calls batched; throttling is retried with backoff by the SDK's
//! standard retry mode; one deadline bounds the whole run. A call that fails is recorded in
//! [`Inputs::errors`] (with the IAM action an AccessDenied needs) and the calls that do not depend on
//! it still run, so the diagnosis can check every step that has its inputs.
//!
//! ```no_run
//! # async fn run() -> Result<(), ecs_gpu_aws::AwsError> {
//! use std::time::Duration;
//! use ecs_gpu_aws::{collect, Options, What};
//!
//! let opts = Options {
//!     cluster: "gpu".into(),
//!     what: What::Service("train".into()),
//!     region: Some("us-east-1".into()),
//!     timeout: Duration::from_secs(30),
//!     ..Options::default()
//! };
//! let collected = collect(&opts).await?;
//! let report = ecs_gpu_diagnose::diagnose(&collected.inputs, &Default::default());
//! # let _ = report; Ok(()) }
//! ```

mod map;
mod readonly;

use std::future::Future;
use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, Region};
use aws_sdk_ecs::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_ecs::types::DesiredStatus;
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use ecs_gpu_diagnose::api::{
    Call, CallError, DescribeAutoScalingGroupsOutput, DescribeCapacityProvidersOutput,
    DescribeContainerInstancesOutput, DescribeScalingActivitiesOutput, DescribeServicesOutput,
    DescribeTaskDefinitionOutput, DescribeTasksOutput,
};
use ecs_gpu_diagnose::aws_json::Extras;
use ecs_gpu_diagnose::Inputs;
use tokio::time::Instant;

pub use readonly::is_read_only;

/// What to diagnose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    /// A service of the cluster, by name or ARN.
    Service(String),
    /// A task definition for standalone tasks: `family`, `family:revision` or an ARN.
    TaskDefinition(String),
}

impl Default for What {
    fn default() -> Self {
        What::Service(String::new())
    }
}

/// How to reach AWS and what to read.
#[derive(Debug, Clone)]
pub struct Options {
    pub cluster: String,
    pub what: What,
    /// Overrides the region of the environment and profile.
    pub region: Option<String>,
    /// A named profile of the shared config and credentials files.
    pub profile: Option<String>,
    /// Sends every call here instead of the AWS endpoints (for an emulator in tests).
    pub endpoint_url: Option<String>,
    /// The deadline for the whole run.
    pub timeout: Duration,
    /// The page size of the List calls (the API's maximum, 100, by default).
    pub page_size: Option<i32>,
    /// The most all the answers of the run may hold together, when lower than the built-in bound
    /// (tests reach the bound with this; a higher value is ignored).
    pub max_total_response_bytes: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cluster: "default".to_string(),
            what: What::default(),
            region: None,
            profile: None,
            endpoint_url: None,
            timeout: Duration::from_secs(30),
            page_size: None,
            max_total_response_bytes: None,
        }
    }
}

/// What the live run read.
#[derive(Debug, Clone)]
pub struct Collected {
    pub inputs: Inputs,
    /// The fields of the same answers that only `simulate` reads (deployment strategy, placement
    /// strategy, managed scaling step sizes, mixed instances policy, warm pool), in the AWS CLI's
    /// shape, as `Extras::from_dir` reads them from saved files.
    pub extras: Extras,
    /// Every operation sent, in order (`DescribeServices`, `ListContainerInstances`, ...).
    pub operations: Vec<String>,
}

/// Why nothing useful could be read.
#[derive(Debug, thiserror::Error)]
pub enum AwsError {
    #[error("no AWS region: pass --region, set AWS_REGION, or set a region in the profile")]
    NoRegion,
    #[error("AWS did not answer: {0}")]
    Unreachable(CallError),
    #[error("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, pass --profile, or run with a task or instance role ({0})")]
    NoCredentials(String),
    #[error("cluster `{cluster}` not found ({}: {})", .error.call, .error.code)]
    ClusterNotFound { cluster: String, error: CallError },
    #[error("task definition `{task_definition}` not found (DescribeTaskDefinition: {}{})", .error.code, if .error.message.is_empty() { String::new() } else { format!(": {}", .error.message) })]
    TaskDefinitionNotFound {
        task_definition: String,
        error: CallError,
    },
    #[error("AWS refused the credentials ({code}): check the access key, secret and session token in use (an expired session token needs a new one)")]
    CredentialsRefused { code: String },
    #[error("AWS refused every call for lack of permission: allow {actions} (the IAM policy is in docs/diagnose.md)")]
    AccessDenied { actions: String },
    #[error("profile `{profile}` is not in the AWS config or credentials file: `aws configure list-profiles` lists the profiles")]
    ProfileNotFound { profile: String },
    #[error("profile `{profile}` signs in through AWS IAM Identity Center (SSO), which this build does not read: run `aws sso login --profile {profile}`, then `eval \"$(aws configure export-credentials --profile {profile} --format env)\"` and run ecs-gpu without --profile")]
    SsoProfile { profile: String },
    #[error("`{variable}` {problem}: set it again without it (its value is not shown)")]
    MalformedCredential {
        variable: &'static str,
        problem: &'static str,
    },
    #[error("`{variable}` names `{path}`, which {problem}: point it at the file it should name, or unset it")]
    BadFile {
        variable: &'static str,
        path: String,
        problem: String,
    },
    #[error("--timeout of {seconds} s is more than the {} s this command waits at most", MAX_TIMEOUT.as_secs())]
    TimeoutTooLong { seconds: u64 },
    #[error("service `{service}` not found in cluster `{cluster}` (DescribeServices: {reason})")]
    ServiceNotFound {
        cluster: String,
        service: String,
        reason: String,
    },
}

/// At most this many items are read from one list (container instance ARNs, task ARNs, pages of
/// groups would be fewer): far above a cluster's usual size, and a bound that keeps an endpoint
/// that pages without end from filling memory. Past it the call fails with `TooManyResults`.
pub const MAX_LISTED: usize = 10_000;

/// At most this many instances whose GPUs are held get their tasks listed to name the holders.
const MAX_HOLDER_INSTANCES: usize = 10;

/// At most this many pages are read of a call paged by hand (DescribeCapacityProviders).
const MAX_PAGES: usize = 100;

/// Collects a paginated stream, stopping once it holds more than `max` items: the caller turns
/// that into a `TooManyResults` failure.
async fn at_most<T, E>(
    mut stream: aws_smithy_async::future::pagination_stream::PaginationStream<Result<T, E>>,
    max: usize,
) -> Result<Vec<T>, E> {
    let mut out = Vec::new();
    while let Some(item) = stream.next().await {
        out.push(item?);
        if out.len() > max {
            break;
        }
    }
    Ok(out)
}

/// At most this many ARNs per Describe call (the ECS API limit).
const DESCRIBE_BATCH: usize = 100;

/// At most this many Auto Scaling groups are read (each costs a DescribeScalingActivities call).
const MAX_GROUPS: usize = 10;

/// The longest overall timeout: an hour is far more than any run needs, and a bound keeps the
/// deadline arithmetic inside what the clock can represent.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// The credential variables the SDK puts in request headers.
const CREDENTIAL_VARIABLES: [&str; 3] = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
];

/// Refuses a credential variable the SDK would panic on when it builds a header (a key pasted from a
/// Windows file ends in `\r`), naming the variable and never its value.
pub fn check_credential_variables(
    get: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<(), AwsError> {
    for variable in CREDENTIAL_VARIABLES {
        let Some(value) = get(variable) else { continue };
        let problem = match value.to_str() {
            None => Some("is not valid UTF-8"),
            Some(v) if v.ends_with('\r') || v.ends_with('\n') => {
                Some("ends with a line break (a value pasted from a Windows file keeps its `\\r`)")
            }
            Some(v) if v.chars().any(char::is_control) => Some("holds a control character"),
            Some(v) if v.chars().any(|c| !c.is_ascii_graphic()) => {
                Some("holds a space or a character that is not ASCII")
            }
            Some(_) => None,
        };
        if let Some(problem) = problem {
            return Err(AwsError::MalformedCredential { variable, problem });
        }
    }
    Ok(())
}

/// The files named by the environment that the SDK and its TLS stack read, with the most each may
/// hold: shared config and credential files and tokens are small; a CA bundle is larger.
pub const FILE_VARIABLES: [(&str, u64); 5] = [
    ("AWS_CONFIG_FILE", 1 << 20),
    ("AWS_SHARED_CREDENTIALS_FILE", 1 << 20),
    ("AWS_WEB_IDENTITY_TOKEN_FILE", 1 << 20),
    ("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", 1 << 20),
    ("SSL_CERT_FILE", 16 << 20),
];

/// Refuses a file named by [`FILE_VARIABLES`] that is not a regular file (a FIFO would block the
/// SDK, `/dev/zero` would fill memory) or is larger than its bound, before the SDK reads it. A
/// file that does not exist is left to the SDK, which treats a missing shared file as empty.
pub fn check_file_variables(
    get: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<(), AwsError> {
    for (variable, max) in FILE_VARIABLES {
        let Some(value) = get(variable).filter(|v| !v.is_empty()) else {
            continue;
        };
        let path = std::path::PathBuf::from(value);
        let problem = match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => format!("cannot be read ({})", e.kind()),
            Ok(m) if !m.is_file() => {
                "is not a regular file (a FIFO, a device or a folder)".to_string()
            }
            Ok(m) if m.len() > max => format!(
                "is larger than {} MiB ({} bytes), more than such a file holds",
                max >> 20,
                m.len()
            ),
            Ok(_) => continue,
        };
        return Err(AwsError::BadFile {
            variable,
            path: path.display().to_string(),
            problem,
        });
    }
    Ok(())
}

/// Reads everything the diagnosis uses, read-only.
pub async fn collect(opts: &Options) -> Result<Collected, AwsError> {
    if opts.timeout > MAX_TIMEOUT {
        return Err(AwsError::TimeoutTooLong {
            seconds: opts.timeout.as_secs(),
        });
    }
    check_credential_variables(|v| std::env::var_os(v))?;
    check_file_variables(|v| std::env::var_os(v))?;
    let mut loader = aws_config::defaults(BehaviorVersion::latest())
        // Throttling and transient errors: the standard mode's exponential backoff with jitter.
        .retry_config(
            RetryConfig::standard()
                .with_max_attempts(5)
                .with_initial_backoff(Duration::from_millis(200)),
        )
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(Duration::from_secs(5).min(opts.timeout))
                .operation_timeout(opts.timeout)
                .build(),
        );
    if let Some(r) = &opts.region {
        loader = loader.region(Region::new(r.clone()));
    }
    if let Some(p) = &opts.profile {
        loader = loader.profile_name(p);
    }
    if let Some(u) = &opts.endpoint_url {
        loader = loader.endpoint_url(u);
    }
    if let Some(p) = &opts.profile {
        if !profile_exists(p) {
            return Err(AwsError::ProfileNotFound { profile: p.clone() });
        }
    }
    let sdk = loader.load().await;
    if sdk.region().is_none() {
        return Err(AwsError::NoRegion);
    }
    let guard = readonly::ReadOnly::default();
    // One budget for the responses of both clients.
    let total = opts
        .max_total_response_bytes
        .map_or(readonly::MAX_TOTAL_RESPONSE_BYTES, |n| {
            n.min(readonly::MAX_TOTAL_RESPONSE_BYTES)
        });
    let limit = readonly::BodyLimit::new(total);
    let ecs = aws_sdk_ecs::Client::from_conf(
        aws_sdk_ecs::config::Builder::from(&sdk)
            .interceptor(guard.clone())
            .interceptor(limit.clone())
            .build(),
    );
    let autoscaling = aws_sdk_autoscaling::Client::from_conf(
        aws_sdk_autoscaling::config::Builder::from(&sdk)
            .interceptor(guard.clone())
            .interceptor(limit)
            .build(),
    );
    let mut run = Run {
        deadline: Instant::now()
            .checked_add(opts.timeout)
            .unwrap_or_else(|| Instant::now() + MAX_TIMEOUT),
        timeout: opts.timeout,
        inputs: Inputs::default(),
        answered: false,
        extras: Extras::default(),
        total,
    };
    let result = run.read(opts, &ecs, &autoscaling).await;
    let operations = guard.operations();
    result?;
    if let Some(e) = run.inputs.errors.first() {
        if e.code == NO_CREDENTIALS {
            if e.message.to_ascii_lowercase().contains("sso") {
                if let Some(p) = &opts.profile {
                    return Err(AwsError::SsoProfile { profile: p.clone() });
                }
            }
            return Err(AwsError::NoCredentials(e.message.clone()));
        }
        if !run.answered {
            return Err(AwsError::Unreachable(e.clone()));
        }
    }
    // AWS answered, but nothing useful: say why instead of "no input".
    if run.inputs.is_empty() && !run.inputs.errors.is_empty() {
        let errors = &run.inputs.errors;
        if let Some(e) = errors.iter().find(|e| is_refused_credentials(&e.code)) {
            return Err(AwsError::CredentialsRefused {
                code: e.code.clone(),
            });
        }
        if errors.iter().all(CallError::is_access_denied) {
            let mut actions: Vec<String> = errors.iter().map(|e| e.call.iam_action()).collect();
            actions.dedup();
            return Err(AwsError::AccessDenied {
                actions: actions
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        return Err(AwsError::Unreachable(errors[0].clone()));
    }
    Ok(Collected {
        inputs: run.inputs,
        extras: run.extras,
        operations,
    })
}

/// The error codes with which AWS refuses the credentials themselves (not a permission).
fn is_refused_credentials(code: &str) -> bool {
    matches!(
        code,
        "UnrecognizedClientException"
            | "InvalidClientTokenId"
            | "InvalidSignatureException"
            | "SignatureDoesNotMatch"
            | "ExpiredToken"
            | "ExpiredTokenException"
            | "AuthFailure"
            | "IncompleteSignature"
    )
}

/// Whether a named profile is in the shared config file (`[profile NAME]`, `[NAME]` for `default`)
/// or credentials file (`[NAME]`), at their default places or where `AWS_CONFIG_FILE` and
/// `AWS_SHARED_CREDENTIALS_FILE` point.
fn profile_exists(name: &str) -> bool {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let file = |var: &str, default: &str| {
        std::env::var_os(var)
            .map(std::path::PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join(default)))
    };
    let sections = |path: Option<std::path::PathBuf>| -> Vec<String> {
        let Some(path) = path else { return Vec::new() };
        // The shared files are small; a bound keeps a device named here from filling memory.
        let Ok(meta) = std::fs::metadata(&path) else {
            return Vec::new();
        };
        if !meta.is_file() || meta.len() > 1024 * 1024 {
            return Vec::new();
        }
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                l.strip_prefix('[')?
                    .strip_suffix(']')
                    .map(|s| s.trim().to_string())
            })
            .collect()
    };
    let config = sections(file("AWS_CONFIG_FILE", "config"));
    let credentials = sections(file("AWS_SHARED_CREDENTIALS_FILE", "credentials"));
    let in_config = config.iter().any(|s| {
        s.strip_prefix("profile")
            .is_some_and(|r| r.starts_with(char::is_whitespace) && r.trim() == name)
            || (name == "default" && s == "default")
    });
    in_config || credentials.iter().any(|s| s == name)
}

/// What was wrong with an answer the SDK could not read: its parser's words and, when the field is
/// one the diagnosis reads, where it is (`tasks[0].containers`), found by reading the answer again
/// into the AWS CLI shape of the call.
fn unreadable<E>(call: Call, e: &SdkError<E, HttpResponse>) -> String
where
    E: std::error::Error + 'static,
{
    let text = chain(e);
    let text = text.strip_prefix("response error: ").unwrap_or(&text);
    let place = e
        .raw_response()
        .and_then(|r| r.body().bytes())
        .and_then(|body| place_in(call, body));
    match place {
        Some(path) => format!("the answer could not be read at `{path}`: {text}"),
        None => format!("the answer could not be read: {text}"),
    }
}

/// The path of the first field of `body` that does not have the shape of the call's answer.
fn place_in(call: Call, body: &[u8]) -> Option<String> {
    fn path_of<T: serde::de::DeserializeOwned>(body: &[u8]) -> Option<String> {
        let de = &mut serde_json::Deserializer::from_slice(body);
        serde_path_to_error::deserialize::<_, T>(de)
            .err()
            .map(|e| e.path().to_string())
            .filter(|p| p != ".")
    }
    use ecs_gpu_diagnose::api as cli;
    match call {
        Call::DescribeServices => path_of::<cli::DescribeServicesOutput>(body),
        Call::DescribeTaskDefinition => path_of::<cli::DescribeTaskDefinitionOutput>(body),
        Call::DescribeContainerInstances => path_of::<cli::DescribeContainerInstancesOutput>(body),
        Call::DescribeTasks => path_of::<cli::DescribeTasksOutput>(body),
        Call::DescribeCapacityProviders => path_of::<cli::DescribeCapacityProvidersOutput>(body),
        Call::ListContainerInstances => path_of::<cli::ListContainerInstancesOutput>(body),
        Call::DescribeAutoScalingGroups
        | Call::DescribeScalingActivities
        | Call::DescribeClusters
        | Call::ListTasks => None,
    }
}

/// The code of a call that could not be signed: no credentials anywhere in the chain.
const NO_CREDENTIALS: &str = "NoCredentials";

/// An error and its sources on one line (`dispatch failure: io error: ... refused`).
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let one_line = |s: String| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut parts = vec![one_line(e.to_string())];
    let mut source = e.source();
    while let Some(s) = source {
        let text = one_line(s.to_string());
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

struct Run {
    deadline: Instant,
    timeout: Duration,
    inputs: Inputs,
    /// Whether AWS answered anything, even an error.
    answered: bool,
    extras: Extras,
    /// The bound in force on all the answers of the run together.
    total: u64,
}

impl Run {
    /// Runs one call within the deadline; a failure is recorded and `None` returned.
    async fn call<T, E>(
        &mut self,
        call: Call,
        fut: impl Future<Output = Result<T, SdkError<E, HttpResponse>>>,
    ) -> Option<T>
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    {
        match tokio::time::timeout_at(self.deadline, fut).await {
            Ok(Ok(v)) => {
                self.answered = true;
                Some(v)
            }
            Ok(Err(e)) => {
                let error = match &e {
                    _ if chain(&e).contains(readonly::TOTAL_LIMIT) => {
                        self.answered = true;
                        CallError {
                            call,
                            code: "ResponseTooLarge".to_string(),
                            message: format!(
                                "the answers of this run passed {}, the most ecs-gpu reads in one run",
                                size_text(self.total)
                            ),
                        }
                    }
                    _ if chain(&e).contains(readonly::LENGTH_LIMIT) => {
                        self.answered = true;
                        CallError {
                            call,
                            code: "ResponseTooLarge".to_string(),
                            message: format!(
                                "the answer passed {} MiB, the most ecs-gpu reads from one response",
                                readonly::MAX_RESPONSE_BYTES / (1024 * 1024)
                            ),
                        }
                    }
                    SdkError::ServiceError(_) | SdkError::ResponseError(_) => {
                        self.answered = true;
                        match e.code() {
                            Some(code) => CallError {
                                call,
                                code: code.to_string(),
                                message: e.message().unwrap_or_default().to_string(),
                            },
                            // No AWS error code: an answer the SDK could not read.
                            None => CallError {
                                call,
                                code: "InvalidResponse".to_string(),
                                message: unreadable(call, &e),
                            },
                        }
                    }
                    SdkError::TimeoutError(_) => CallError {
                        call,
                        code: "Timeout".to_string(),
                        message: format!("no answer within {} s", self.timeout.as_secs()),
                    },
                    // The SDK reports a credential chain that found nothing as a dispatch failure.
                    // A credential provider that failed (the instance metadata endpoint refused,
                    // an SSO profile this build cannot read) is the same: no credentials.
                    SdkError::DispatchFailure(_)
                        if chain(&e).contains("no credentials")
                            || chain(&e).contains("credentials provider")
                            || chain(&e).contains("failed to load credentials") =>
                    {
                        let text = chain(&e);
                        CallError {
                            call,
                            code: NO_CREDENTIALS.to_string(),
                            message: if text.to_ascii_lowercase().contains("sso") {
                                "the profile uses SSO".to_string()
                            } else {
                                "the default credential chain found none".to_string()
                            },
                        }
                    }
                    SdkError::DispatchFailure(_) => CallError {
                        call,
                        code: "Unreachable".to_string(),
                        message: chain(&e),
                    },
                    _ => CallError {
                        call,
                        code: "ClientError".to_string(),
                        message: chain(&e),
                    },
                };
                self.inputs.errors.push(error);
                None
            }
            Err(_) => {
                self.inputs.errors.push(CallError {
                    call,
                    code: "Timeout".to_string(),
                    message: format!(
                        "the overall --timeout of {} s ran out",
                        self.timeout.as_secs()
                    ),
                });
                None
            }
        }
    }

    /// The running tasks of other groups on the instances whose GPUs are held, so the diagnosis can
    /// name who holds them: for at most [`MAX_HOLDER_INSTANCES`] instances whose running tasks the
    /// tasks read so far do not account for.
    async fn read_gpu_holders(&mut self, ecs: &aws_sdk_ecs::Client, cluster: &str) {
        let (Some(tasks), Some(instances)) = (&self.inputs.tasks, &self.inputs.container_instances)
        else {
            return;
        };
        let gpu = ecs_gpu_catalog::catalog().gpu_requirement.type_.as_str();
        let known: std::collections::HashSet<String> = tasks
            .tasks
            .iter()
            .filter_map(|t| t.task_arn.clone())
            .collect();
        let held: Vec<String> = instances
            .container_instances
            .iter()
            .filter(|i| {
                let registered = i.registered(gpu).map_or(0, |r| r.amount());
                let free = i.remaining(gpu).map_or(registered, |r| r.amount());
                let listed = tasks
                    .tasks
                    .iter()
                    .filter(|t| {
                        t.container_instance_arn.is_some()
                            && t.container_instance_arn == i.container_instance_arn
                            && t.desired_status.as_deref() == Some("RUNNING")
                    })
                    .count();
                free < registered
                    && i64::try_from(listed).unwrap_or(i64::MAX) < i.running_tasks_count
            })
            .filter_map(|i| i.container_instance_arn.clone())
            .take(MAX_HOLDER_INSTANCES)
            .collect();
        let mut more: Vec<String> = Vec::new();
        for arn in held {
            let Some(arns) = self
                .call(
                    Call::ListTasks,
                    at_most(
                        ecs.list_tasks()
                            .cluster(cluster)
                            .container_instance(arn)
                            .desired_status(DesiredStatus::Running)
                            .into_paginator()
                            .items()
                            .send(),
                        MAX_LISTED,
                    ),
                )
                .await
                .and_then(|arns| self.within(Call::ListTasks, arns))
            else {
                continue;
            };
            more.extend(arns.into_iter().filter(|a| !known.contains(a)));
        }
        more.sort();
        more.dedup();
        let mut found = Vec::new();
        for batch in more.chunks(DESCRIBE_BATCH) {
            if let Some(page) = self
                .call(
                    Call::DescribeTasks,
                    ecs.describe_tasks()
                        .cluster(cluster)
                        .set_tasks(Some(batch.to_vec()))
                        .send(),
                )
                .await
            {
                found.extend(page.tasks().iter().map(map::task));
            }
        }
        if let Some(tasks) = &mut self.inputs.tasks {
            tasks.tasks.extend(found);
        }
    }

    /// `items` when a bounded list stayed within its bound, else a `TooManyResults` failure.
    fn within<T>(&mut self, call: Call, items: Vec<T>) -> Option<Vec<T>> {
        let max = match call {
            Call::DescribeAutoScalingGroups => MAX_PAGES,
            _ => MAX_LISTED,
        };
        if items.len() > max {
            self.too_many(call, if max == MAX_PAGES { "pages" } else { "items" });
            return None;
        }
        Some(items)
    }

    fn too_many(&mut self, call: Call, what: &str) {
        let max = if what == "pages" {
            MAX_PAGES
        } else {
            MAX_LISTED
        };
        self.inputs.errors.push(CallError {
            call,
            code: "TooManyResults".to_string(),
            message: format!(
                "the answer went on past {max} {what}, the most ecs-gpu reads from one call"
            ),
        });
    }

    fn cluster_missing(&self, cluster: &str) -> Result<(), AwsError> {
        match self
            .inputs
            .errors
            .iter()
            .find(|e| e.code == "ClusterNotFoundException")
        {
            Some(e) => Err(AwsError::ClusterNotFound {
                cluster: cluster.to_string(),
                error: e.clone(),
            }),
            None => Ok(()),
        }
    }

    async fn read(
        &mut self,
        opts: &Options,
        ecs: &aws_sdk_ecs::Client,
        autoscaling: &aws_sdk_autoscaling::Client,
    ) -> Result<(), AwsError> {
        let cluster = opts.cluster.as_str();
        let page = opts.page_size.unwrap_or(100);

        // The cluster: whether it exists, and its capacity providers and default strategy.
        let mut cluster_providers: Vec<String> = Vec::new();
        if let Some(out) = self
            .call(
                Call::DescribeClusters,
                ecs.describe_clusters().clusters(cluster).send(),
            )
            .await
        {
            match out.clusters().first() {
                Some(c) if c.status() != Some("INACTIVE") => {
                    cluster_providers = c
                        .default_capacity_provider_strategy()
                        .iter()
                        .map(|s| s.capacity_provider().to_string())
                        .collect();
                    if cluster_providers.is_empty() {
                        cluster_providers = c.capacity_providers().to_vec();
                    }
                }
                _ => {
                    let reason = out
                        .failures()
                        .first()
                        .and_then(|f| f.reason())
                        .unwrap_or("INACTIVE")
                        .to_string();
                    return Err(AwsError::ClusterNotFound {
                        cluster: cluster.to_string(),
                        error: CallError {
                            call: Call::DescribeClusters,
                            code: reason,
                            message: String::new(),
                        },
                    });
                }
            }
        }

        // Nothing answered the first call: every other call would wait out its retries the same way.
        if !self.answered {
            return Ok(());
        }

        // The service, and through it the task definition.
        let mut task_definition = None;
        let mut group = None;
        let mut family = None;
        if let What::Service(name) = &opts.what {
            let out = self
                .call(
                    Call::DescribeServices,
                    ecs.describe_services()
                        .cluster(cluster)
                        .services(name)
                        .send(),
                )
                .await;
            self.cluster_missing(cluster)?;
            if let Some(out) = out {
                let services: Vec<_> = out.services().iter().map(map::service).collect();
                self.extras.services = Some(serde_json::json!({
                    "services": out.services().iter().map(map::service_extras).collect::<Vec<_>>()
                }));
                if services.is_empty() {
                    let reason = out
                        .failures()
                        .first()
                        .and_then(|f| f.reason())
                        .unwrap_or("MISSING")
                        .to_string();
                    return Err(AwsError::ServiceNotFound {
                        cluster: cluster.to_string(),
                        service: name.clone(),
                        reason,
                    });
                }
                task_definition = services[0].task_definition.clone();
                group = Some(services[0].service_name.clone());
                self.inputs.services = Some(DescribeServicesOutput {
                    services,
                    failures: out.failures().iter().map(map::failure).collect(),
                });
            }
        } else if let What::TaskDefinition(td) = &opts.what {
            task_definition = Some(td.clone());
        }
        if let Some(td) = &task_definition {
            let out = self
                .call(
                    Call::DescribeTaskDefinition,
                    ecs.describe_task_definition().task_definition(td).send(),
                )
                .await;
            // ECS answers a task definition that does not exist with a ClientException: the input
            // is wrong, not a step of the diagnosis.
            if let Some(e) = self.inputs.error(Call::DescribeTaskDefinition) {
                if e.code == "ClientException" {
                    return Err(AwsError::TaskDefinitionNotFound {
                        task_definition: td.clone(),
                        error: e.clone(),
                    });
                }
            }
            if let Some(out) = out {
                if let Some(t) = out.task_definition() {
                    let t = map::task_definition(t);
                    family = Some(t.family.clone());
                    self.inputs.task_definition =
                        Some(DescribeTaskDefinitionOutput { task_definition: t });
                }
            }
        }

        // The container instances: every page of ARNs, then Describe in batches.
        let arns = self
            .call(
                Call::ListContainerInstances,
                at_most(
                    ecs.list_container_instances()
                        .cluster(cluster)
                        .max_results(page)
                        .into_paginator()
                        .items()
                        .send(),
                    MAX_LISTED,
                ),
            )
            .await
            .and_then(|arns| self.within(Call::ListContainerInstances, arns));
        self.cluster_missing(cluster)?;
        if let Some(arns) = arns {
            let mut out = DescribeContainerInstancesOutput::default();
            let mut complete = true;
            for batch in arns.chunks(DESCRIBE_BATCH) {
                match self
                    .call(
                        Call::DescribeContainerInstances,
                        ecs.describe_container_instances()
                            .cluster(cluster)
                            .set_container_instances(Some(batch.to_vec()))
                            .send(),
                    )
                    .await
                {
                    Some(page) => {
                        out.container_instances.extend(
                            page.container_instances()
                                .iter()
                                .map(map::container_instance),
                        );
                        out.failures
                            .extend(page.failures().iter().map(map::failure));
                    }
                    None => complete = false,
                }
            }
            // A partial list would make the diagnosis' "no instance has ..." claims wrong.
            if complete {
                self.inputs.container_instances = Some(out);
            }
        }

        // Running and recently stopped tasks of the service (or family).
        let mut task_arns = Vec::new();
        let mut listed = false;
        for status in [DesiredStatus::Running, DesiredStatus::Stopped] {
            let mut req = ecs
                .list_tasks()
                .cluster(cluster)
                .desired_status(status)
                .max_results(page);
            req = match (&group, &family) {
                (Some(s), _) => req.service_name(s),
                (None, Some(f)) => req.family(f),
                (None, None) => req,
            };
            if let Some(arns) = self
                .call(
                    Call::ListTasks,
                    at_most(req.into_paginator().items().send(), MAX_LISTED),
                )
                .await
                .and_then(|arns| self.within(Call::ListTasks, arns))
            {
                listed = true;
                task_arns.extend(arns);
            }
        }
        if listed {
            let mut out = DescribeTasksOutput::default();
            let mut complete = true;
            for batch in task_arns.chunks(DESCRIBE_BATCH) {
                match self
                    .call(
                        Call::DescribeTasks,
                        ecs.describe_tasks()
                            .cluster(cluster)
                            .set_tasks(Some(batch.to_vec()))
                            .send(),
                    )
                    .await
                {
                    Some(page) => {
                        out.tasks.extend(page.tasks().iter().map(map::task));
                        out.failures
                            .extend(page.failures().iter().map(map::failure));
                    }
                    None => complete = false,
                }
            }
            if complete {
                self.inputs.tasks = Some(out);
            }
        }
        self.read_gpu_holders(ecs, cluster).await;

        // Capacity providers: those of the service's strategy, else those the instances belong to.
        let mut names: Vec<String> = self
            .inputs
            .services
            .iter()
            .flat_map(|s| &s.services)
            .flat_map(|s| &s.capacity_provider_strategy)
            .map(|c| c.capacity_provider.clone())
            .filter(|n| !ecs_gpu_catalog::catalog().fargate.is_capacity_provider(n))
            .collect();
        if names.is_empty() {
            names = self
                .inputs
                .container_instances
                .iter()
                .flat_map(|c| &c.container_instances)
                .filter_map(|i| i.capacity_provider_name.clone())
                .collect();
        }
        // A service without a strategy follows the cluster's default one.
        if names.is_empty() {
            names = cluster_providers
                .into_iter()
                .filter(|n| !ecs_gpu_catalog::catalog().fargate.is_capacity_provider(n))
                .collect();
        }
        names.sort();
        names.dedup();
        if !names.is_empty() {
            let names = Some(names);
            let mut out = DescribeCapacityProvidersOutput::default();
            let mut extra_providers = Vec::new();
            let mut token: Option<String> = None;
            let mut ok = true;
            for n in 0.. {
                if n == MAX_PAGES {
                    self.too_many(Call::DescribeCapacityProviders, "pages");
                    ok = false;
                    break;
                }
                let Some(page) = self
                    .call(
                        Call::DescribeCapacityProviders,
                        ecs.describe_capacity_providers()
                            .set_capacity_providers(names.clone())
                            .set_next_token(token.clone())
                            .send(),
                    )
                    .await
                else {
                    ok = false;
                    break;
                };
                out.capacity_providers
                    .extend(page.capacity_providers().iter().map(map::capacity_provider));
                extra_providers.extend(
                    page.capacity_providers()
                        .iter()
                        .map(map::capacity_provider_extras),
                );
                out.failures
                    .extend(page.failures().iter().map(map::failure));
                token = page.next_token().map(str::to_string);
                if token.is_none() {
                    break;
                }
            }
            if ok {
                self.inputs.capacity_providers = Some(out);
                self.extras.capacity_providers =
                    Some(serde_json::json!({ "capacityProviders": extra_providers }));
            }
        }

        // The Auto Scaling groups behind them, and their recent scaling activities.
        let mut groups: Vec<String> = self
            .inputs
            .capacity_providers
            .iter()
            .flat_map(|c| &c.capacity_providers)
            .filter_map(|c| c.auto_scaling_group_provider.as_ref())
            .map(|p| {
                p.auto_scaling_group_arn
                    .rsplit_once("autoScalingGroupName/")
                    .map_or(p.auto_scaling_group_arn.clone(), |(_, n)| n.to_string())
            })
            .collect();
        groups.sort();
        groups.dedup();
        groups.truncate(MAX_GROUPS);
        if !groups.is_empty() {
            if let Some(pages) = self
                .call(
                    Call::DescribeAutoScalingGroups,
                    at_most(
                        autoscaling
                            .describe_auto_scaling_groups()
                            .set_auto_scaling_group_names(Some(groups.clone()))
                            .into_paginator()
                            .send(),
                        MAX_PAGES,
                    ),
                )
                .await
                .and_then(|pages| self.within(Call::DescribeAutoScalingGroups, pages))
            {
                self.extras.auto_scaling_groups = Some(serde_json::json!({
                    "AutoScalingGroups": pages
                        .iter()
                        .flat_map(|p| p.auto_scaling_groups())
                        .map(map::auto_scaling_group_extras)
                        .collect::<Vec<_>>()
                }));
                self.inputs.auto_scaling_groups = Some(DescribeAutoScalingGroupsOutput {
                    auto_scaling_groups: pages
                        .iter()
                        .flat_map(|p| p.auto_scaling_groups())
                        .map(map::auto_scaling_group)
                        .collect(),
                });
            }
            let mut out = DescribeScalingActivitiesOutput::default();
            let mut ok = true;
            for g in &groups {
                // The newest activities are enough to name a stock-out, quota or template error.
                match self
                    .call(
                        Call::DescribeScalingActivities,
                        autoscaling
                            .describe_scaling_activities()
                            .auto_scaling_group_name(g)
                            .max_records(20)
                            .send(),
                    )
                    .await
                {
                    Some(page) => out
                        .activities
                        .extend(page.activities().iter().map(map::activity)),
                    None => ok = false,
                }
            }
            if ok {
                self.inputs.scaling_activities = Some(out);
            }
        }
        Ok(())
    }
}

/// A size in words: `256 MiB`, or bytes when not a whole number of mebibytes.
fn size_text(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}
