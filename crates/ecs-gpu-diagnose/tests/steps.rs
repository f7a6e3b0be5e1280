//! The diagnosis' steps one at a time, on small inputs in the AWS CLI shape.

use ecs_gpu_diagnose::api::{Call, CallError};
use ecs_gpu_diagnose::{diagnose, Inputs, Outcome, Report, Status, StepId, Target};
use serde_json::{json, Value};

fn task_def(gpu: &str) -> Value {
    json!({"taskDefinition": {
        "taskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/train:1",
        "family": "train", "revision": 1, "networkMode": "bridge",
        "requiresCompatibilities": ["EC2"], "compatibilities": ["EC2"],
        "cpu": "1024", "memory": "4096",
        "containerDefinitions": [{"name": "main", "resourceRequirements": [{"type": "GPU", "value": gpu}]}]
    }})
}

fn instance(id: &str, itype: &str, gpus: usize, free: usize) -> Value {
    let ids: Vec<String> = (0..gpus).map(|k| format!("GPU-{id}-{k}")).collect();
    json!({
        "containerInstanceArn": format!("arn:aws:ecs:us-east-1:123456789012:container-instance/gpu/{id}"),
        "ec2InstanceId": id, "status": "ACTIVE", "agentConnected": true, "runningTasksCount": gpus - free,
        "registeredResources": [
            {"name": "CPU", "type": "INTEGER", "integerValue": 4096},
            {"name": "MEMORY", "type": "INTEGER", "integerValue": 15779},
            {"name": "GPU", "type": "STRINGSET", "stringSetValue": ids}
        ],
        "remainingResources": [
            {"name": "CPU", "type": "INTEGER", "integerValue": 4096},
            {"name": "MEMORY", "type": "INTEGER", "integerValue": 15779},
            {"name": "GPU", "type": "STRINGSET", "stringSetValue": ids[..free]}
        ],
        "attributes": [
            {"name": "ecs.instance-type", "value": itype},
            {"name": "ecs.availability-zone", "value": "us-east-1a"},
            {"name": "ecs.ami-id", "value": "ami-0123"}
        ]
    })
}

fn service(extra: Value) -> Value {
    let mut s = json!({
        "serviceName": "train", "desiredCount": 1, "runningCount": 0,
        "taskDefinition": "arn:aws:ecs:us-east-1:123456789012:task-definition/train:1",
        "events": []
    });
    for (k, v) in extra.as_object().unwrap() {
        s[k] = v.clone();
    }
    json!({"services": [s]})
}

fn inputs(svc: Option<Value>, td: Option<Value>, instances: Option<Vec<Value>>) -> Inputs {
    Inputs {
        services: svc.map(|v| serde_json::from_value(v).unwrap()),
        task_definition: td.map(|v| serde_json::from_value(v).unwrap()),
        container_instances: instances
            .map(|i| serde_json::from_value(json!({"containerInstances": i})).unwrap()),
        ..Inputs::default()
    }
}

fn run(i: &Inputs) -> Report {
    diagnose(i, &Target::default()).unwrap()
}

fn step(r: &Report, id: StepId) -> (Status, String) {
    let s = r.step(id).unwrap();
    (s.status, s.evidence.join("\n"))
}

#[test]
fn access_denied_names_the_call_and_the_iam_action_and_the_diagnosis_goes_on() {
    let mut i = inputs(Some(service(json!({}))), Some(task_def("1")), None);
    i.errors.push(CallError {
        call: Call::ListContainerInstances,
        code: "AccessDeniedException".into(),
        message: "User: arn:aws:iam::123456789012:user/dev is not authorized to perform: ecs:ListContainerInstances".into(),
    });
    let r = run(&i);
    assert_eq!(step(&r, StepId::TaskDefinition).0, Status::Pass);
    let (status, ev) = step(&r, StepId::Capacity);
    assert_eq!(status, Status::Unknown);
    assert!(
        ev.contains("ListContainerInstances failed: AccessDeniedException")
            && ev.contains("(allow the IAM action `ecs:ListContainerInstances`)"),
        "{ev}"
    );
    assert_eq!(r.outcome(), Outcome::Inconclusive);
}

