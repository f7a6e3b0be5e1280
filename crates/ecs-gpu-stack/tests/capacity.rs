//! The capacity trace: service → strategy (or the cluster's default) → capacity provider → group →
//! launch templates → instance types, AMI source and user data. Each test writes a small module to a
//! temporary folder, loads it, and asks the trace.

use std::path::PathBuf;

use ecs_gpu_model::{LoadOptions, Model};
use ecs_gpu_stack::capacity::{
    ami_source, capacity_for_task, fleet_capacity, gpu_capacity, group_capacity, is_fleet,
    service_capacity, spot_evidence, user_data, AmiSource, GpuReason, Placement, UserData,
    GPU_CAPACITY, SPOT, TASK_CAPACITY,
};
use ecs_gpu_stack::load_filters;

fn load(name: &str, text: &str) -> Model {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("ecs-gpu-capacity-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.tf"), text).unwrap();
    // Only what the analyses asked here say they read: a debug build panics when one reads more.
    let (types, arguments) = load_filters(&[&GPU_CAPACITY, &TASK_CAPACITY, &SPOT]);
    let model = ecs_gpu_model::load(&LoadOptions {
        paths: vec![dir.clone()],
        only_types: Some(types),
        only_arguments: Some(arguments),
        ..Default::default()
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    model
}

const TASK: &str = r##"
resource "aws_ecs_task_definition" "app" {
  family = "app"
  container_definitions = jsonencode([{
    name                 = "app"
    image                = "app"
    resourceRequirements = [{ type = "GPU", value = "1" }]
  }])
}
"##;

const CHAIN: &str = r##"
resource "aws_ecs_cluster" "c" {
  name = "c"
}

resource "aws_launch_template" "lt" {
  image_id      = "resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
  instance_type = "g5.xlarge"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=c >> /etc/ecs/ecs.config\n")
}

resource "aws_autoscaling_group" "g" {
  min_size = 0
  max_size = 2
  launch_template {
    id      = aws_launch_template.lt.id
    version = aws_launch_template.lt.latest_version
  }
}

resource "aws_ecs_capacity_provider" "cp" {
  name = "cp"
  auto_scaling_group_provider {
    auto_scaling_group_arn = aws_autoscaling_group.g.arn
  }
}
"##;

/// A service whose strategy names the capacity provider `cp` by a string, running `app`.
const SERVICE_ON_CP_BY_NAME: &str = r#"
resource "aws_ecs_service" "s" {
  task_definition = "app"
  capacity_provider_strategy {
    capacity_provider = "cp"
    weight            = 1
  }
}
"#;

fn names(model: &Model) -> Option<Vec<String>> {
    let td = &model.task_definitions[0];
    capacity_for_task(model, td).map(|c| c.instance_types.iter().map(|t| t.name.clone()).collect())
}

#[test]
fn service_strategy_reaches_the_launch_template_instance_type() {
    let m = load(
        "strategy",
        &format!(
            "{TASK}{CHAIN}
resource \"aws_ecs_service\" \"s\" {{
  cluster         = aws_ecs_cluster.c.id
  task_definition = aws_ecs_task_definition.app.arn
  capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.cp.name
    weight            = 1
  }}
}}
"
        ),
    );
    assert_eq!(names(&m), Some(vec!["g5.xlarge".to_string()]));
    let cap = capacity_for_task(&m, &m.task_definitions[0]).unwrap();
    assert_eq!(cap.labels.len(), 1);
    let g = gpu_capacity(&m);
    assert_eq!(
        (g.providers.len(), g.groups.len(), g.templates.len()),
        (1, 1, 1)
    );
}

#[test]
fn a_literal_provider_name_is_followed_to_the_provider_of_that_name() {
    let m = load(
        "literal-name",
        &format!("{TASK}{CHAIN}{SERVICE_ON_CP_BY_NAME}"),
    );
    assert_eq!(names(&m), Some(vec!["g5.xlarge".to_string()]));
}

