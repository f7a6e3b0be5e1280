//! The diagnosis inputs: the AWS CLI JSON output of each read-only call, as typed structs.
//!
//! Field names follow the wire shapes the AWS CLI prints: camelCase for ECS, PascalCase for Auto
//! Scaling. Only the fields the diagnosis reads are kept; unknown fields are ignored on input, so a
//! full `aws ecs describe-services` output loads as is. Absent values are skipped on output, so a
//! saved file is a subset of the CLI shape that reads back the same.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One read-only AWS call the diagnosis can use, and the file its output is saved in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Call {
    DescribeClusters,
    DescribeServices,
    DescribeTaskDefinition,
    ListContainerInstances,
    DescribeContainerInstances,
    ListTasks,
    DescribeTasks,
    DescribeCapacityProviders,
    DescribeAutoScalingGroups,
    DescribeScalingActivities,
}

impl Call {
    /// Every call, in the order live mode makes them.
    pub const ALL: [Call; 10] = [
        Call::DescribeClusters,
        Call::DescribeServices,
        Call::DescribeTaskDefinition,
        Call::ListContainerInstances,
        Call::DescribeContainerInstances,
        Call::ListTasks,
        Call::DescribeTasks,
        Call::DescribeCapacityProviders,
        Call::DescribeAutoScalingGroups,
        Call::DescribeScalingActivities,
    ];

    /// The API operation name (`DescribeServices`).
    pub fn operation(self) -> &'static str {
        match self {
            Call::DescribeClusters => "DescribeClusters",
            Call::DescribeServices => "DescribeServices",
            Call::DescribeTaskDefinition => "DescribeTaskDefinition",
            Call::ListContainerInstances => "ListContainerInstances",
            Call::DescribeContainerInstances => "DescribeContainerInstances",
            Call::ListTasks => "ListTasks",
            Call::DescribeTasks => "DescribeTasks",
            Call::DescribeCapacityProviders => "DescribeCapacityProviders",
            Call::DescribeAutoScalingGroups => "DescribeAutoScalingGroups",
            Call::DescribeScalingActivities => "DescribeScalingActivities",
        }
    }

    /// The IAM action that allows the call (`ecs:DescribeServices`).
    pub fn iam_action(self) -> String {
        let service = match self {
            Call::DescribeAutoScalingGroups | Call::DescribeScalingActivities => "autoscaling",
            _ => "ecs",
        };
        format!("{service}:{}", self.operation())
    }

    /// The file a saved output of this call lives in, named after the AWS CLI command.
    /// ListContainerInstances has one because an empty list is the only way the AWS CLI can say
    /// that a cluster has no container instance (DescribeContainerInstances needs at least one ARN);
    /// ListTasks and DescribeClusters have none: their answer only says what the calls that follow
    /// ask for.
    pub fn file_name(self) -> Option<&'static str> {
        Some(match self {
            Call::ListContainerInstances => "list-container-instances.json",
            Call::DescribeServices => "describe-services.json",
            Call::DescribeTaskDefinition => "describe-task-definition.json",
            Call::DescribeContainerInstances => "describe-container-instances.json",
            Call::DescribeTasks => "describe-tasks.json",
            Call::DescribeCapacityProviders => "describe-capacity-providers.json",
            Call::DescribeAutoScalingGroups => "describe-auto-scaling-groups.json",
            Call::DescribeScalingActivities => "describe-scaling-activities.json",
            Call::DescribeClusters | Call::ListTasks => return None,
        })
    }
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.operation())
    }
}

/// A call that did not answer, as the live client saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub call: Call,
    /// The AWS error code (`AccessDeniedException`), or a transport description (`timeout`).
    pub code: String,
    pub message: String,
}