#[test]
fn task_definition_rules() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"taskDefinition": {"family": "t", "resourceRequirements": [{"type": "GPU", "value": "1"}],
                   "containerDefinitions": [{"name": "main"}]}}),
            "at task level",
        ),
        (
            json!({"taskDefinition": {"family": "t",
                   "containerDefinitions": [{"name": "main", "resourceRequirements": [{"type": "gpu", "value": "1"}]}]}}),
            "does not read as a GPU",
        ),
        (
            json!({"taskDefinition": {"family": "t", "containerDefinitions": [{"name": "main"}]}}),
            "no container asks for a GPU",
        ),
        (
            json!({"taskDefinition": {"family": "t", "runtimePlatform": {"operatingSystemFamily": "WINDOWS_SERVER_2022_CORE"},
                   "containerDefinitions": [{"name": "main", "resourceRequirements": [{"type": "GPU", "value": "1"}]}]}}),
            "Windows task",
        ),
        (
            json!({"taskDefinition": {"family": "t", "containerDefinitions": [
                {"name": "a", "resourceRequirements": [{"type": "GPU", "value": "0.5"}]},
                {"name": "b", "resourceRequirements": [{"type": "GPU", "value": "1"}]}]}}),
            "fraction while another container",
        ),
        (
            json!({"taskDefinition": {"family": "t", "containerDefinitions": [
                {"name": "a", "resourceRequirements": [{"type": "GPU", "value": "two"}]}]}}),
            "is malformed",
        ),
    ];
    for (td, want) in cases {
        let r = run(&inputs(None, Some(td), None));
        assert_eq!(r.verdict.step, "task-definition", "{want}");
        assert!(
            r.verdict.message.contains(want),
            "{want}: {}",
            r.verdict.message
        );
    }
    // A service on Fargate capacity providers.
    let svc = service(
        json!({"capacityProviderStrategy": [{"capacityProvider": "FARGATE_SPOT", "weight": 1}]}),
    );
    let r = run(&inputs(Some(svc), Some(task_def("1")), None));
    assert!(
        r.verdict.message.contains("on Fargate"),
        "{}",
        r.verdict.message
    );
}

#[test]
fn gpus_sum_over_containers_and_all_needs_an_idle_instance() {
    let td = json!({"taskDefinition": {"family": "t", "containerDefinitions": [
        {"name": "a", "resourceRequirements": [{"type": "GPU", "value": "2"}]},
        {"name": "b", "resourceRequirements": [{"type": "GPU", "value": "1"}]}]}});
    let r = run(&inputs(
        None,
        Some(td),
        Some(vec![instance("i-1", "g5.12xlarge", 4, 2)]),
    ));
    let (status, ev) = step(&r, StepId::GpusAvailable);
    assert_eq!(status, Status::Fail, "{ev}");
    assert!(ev.contains("one task needs 3 GPUs"), "{ev}");
    assert!(r.verdict.message.contains("every GPU is taken"));

    let r = run(&inputs(
        None,
        Some(task_def("ALL")),
        Some(vec![instance("i-1", "g5.12xlarge", 4, 3)]),
    ));
    assert_eq!(step(&r, StepId::GpusAvailable).0, Status::Fail);
    let r = run(&inputs(
        None,
        Some(task_def("ALL")),
        Some(vec![instance("i-1", "g5.12xlarge", 4, 4)]),
    ));
    assert_eq!(step(&r, StepId::GpusAvailable).0, Status::Pass);
}

#[test]
fn capacity_only_counts_instances_of_the_services_capacity_providers() {
    let mut other = instance("i-1", "g5.xlarge", 1, 1);
    other["capacityProviderName"] = json!("cpu-cp");
    let svc =
        service(json!({"capacityProviderStrategy": [{"capacityProvider": "gpu-cp", "weight": 1}]}));
    let r = run(&inputs(Some(svc), Some(task_def("1")), Some(vec![other])));
    assert_eq!(r.verdict.step, "capacity");
    assert!(
        r.verdict
            .message
            .contains("capacity providers of the service's strategy"),
        "{}",
        r.verdict.message
    );
}

#[test]
fn capacity_names_an_auto_scaling_group_that_wants_no_instances() {
    let mut i = inputs(Some(service(json!({}))), Some(task_def("1")), Some(vec![]));
    i.auto_scaling_groups = Some(
        serde_json::from_value(json!({"AutoScalingGroups": [
            {"AutoScalingGroupName": "gpu-asg", "MinSize": 0, "MaxSize": 4, "DesiredCapacity": 0, "Instances": []}
        ]}))
        .unwrap(),
    );
    i.scaling_activities = Some(serde_json::from_value(json!({"Activities": []})).unwrap());
    let r = run(&i);
    assert_eq!(r.verdict.step, "capacity");
    assert!(
        r.verdict.message.contains("desired capacity 0"),
        "{}",
        r.verdict.message
    );
}