#[test]
fn links_written_as_names_and_arns_are_followed() {
    // The cluster's capacity providers by the cluster's name, the provider by its ARN, the task
    // definition by `family:revision`.
    let m = load(
        "names-and-arns",
        &format!(
            "{TASK}{CHAIN}
resource \"aws_ecs_cluster_capacity_providers\" \"c\" {{
  cluster_name       = \"c\"
  capacity_providers = [\"cp\"]
  default_capacity_provider_strategy {{
    capacity_provider = \"arn:aws:ecs:us-east-1:123456789012:capacity-provider/cp\"
  }}
}}

resource \"aws_ecs_service\" \"s\" {{
  cluster         = aws_ecs_cluster.c.arn
  task_definition = \"app:3\"
}}
"
        ),
    );
    let svc = m.resources_of("aws_ecs_service").next().unwrap();
    assert_eq!(
        service_capacity(&m, svc).placement,
        Placement::ClusterDefault
    );
    assert_eq!(names(&m), Some(vec!["g5.xlarge".to_string()]));
}

#[test]
fn a_name_two_providers_share_is_not_followed() {
    let m = load(
        "same-name",
        &format!(
            "{TASK}{CHAIN}
resource \"aws_ecs_capacity_provider\" \"other\" {{
  name = \"cp\"
  auto_scaling_group_provider {{
    auto_scaling_group_arn = aws_autoscaling_group.g.arn
  }}
}}
{SERVICE_ON_CP_BY_NAME}"
        ),
    );
    assert_eq!(names(&m), None);
}

#[test]
fn the_cluster_default_strategy_is_used_without_strategy_or_launch_type() {
    let m = load(
        "default",
        &format!(
            "{TASK}{CHAIN}
resource \"aws_ecs_cluster_capacity_providers\" \"c\" {{
  cluster_name       = aws_ecs_cluster.c.name
  capacity_providers = [aws_ecs_capacity_provider.cp.name]
  default_capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.cp.name
  }}
}}

resource \"aws_ecs_service\" \"s\" {{
  cluster         = aws_ecs_cluster.c.arn
  task_definition = aws_ecs_task_definition.app.arn
}}
"
        ),
    );
    let svc = m.resources_of("aws_ecs_service").next().unwrap();
    assert_eq!(
        service_capacity(&m, svc).placement,
        Placement::ClusterDefault
    );
    assert_eq!(names(&m), Some(vec!["g5.xlarge".to_string()]));
}

#[test]
fn launch_type_ec2_is_never_complete() {
    let m = load(
        "ec2",
        &format!(
            "{TASK}{CHAIN}
resource \"aws_ecs_cluster_capacity_providers\" \"c\" {{
  cluster_name       = aws_ecs_cluster.c.name
  capacity_providers = [aws_ecs_capacity_provider.cp.name]
}}

resource \"aws_ecs_service\" \"s\" {{
  cluster         = aws_ecs_cluster.c.arn
  launch_type     = \"EC2\"
  task_definition = aws_ecs_task_definition.app.arn
}}
"
        ),
    );
    let svc = m.resources_of("aws_ecs_service").next().unwrap();
    let cap = service_capacity(&m, svc);
    assert_eq!(cap.placement, Placement::LaunchTypeEc2);
    assert_eq!(
        cap.providers.len(),
        1,
        "the cluster's providers are still known"
    );
    assert!(!cap.complete);
    assert_eq!(names(&m), None);
}

#[test]
fn mixed_instances_overrides_replace_the_template_type() {
    let mixed = CHAIN.replace(
        "  launch_template {\n    id      = aws_launch_template.lt.id\n    version = aws_launch_template.lt.latest_version\n  }\n",
        r#"  mixed_instances_policy {
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.lt.id
      }
      override {
        instance_type = "g5.2xlarge"
      }
      override {
        instance_type = "g6.xlarge"
      }
    }
  }
"#,
    );
    let m = load(
        "mixed",
        &format!(
            "{TASK}{mixed}
resource \"aws_ecs_service\" \"s\" {{
  task_definition = aws_ecs_task_definition.app.arn
  capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.cp.name
  }}
}}
"
        ),
    );
    assert_eq!(
        names(&m),
        Some(vec!["g5.2xlarge".to_string(), "g6.xlarge".to_string()])
    );
}