impl CallError {
    /// Whether AWS refused the call for lack of permission.
    pub fn is_access_denied(&self) -> bool {
        let c = self.code.to_ascii_lowercase();
        c.contains("accessdenied") || c.contains("unauthorized") || c == "accessdeniedexception"
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.call, self.code)?;
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        if self.is_access_denied() {
            write!(f, " (allow the IAM action `{}`)", self.call.iam_action())?;
        }
        Ok(())
    }
}

/// A timestamp as the AWS CLI prints it: an ISO 8601 string (CLI v2, or `cli_timestamp_format =
/// iso8601`) or seconds since the epoch (CLI v1's default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Timestamp {
    Text(String),
    Epoch(f64),
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timestamp::Text(s) => f.write_str(s),
            Timestamp::Epoch(x) => write!(f, "{x}"),
        }
    }
}

// ---------------------------------------------------------------- ECS (camelCase)

/// `aws ecs describe-services`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeServicesOutput {
    #[serde(default)]
    pub services: Vec<Service>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
}

/// A `failures` entry of an ECS Describe call (`"reason": "MISSING"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Service {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_arn: Option<String>,
    #[serde(default)]
    pub service_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_arn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default)]
    pub desired_count: i64,
    #[serde(default)]
    pub running_count: i64,
    #[serde(default)]
    pub pending_count: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_type: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity_provider_strategy: Vec<CapacityProviderStrategyItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_definition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment_configuration: Option<DeploymentConfiguration>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deployments: Vec<Deployment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<ServiceEvent>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub placement_constraints: Vec<PlacementConstraint>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacityProviderStrategyItem {
    pub capacity_provider: String,
    #[serde(default)]
    pub weight: i64,
    #[serde(default)]
    pub base: i64,
}

/// How a rolling deployment may go below and above the desired count.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentConfiguration {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum_percent: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_healthy_percent: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deployment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_definition: Option<String>,
    #[serde(default)]
    pub desired_count: i64,
    #[serde(default)]
    pub running_count: i64,
    #[serde(default)]
    pub pending_count: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout_state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout_state_reason: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceEvent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    #[serde(default)]
    pub message: String,
}

/// A placement constraint of a service or a task definition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementConstraint {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
}

/// `aws ecs describe-task-definition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeTaskDefinitionOutput {
    pub task_definition: TaskDefinition,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskDefinition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_definition_arn: Option<String>,
    #[serde(default)]
    pub family: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires_compatibilities: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compatibilities: Vec<String>,
    /// Task-level CPU units, as ECS echoes them (`"4096"`; at registration `"4 vCPU"` is also allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// Task-level memory, MiB (`"16384"`; at registration `"16 GB"` is also allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_platform: Option<RuntimePlatform>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub placement_constraints: Vec<PlacementConstraint>,
    #[serde(default)]
    pub container_definitions: Vec<ContainerDefinition>,
    /// Not an ECS task-definition field: a GPU requirement here is a common mistake (it belongs in a
    /// container), kept so the diagnosis can say so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_requirements: Vec<ResourceRequirement>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimePlatform {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operating_system_family: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_architecture: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerDefinition {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_reservation: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_requirements: Vec<ResourceRequirement>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRequirement {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub value: String,
}

/// `aws ecs list-container-instances` (the AWS CLI prints every page as one list).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListContainerInstancesOutput {
    #[serde(default)]
    pub container_instance_arns: Vec<String>,
}

/// `aws ecs describe-container-instances`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeContainerInstancesOutput {
    #[serde(default)]
    pub container_instances: Vec<ContainerInstance>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerInstance {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_instance_arn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ec2_instance_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_provider_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_info: Option<VersionInfo>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remaining_resources: Vec<Resource>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registered_resources: Vec<Resource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_reason: Option<String>,
    #[serde(default)]
    pub agent_connected: bool,
    #[serde(default)]
    pub running_tasks_count: i64,
    #[serde(default)]
    pub pending_tasks_count: i64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_at: Option<Timestamp>,
}