#[test]
fn distinct_instance_excludes_instances_that_run_the_group() {
    let svc = service(json!({"placementConstraints": [{"type": "distinctInstance"}]}));
    let mut i = inputs(
        Some(svc),
        Some(task_def("1")),
        Some(vec![instance("i-1", "g5.12xlarge", 4, 3)]),
    );
    i.tasks = Some(
        serde_json::from_value(json!({"tasks": [{
            "group": "service:train", "lastStatus": "RUNNING",
            "containerInstanceArn": "arn:aws:ecs:us-east-1:123456789012:container-instance/gpu/i-1"
        }]}))
        .unwrap(),
    );
    let r = run(&i);
    assert_eq!(r.verdict.step, "placement-constraint");
    assert!(
        r.verdict.message.contains("distinctInstance"),
        "{}",
        r.verdict.message
    );
}

#[test]
fn an_attribute_name_typo_gets_a_suggestion() {
    let svc = service(json!({"placementConstraints": [
        {"type": "memberOf", "expression": "attribute:ecs.instance_type == g5.xlarge"}]}));
    let r = run(&inputs(
        Some(svc),
        Some(task_def("1")),
        Some(vec![instance("i-1", "g5.xlarge", 1, 1)]),
    ));
    assert_eq!(r.verdict.step, "placement-constraint");
    let fix = r.verdict.fix.unwrap();
    assert!(
        fix.contains(
            "did you mean `attribute:ecs.instance-type` for `attribute:ecs.instance_type`?"
        ),
        "{fix}"
    );
}

#[test]
fn a_constraint_that_does_not_parse_fails_with_where() {
    let svc = service(json!({"placementConstraints": [
        {"type": "memberOf", "expression": "attribute:ecs.instance-type = g5.xlarge"}]}));
    let r = run(&inputs(
        Some(svc),
        Some(task_def("1")),
        Some(vec![instance("i-1", "g5.xlarge", 1, 1)]),
    ));
    assert_eq!(r.verdict.step, "placement-constraint");
    assert!(
        r.verdict.message.contains("does not parse"),
        "{}",
        r.verdict.message
    );
}

#[test]
fn memory_above_what_the_instance_registers_can_never_fit() {
    let mut td = task_def("1");
    td["taskDefinition"]["cpu"] = json!("2 vCPU");
    td["taskDefinition"]["memory"] = json!("16 GB");
    let r = run(&inputs(
        None,
        Some(td),
        Some(vec![instance("i-1", "g5.xlarge", 1, 1)]),
    ));
    assert_eq!(r.verdict.step, "cpu-memory");
    assert!(
        r.verdict.message.contains("2048 CPU units and 16384 MiB")
            && r.verdict
                .message
                .contains("i-1 (g5.xlarge) registers 4096 CPU units and 15779 MiB"),
        "{}",
        r.verdict.message
    );
}

#[test]
fn a_resource_eni_event_fails_cpu_memory_for_awsvpc() {
    let mut td = task_def("1");
    td["taskDefinition"]["networkMode"] = json!("awsvpc");
    let svc = service(json!({"events": [{"message":
        "(service train) was unable to place a task. Reason: RESOURCE:ENI. For more information, see the Troubleshooting section."}]}));
    let r = run(&inputs(
        Some(svc),
        Some(td),
        Some(vec![instance("i-1", "g5.xlarge", 1, 1)]),
    ));
    assert_eq!(r.verdict.step, "cpu-memory");
    assert!(r.verdict.message.contains("ENI"), "{}", r.verdict.message);
}

#[test]
fn tasks_that_are_placed_and_stop_are_named_when_nothing_fails() {
    let mut i = inputs(
        Some(service(json!({}))),
        Some(task_def("1")),
        Some(vec![instance("i-1", "g5.xlarge", 1, 1)]),
    );
    i.tasks = Some(
        serde_json::from_value(json!({"tasks": [{
            "group": "service:train", "lastStatus": "STOPPED",
            "stoppedReason": "CannotStartContainerError: Error response from daemon: failed to create task for container: could not select device driver \"nvidia\""
        }]}))
        .unwrap(),
    );
    let r = run(&i);
    assert_eq!(r.outcome(), Outcome::Inconclusive);
    assert!(
        r.verdict.message.contains("could not select device driver"),
        "{}",
        r.verdict.message
    );
}