#[test]
fn any_unknown_link_makes_the_capacity_unknown() {
    let service = "
resource \"aws_ecs_service\" \"s\" {
  task_definition = aws_ecs_task_definition.app.arn
  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.cp.name
  }
}
";
    for (name, from, to) in [
        (
            "type-var",
            "instance_type = \"g5.xlarge\"",
            "instance_type = var.t",
        ),
        (
            "type-not-in-catalog",
            "instance_type = \"g5.xlarge\"",
            "instance_type = \"g7.xlarge\"",
        ),
        (
            "asg-var",
            "auto_scaling_group_arn = aws_autoscaling_group.g.arn",
            "auto_scaling_group_arn = var.asg",
        ),
        (
            "template-var",
            "id      = aws_launch_template.lt.id",
            "id      = var.lt",
        ),
    ] {
        let chain = CHAIN.replace(from, to);
        let m = load(
            name,
            &format!(
                "{TASK}{chain}{service}
variable \"t\" {{
  type = string
}}
variable \"asg\" {{
  type = string
}}
variable \"lt\" {{
  type = string
}}
"
            ),
        );
        assert_eq!(names(&m), None, "{name}");
    }
}

#[test]
fn another_service_with_an_unknown_task_definition_might_run_the_task() {
    let m = load(
        "other-service",
        &format!(
            "{TASK}{CHAIN}
resource \"aws_ecs_service\" \"s\" {{
  task_definition = aws_ecs_task_definition.app.arn
  capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.cp.name
  }}
}}

resource \"aws_ecs_service\" \"other\" {{
  task_definition = var.td
}}

variable \"td\" {{
  type = string
}}
"
        ),
    );
    assert_eq!(names(&m), None);
}

#[test]
fn a_task_definition_no_service_runs_has_no_known_capacity() {
    let m = load("no-service", &format!("{TASK}{CHAIN}"));
    assert_eq!(names(&m), None);
    // The capacity provider still launches a GPU type, so it is GPU capacity.
    assert_eq!(gpu_capacity(&m).templates.len(), 1);
}

#[test]
fn ami_sources_and_user_data() {
    let m = load(
        "ami",
        r##"
data "aws_ami" "al2" {
  name_regex = "^amzn2-ami-ecs-gpu-hvm-.*"
  owners     = ["amazon"]
}

data "aws_ssm_parameter" "p" {
  name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"
}

resource "aws_launch_template" "ssm" {
  image_id  = "resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
  user_data = base64encode("#!/bin/bash\necho ECS_CLUSTER=c >> /etc/ecs/ecs.config\n")
}

resource "aws_launch_template" "regex" {
  image_id = data.aws_ami.al2.id
}

resource "aws_launch_template" "param" {
  image_id  = data.aws_ssm_parameter.p.value
  user_data = base64encode("echo ${var.x}")
}

resource "aws_launch_template" "literal" {
  image_id = "ami-0123456789abcdef0"
}

resource "aws_launch_template" "conditional" {
  image_id = var.pinned ? "ami-0123456789abcdef0" : data.aws_ssm_parameter.p.value
}

variable "x" {
  type = string
}

variable "pinned" {
  type = bool
}
"##,
    );
    let lt = |n: &str| {
        m.resources_of("aws_launch_template")
            .find(|r| r.name == n)
            .unwrap()
    };
    let ssm = ami_source(&m, lt("ssm"));
    assert!(ssm.is_ecs_gpu(), "{ssm:?}");
    assert_eq!(
        user_data(lt("ssm")).0,
        UserData::Known("#!/bin/bash\necho ECS_CLUSTER=c >> /etc/ecs/ecs.config\n".into())
    );
    let regex = ami_source(&m, lt("regex"));
    assert!(
        matches!(regex, AmiSource::AmiLookup { .. }) && regex.is_ecs_gpu(),
        "{regex:?}"
    );
    let param = ami_source(&m, lt("param"));
    assert!(param.is_ecs_non_gpu(), "{param:?}");
    assert!(
        matches!(user_data(lt("param")).0, UserData::Partial(ref f) if f.iter().any(|s| s.contains("echo")))
    );
    assert!(matches!(
        ami_source(&m, lt("literal")),
        AmiSource::LiteralId { .. }
    ));
    assert!(matches!(
        ami_source(&m, lt("conditional")),
        AmiSource::Unknown
    ));
    assert_eq!(user_data(lt("literal")).0, UserData::Absent);
}