impl ContainerInstance {
    /// The value of an attribute, `Some("")` for a name-only attribute.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_deref().unwrap_or(""))
    }

    /// The EC2 instance ID, or the container instance ID when the instance ID is missing.
    pub fn label(&self) -> String {
        match (&self.ec2_instance_id, &self.container_instance_arn) {
            (Some(id), _) => id.clone(),
            (None, Some(arn)) => arn.rsplit('/').next().unwrap_or(arn).to_string(),
            (None, None) => "an unnamed instance".to_string(),
        }
    }

    /// The label with the instance type: `i-0abc (g5.xlarge)`.
    pub fn label_with_type(&self) -> String {
        match self.attribute(ecs_gpu_query::INSTANCE_TYPE_ATTRIBUTE) {
            Some(t) if !t.is_empty() => format!("{} ({t})", self.label()),
            _ => self.label(),
        }
    }

    pub fn registered(&self, name: &str) -> Option<&Resource> {
        self.registered_resources.iter().find(|r| r.name == name)
    }

    pub fn remaining(&self, name: &str) -> Option<&Resource> {
        self.remaining_resources.iter().find(|r| r.name == name)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docker_version: Option<String>,
}

/// A registered or remaining resource (`CPU`, `MEMORY`, `GPU`, `PORTS`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    #[serde(default)]
    pub name: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub double_value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_value: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integer_value: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_set_value: Option<Vec<String>>,
}

impl Resource {
    /// The amount: the integer value, else the long, else the double (truncated), else the size of
    /// the string set.
    pub fn amount(&self) -> i64 {
        if let Some(v) = self.integer_value.filter(|v| *v != 0) {
            return v;
        }
        if let Some(v) = self.long_value.filter(|v| *v != 0) {
            return v;
        }
        if let Some(v) = self.double_value.filter(|v| *v != 0.0) {
            // Resource amounts are whole units; a fractional double only ever rounds down here.
            #[allow(clippy::cast_possible_truncation)]
            return v as i64;
        }
        self.string_set_value
            .as_ref()
            .map_or(0, |s| i64::try_from(s.len()).unwrap_or(i64::MAX))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attribute {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// `aws ecs describe-tasks`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeTasksOutput {
    #[serde(default)]
    pub tasks: Vec<Task>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_arn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_definition_arn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_instance_arn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desired_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<Container>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_ids: Vec<String>,
}

/// `aws ecs describe-capacity-providers`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeCapacityProvidersOutput {
    #[serde(default)]
    pub capacity_providers: Vec<CapacityProvider>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacityProvider {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_provider_arn: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_scaling_group_provider: Option<AutoScalingGroupProvider>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoScalingGroupProvider {
    #[serde(default)]
    pub auto_scaling_group_arn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_scaling: Option<ManagedScaling>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_termination_protection: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedScaling {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_capacity: Option<i64>,
}

// ---------------------------------------------------------------- Auto Scaling (PascalCase)

/// `aws autoscaling describe-auto-scaling-groups`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeAutoScalingGroupsOutput {
    #[serde(default)]
    pub auto_scaling_groups: Vec<AutoScalingGroup>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AutoScalingGroup {
    #[serde(default)]
    pub auto_scaling_group_name: String,
    #[serde(
        rename = "AutoScalingGroupARN",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub auto_scaling_group_arn: Option<String>,
    #[serde(default)]
    pub min_size: i64,
    #[serde(default)]
    pub max_size: i64,
    #[serde(default)]
    pub desired_capacity: i64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub availability_zones: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<AsgInstance>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_template: Option<LaunchTemplateSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AsgInstance {
    #[serde(default)]
    pub instance_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_zone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle_state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_status: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct LaunchTemplateSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_template_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_template_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// `aws autoscaling describe-scaling-activities`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeScalingActivitiesOutput {
    #[serde(default)]
    pub activities: Vec<Activity>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Activity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity_id: Option<String>,
    #[serde(default)]
    pub auto_scaling_group_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
}