#[test]
fn a_gpu_fraction_places_only_on_the_matching_partition() {
    let r = run(&inputs(
        None,
        Some(task_def("0.5")),
        Some(vec![instance("i-1", "g5.xlarge", 1, 1)]),
    ));
    assert_eq!(r.verdict.step, "gpus-available");
    assert!(
        r.verdict.message.contains("kind of GPU"),
        "{}",
        r.verdict.message
    );
    let r = run(&inputs(
        None,
        Some(task_def("0.5")),
        Some(vec![instance("i-1", "g6f.4xlarge", 1, 1)]),
    ));
    assert_eq!(step(&r, StepId::GpusAvailable).0, Status::Pass);
    let r = run(&inputs(
        None,
        Some(task_def("1")),
        Some(vec![instance("i-1", "g6f.4xlarge", 1, 1)]),
    ));
    assert_eq!(r.verdict.step, "gpus-available");
}

/// The attribute names the diagnosis reads are the agent's built-in ones the catalog lists.
#[test]
fn attribute_names_are_the_catalogs() {
    let builtin = &ecs_gpu_catalog::catalog().query_language.builtin_attributes;
    for a in ["ecs.instance-type", "ecs.ami-id"] {
        assert!(builtin.iter().any(|b| b == a), "{a}");
    }
}

#[test]
fn capacity_says_a_group_is_still_launching_when_nothing_failed() {
    let mut i = inputs(Some(service(json!({}))), Some(task_def("1")), Some(vec![]));
    i.auto_scaling_groups = Some(
        serde_json::from_value(json!({"AutoScalingGroups": [
            {"AutoScalingGroupName": "gpu-asg", "MinSize": 0, "MaxSize": 4, "DesiredCapacity": 2, "Instances": []}
        ]}))
        .unwrap(),
    );
    i.scaling_activities = Some(
        serde_json::from_value(json!({"Activities": [
            {"AutoScalingGroupName": "gpu-asg", "StatusCode": "InProgress", "Description": "Launching a new EC2 instance: i-1"}
        ]}))
        .unwrap(),
    );
    let r = run(&i);
    assert_eq!(r.verdict.step, "capacity");
    assert!(
        r.verdict
            .message
            .contains("wants 2 instances but has 0 in service"),
        "{}",
        r.verdict.message
    );
}

fn constrained(expression: &str, instances: Vec<Value>) -> Inputs {
    let svc = service(json!({"placementConstraints": [
        {"type": "memberOf", "expression": expression}]}));
    inputs(Some(svc), Some(task_def("1")), Some(instances))
}

/// `task:group` is the groups of the tasks the instance runs, as in ECS, not the group of the task
/// being placed.
#[test]
fn task_group_is_the_groups_of_the_tasks_on_the_instance() {
    // An idle instance runs no task of any group.
    let r = run(&constrained(
        "task:group == service:train",
        vec![instance("i-1", "g5.xlarge", 1, 1)],
    ));
    assert_eq!(r.verdict.step, "placement-constraint");
    assert_eq!(step(&r, StepId::PlacementConstraint).0, Status::Fail);
    let r = run(&constrained(
        "not(task:group == service:train)",
        vec![instance("i-1", "g5.xlarge", 1, 1)],
    ));
    assert_eq!(step(&r, StepId::PlacementConstraint).0, Status::Pass);

    // One task runs, and the input lists it: every group is known.
    let mut i = constrained(
        "task:group == service:train",
        vec![instance("i-1", "g5.12xlarge", 4, 3)],
    );
    i.tasks = Some(
        serde_json::from_value(json!({"tasks": [{
            "group": "service:train", "lastStatus": "RUNNING", "desiredStatus": "RUNNING",
            "containerInstanceArn": "arn:aws:ecs:us-east-1:123456789012:container-instance/gpu/i-1"
        }]}))
        .unwrap(),
    );
    let (status, ev) = step(&run(&i), StepId::PlacementConstraint);
    assert_eq!(status, Status::Pass, "{ev}");

    // One task runs and the input (only this service's tasks) does not list it: another service's.
    let mut i = constrained(
        "task:group == service:train",
        vec![instance("i-1", "g5.12xlarge", 4, 3)],
    );
    i.tasks = Some(serde_json::from_value(json!({"tasks": []})).unwrap());
    let (status, ev) = step(&run(&i), StepId::PlacementConstraint);
    assert_eq!(status, Status::Unknown, "{ev}");
    assert!(
        ev.contains("are not all known: it runs 1 and the input lists 0"),
        "{ev}"
    );

    // One task runs and there is no task input at all: undecided, not failed.
    let i = constrained(
        "task:group == service:train",
        vec![instance("i-1", "g5.12xlarge", 4, 3)],
    );
    let (status, ev) = step(&run(&i), StepId::PlacementConstraint);
    assert_eq!(status, Status::Unknown, "{ev}");
    assert!(
        ev.contains("(1 undecided)") && ev.contains("the groups of the tasks on i-1 are not known"),
        "{ev}"
    );
}