#[test]
fn groups_and_instances_outside_capacity_providers_are_gpu_capacity_when_they_configure_the_agent()
{
    let model = load(
        "outside-providers",
        r##"
resource "aws_launch_template" "ecs" {
  image_id      = "ami-0123456789abcdef0"
  instance_type = "g5.xlarge"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\n")
}
resource "aws_launch_template" "trainer" {
  image_id      = "ami-0123456789abcdef0"
  instance_type = "g5.xlarge"
  user_data     = base64encode("#!/bin/bash\n/opt/train.sh\n")
}
resource "aws_launch_template" "web" {
  image_id      = "ami-0123456789abcdef0"
  instance_type = "c6i.large"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=web >> /etc/ecs/ecs.config\n")
}
resource "aws_autoscaling_group" "ecs" {
  min_size = 0
  max_size = 2
  launch_template {
    id = aws_launch_template.ecs.id
  }
}
resource "aws_autoscaling_group" "trainer" {
  min_size = 0
  max_size = 2
  launch_template {
    id = aws_launch_template.trainer.id
  }
}
resource "aws_autoscaling_group" "web" {
  min_size = 0
  max_size = 2
  launch_template {
    id = aws_launch_template.web.id
  }
}
resource "aws_autoscaling_group" "maybe" {
  count    = var.n
  min_size = 0
  max_size = 2
  launch_template {
    id = aws_launch_template.ecs.id
  }
}
variable "n" {}
resource "aws_instance" "ecs" {
  ami           = "ami-0123456789abcdef0"
  instance_type = "g4dn.xlarge"
  user_data     = "#!/bin/bash\necho ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config\n"
}
resource "aws_instance" "cpu" {
  ami           = "ami-0123456789abcdef0"
  instance_type = "c6i.large"
  user_data     = "#!/bin/bash\necho ECS_CLUSTER=web >> /etc/ecs/ecs.config\n"
}
resource "aws_instance" "from_template" {
  instance_type = "g4dn.xlarge"
  user_data     = "#!/bin/bash\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\n"
  launch_template {
    id = aws_launch_template.trainer.id
  }
}
resource "aws_instance" "unknown_type" {
  ami           = "ami-0123456789abcdef0"
  instance_type = var.instance_type
  user_data     = "#!/bin/bash\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\n"
}
variable "instance_type" {}
"##,
    );
    let cap = gpu_capacity(&model);
    let groups: Vec<String> = cap
        .groups
        .iter()
        .map(|(g, reason)| {
            assert!(matches!(reason, GpuReason::EcsInstances { .. }));
            model.local_address(g.group)
        })
        .collect();
    assert_eq!(groups, ["aws_autoscaling_group.ecs"]);
    let templates: Vec<String> = cap
        .templates
        .iter()
        .map(|(t, _)| model.local_address(t.template))
        .collect();
    assert_eq!(templates, ["aws_launch_template.ecs", "aws_instance.ecs"]);
    assert!(matches!(
        &cap.templates[1].1,
        GpuReason::EcsInstance { instance_type, .. } if instance_type == "g4dn.xlarge"
    ));
    assert!(cap.templates[1].0.spec.is_none());
    assert!(cap.providers.is_empty());
}

#[test]
fn a_group_behind_a_capacity_provider_keeps_the_provider_as_its_reason() {
    let model = load(
        "behind-provider",
        r##"
resource "aws_launch_template" "gpu" {
  image_id      = "ami-0123456789abcdef0"
  instance_type = "g5.xlarge"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\n")
}
resource "aws_autoscaling_group" "gpu" {
  min_size = 0
  max_size = 2
  launch_template {
    id = aws_launch_template.gpu.id
  }
}
resource "aws_ecs_capacity_provider" "gpu" {
  name = "gpu"
  auto_scaling_group_provider {
    auto_scaling_group_arn = aws_autoscaling_group.gpu.arn
  }
}
"##,
    );
    let cap = gpu_capacity(&model);
    assert_eq!(cap.groups.len(), 1);
    assert!(matches!(cap.groups[0].1, GpuReason::GpuInstanceType { .. }));
    assert_eq!(cap.templates.len(), 1);
    assert!(matches!(
        cap.templates[0].1,
        GpuReason::GpuInstanceType { .. }
    ));
}

/// A group whose `override`s select instance types by attributes is GPU capacity only when the
/// requirements are known to select NVIDIA GPUs (allowed types that all have them, or NVIDIA
/// accelerators that are GPUs: `accelerator_types`, or allowed types that all have GPUs) or ask
/// only for NVIDIA GPUs (by manufacturer or by name).
#[test]
fn attribute_based_overrides_are_gpu_capacity_only_when_they_select_nvidia_gpus() {
    let cases = [
        (r#"allowed_instance_types = ["g5.*", "g6.*"]"#, true),
        (r#"allowed_instance_types = ["g5.*", "m5.*"]"#, false),
        (r#"allowed_instance_types = ["g4*"]"#, false),
        (
            r#"allowed_instance_types = ["g4*"]
          accelerator_manufacturers = ["nvidia"]"#,
            true,
        ),
        (
            r#"accelerator_types = ["gpu"]
          accelerator_manufacturers = ["nvidia"]"#,
            true,
        ),
        // Asks for NVIDIA accelerators without saying they are GPUs: configured for GPU tasks
        // (its label says so), not proven to launch GPUs.
        (r#"accelerator_manufacturers = ["nvidia"]"#, true),
        (
            r#"accelerator_types = ["gpu"]
          accelerator_manufacturers = ["nvidia", "amd"]"#,
            false,
        ),
        // NVIDIA GPUs by name (source key BOTO's `AcceleratorName`): configured for GPU tasks.
        (r#"accelerator_names = ["a10g", "t4"]"#, true),
        (r#"accelerator_names = ["t4", "radeon-pro-v520"]"#, false),
        (r#"accelerator_names = ["vu9p"]"#, false),
        (
            r#"accelerator_names = ["t4"]
          accelerator_count {
            max = 0
          }"#,
            false,
        ),
        // A count of accelerators, even of GPUs, is no sign of NVIDIA GPUs: FPGAs and Inferentia
        // chips are accelerators, AMD Radeon Pro and Habana Gaudi devices GPUs.
        (
            r#"accelerator_count {
            min = 1
          }"#,
            false,
        ),
        (
            r#"accelerator_types = ["gpu"]
          accelerator_count {
            min = 1
          }"#,
            false,
        ),
        (r#"allowed_instance_types = ["zz9.*"]"#, false),
        (r#"allowed_instance_types = []"#, false),
        (r#"allowed_instance_types = var.types"#, false),
    ];
    for (i, (requirements, gpu)) in cases.into_iter().enumerate() {
        let text = format!(
            r#"
variable "types" {{ type = list(string) }}
resource "aws_launch_template" "lt" {{ image_id = "ami-0123456789abcdef0" }}
resource "aws_autoscaling_group" "g" {{
  min_size = 0
  max_size = 2
  mixed_instances_policy {{
    launch_template {{
      launch_template_specification {{
        launch_template_id = aws_launch_template.lt.id
      }}
      override {{
        instance_requirements {{
          {requirements}
          memory_mib {{
            min = 1024
          }}
          vcpu_count {{
            min = 1
          }}
        }}
      }}
    }}
  }}
}}
resource "aws_ecs_capacity_provider" "cp" {{
  name = "cp"
  auto_scaling_group_provider {{
    auto_scaling_group_arn = aws_autoscaling_group.g.arn
  }}
}}
"#
        );
        let model = load(&format!("attributes-{i}"), &text);
        let cap = gpu_capacity(&model);
        assert_eq!(cap.providers.len(), usize::from(gpu), "{requirements}");
        if gpu {
            let (_, label) = cap.providers[0].1.label(&model);
            assert!(
                label.contains("only instance types with NVIDIA GPUs")
                    || label.contains("ask for NVIDIA GPUs"),
                "{label}"
            );
        }
    }
}

#[test]
fn managed_instances_providers_that_select_only_nvidia_gpus_are_gpu_capacity_without_templates() {
    let model = load(
        "managed-instances",
        r##"
resource "aws_ecs_capacity_provider" "gpu" {
  name = "gpu"
  managed_instances_provider {
    infrastructure_role_arn = "arn:aws:iam::123456789012:role/ecsInfrastructure"
    instance_launch_template {
      ec2_instance_profile_arn = "arn:aws:iam::123456789012:instance-profile/ecsInstance"
      instance_requirements {
        vcpu_count {
          min = 4
        }
        memory_mib {
          min = 16384
        }
        accelerator_types         = ["gpu"]
        accelerator_manufacturers = ["nvidia"]
      }
    }
  }
}
resource "aws_ecs_capacity_provider" "any" {
  name = "any"
  managed_instances_provider {
    infrastructure_role_arn = "arn:aws:iam::123456789012:role/ecsInfrastructure"
    instance_launch_template {
      ec2_instance_profile_arn = "arn:aws:iam::123456789012:instance-profile/ecsInstance"
      instance_requirements {
        vcpu_count {
          min = 4
        }
        memory_mib {
          min = 16384
        }
        accelerator_manufacturers = ["nvidia"]
      }
    }
  }
}
resource "aws_ecs_capacity_provider" "variable" {
  name = "variable"
  managed_instances_provider {
    infrastructure_role_arn = "arn:aws:iam::123456789012:role/ecsInfrastructure"
    instance_launch_template {
      ec2_instance_profile_arn = "arn:aws:iam::123456789012:instance-profile/ecsInstance"
      instance_requirements {
        vcpu_count {
          min = 4
        }
        memory_mib {
          min = 16384
        }
        accelerator_types         = var.types
        accelerator_manufacturers = ["nvidia"]
      }
    }
  }
}
variable "types" {}
"##,
    );
    let cap = gpu_capacity(&model);
    let providers: Vec<String> = cap
        .providers
        .iter()
        .map(|(p, reason)| {
            assert!(matches!(reason, GpuReason::ManagedInstances { .. }));
            model.local_address(p)
        })
        .collect();
    // `nvidia` alone may be another accelerator than a GPU; a variable proves nothing.
    assert_eq!(providers, ["aws_ecs_capacity_provider.gpu"]);
    // No launch template, no user data: the user-data rules have nothing to read.
    assert!(cap.templates.is_empty());
    assert!(cap.groups.is_empty());
}

#[test]
fn spot_is_known_only_where_some_capacity_is_certainly_bought_on_spot() {
    let model = load(
        "spot",
        r##"
resource "aws_launch_template" "lt" {
  image_id = "ami-0123456789abcdef0"
}
resource "aws_autoscaling_group" "base_covers_max" {
  min_size = 0
  max_size = 2
  mixed_instances_policy {
    instances_distribution {
      on_demand_base_capacity                  = 2
      on_demand_percentage_above_base_capacity = 0
    }
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.lt.id
      }
      override {
        instance_type = "g5.xlarge"
      }
    }
  }
}
resource "aws_autoscaling_group" "half_spot" {
  min_size = 0
  max_size = 4
  mixed_instances_policy {
    instances_distribution {
      on_demand_percentage_above_base_capacity = 50
    }
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.lt.id
      }
      override {
        instance_type = "g5.xlarge"
      }
    }
  }
}
resource "aws_autoscaling_group" "default_on_demand" {
  min_size = 0
  max_size = 4
  mixed_instances_policy {
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.lt.id
      }
      override {
        instance_type = "g5.xlarge"
      }
    }
  }
}
resource "aws_ec2_fleet" "spot_target" {
  launch_template_config {
    launch_template_specification {
      launch_template_id = aws_launch_template.lt.id
      version            = "$Latest"
    }
  }
  target_capacity_specification {
    default_target_capacity_type = "on-demand"
    total_target_capacity        = 3
    spot_target_capacity         = 1
  }
}
resource "aws_ec2_fleet" "on_demand" {
  launch_template_config {
    launch_template_specification {
      launch_template_id = aws_launch_template.lt.id
      version            = "$Latest"
    }
  }
  target_capacity_specification {
    default_target_capacity_type = "on-demand"
    total_target_capacity        = 3
  }
}
resource "aws_spot_fleet_request" "all_on_demand" {
  iam_fleet_role             = "arn:aws:iam::123456789012:role/fleet"
  target_capacity            = 2
  on_demand_target_capacity  = 2
  launch_template_config {
    launch_template_specification {
      id = aws_launch_template.lt.id
    }
  }
}
resource "aws_spot_fleet_request" "spot" {
  iam_fleet_role  = "arn:aws:iam::123456789012:role/fleet"
  target_capacity = 2
  launch_template_config {
    launch_template_specification {
      id = aws_launch_template.lt.id
    }
  }
}
"##,
    );
    let spot = |kind: &str, name: &str| {
        let r = model
            .resources_of(kind)
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("{kind}.{name}"));
        let cap = if is_fleet(r) {
            fleet_capacity(&model, r)
        } else {
            group_capacity(&model, r)
        };
        spot_evidence(&cap).is_some()
    };
    assert!(!spot("aws_autoscaling_group", "base_covers_max"));
    assert!(spot("aws_autoscaling_group", "half_spot"));
    // The API's default percentage is 100: all On-Demand.
    assert!(!spot("aws_autoscaling_group", "default_on_demand"));
    assert!(spot("aws_ec2_fleet", "spot_target"));
    assert!(!spot("aws_ec2_fleet", "on_demand"));
    assert!(!spot("aws_spot_fleet_request", "all_on_demand"));
    assert!(spot("aws_spot_fleet_request", "spot"));
}

/// Capacity configured for ECS GPU tasks (user data that enables GPU support, the ECS GPU AMI)
/// is GPU capacity when its instance types do not show NVIDIA GPUs (not known, or a family ECS
/// GPU support does not cover), and never when a type it launches has no GPU at all.
#[test]
fn capacity_configured_for_gpu_tasks_is_gpu_capacity_unless_its_types_have_no_gpu() {
    let cases = [
        // (instance type, image, user data, GPU capacity)
        (
            "var.instance_type",
            "ami-0123456789abcdef0",
            "ECS_ENABLE_GPU_SUPPORT=true",
            true,
        ),
        (
            "\"g4ad.xlarge\"",
            "ami-0123456789abcdef0",
            "ECS_ENABLE_GPU_SUPPORT=true",
            true,
        ),
        (
            "var.instance_type",
            "resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id",
            "ECS_CLUSTER=gpu",
            true,
        ),
        (
            "\"t3.large\"",
            "ami-0123456789abcdef0",
            "ECS_ENABLE_GPU_SUPPORT=true",
            false,
        ),
        (
            "\"t3.large\"",
            "resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id",
            "ECS_CLUSTER=gpu",
            false,
        ),
        (
            "var.instance_type",
            "ami-0123456789abcdef0",
            "ECS_ENABLE_GPU_SUPPORT=false",
            false,
        ),
    ];
    for (i, (instance_type, image, config, gpu)) in cases.into_iter().enumerate() {
        let text = format!(
            r##"
variable "instance_type" {{ type = string }}
resource "aws_launch_template" "lt" {{
  image_id      = "{image}"
  instance_type = {instance_type}
  user_data     = base64encode("#!/bin/bash\necho {config} >> /etc/ecs/ecs.config\n")
}}
resource "aws_autoscaling_group" "g" {{
  min_size = 0
  max_size = 2
  launch_template {{
    id = aws_launch_template.lt.id
  }}
}}
resource "aws_ecs_capacity_provider" "cp" {{
  name = "cp"
  auto_scaling_group_provider {{
    auto_scaling_group_arn = aws_autoscaling_group.g.arn
  }}
}}
"##
        );
        let model = load(&format!("intent-{i}"), &text);
        let cap = gpu_capacity(&model);
        assert_eq!(
            cap.providers.len(),
            usize::from(gpu),
            "{instance_type} {image} {config}"
        );
        if gpu {
            assert!(matches!(cap.providers[0].1, GpuReason::Intent { .. }));
        }
    }
}