#[test]
fn a_java_only_regular_expression_is_undecided_not_failed() {
    let r = run(&constrained(
        "attribute:ecs.instance-type =~ (?!g4dn).*",
        vec![instance("i-1", "g5.xlarge", 1, 1)],
    ));
    let (status, ev) = step(&r, StepId::PlacementConstraint);
    assert_eq!(status, Status::Unknown, "{ev}");
    assert!(ev.contains("Java-only syntax"), "{ev}");
    assert_ne!(r.verdict.step, "placement-constraint");
}

#[test]
fn and_binds_tighter_than_or_when_they_are_mixed() {
    // true || (true && false): true with `&&` first (false the other way round).
    let r = run(&constrained(
        "attribute:ecs.instance-type == g5.xlarge or attribute:ecs.instance-type == g5.xlarge and attribute:ecs.availability-zone == us-east-1z",
        vec![instance("i-1", "g5.xlarge", 1, 1)],
    ));
    let (status, ev) = step(&r, StepId::PlacementConstraint);
    assert_eq!(status, Status::Pass, "{ev}");
}

#[test]
fn registered_at_in_epoch_seconds_is_an_instant() {
    let mut inst = instance("i-1", "g5.xlarge", 1, 1);
    // 2026-01-02T03:04:05.5Z, as the AWS CLI v1 prints it.
    inst["registeredAt"] = json!(1_767_323_045.5);
    let r = run(&constrained(
        "registeredAt > 2025-12-31",
        vec![inst.clone()],
    ));
    assert_eq!(step(&r, StepId::PlacementConstraint).0, Status::Pass);
    let r = run(&constrained(
        "registeredAt < 2026-01-02T03:04:05Z",
        vec![inst],
    ));
    let (status, ev) = step(&r, StepId::PlacementConstraint);
    assert_eq!(status, Status::Fail, "{ev}");
    assert!(
        ev.contains("registeredAt is `2026-01-02T03:04:05Z`"),
        "{ev}"
    );
}

#[test]
fn word_operators_and_quoted_values_are_read() {
    let r = run(&constrained(
        "attribute:ecs.instance-type equals 'g5.xlarge' and ec2InstanceId in [\"i-1\"]",
        vec![instance("i-1", "g5.xlarge", 1, 1)],
    ));
    assert_eq!(step(&r, StepId::PlacementConstraint).0, Status::Pass);
}

/// Sizes near the integer limits saturate instead of overflowing.
#[test]
fn huge_container_sizes_saturate_instead_of_overflowing() {
    let json = r#"{"taskDefinition": {"family": "f", "containerDefinitions": [
        {"name": "a", "cpu": 9223372036854775807, "memory": 9223372036854775807,
         "resourceRequirements": [{"type": "GPU", "value": "4294967295"}]},
        {"name": "b", "cpu": 9223372036854775807, "memory": 9223372036854775807,
         "resourceRequirements": [{"type": "GPU", "value": "4294967295"}]}]}}"#;
    let td: ecs_gpu_diagnose::api::DescribeTaskDefinitionOutput =
        serde_json::from_str(json).unwrap();
    assert_eq!(
        ecs_gpu_diagnose::task_size(&td.task_definition),
        (i64::MAX, i64::MAX)
    );
    let inputs = ecs_gpu_diagnose::Inputs {
        task_definition: Some(td),
        ..Default::default()
    };
    ecs_gpu_diagnose::diagnose(&inputs, &ecs_gpu_diagnose::Target::default()).unwrap();
}
