use super::*;

fn gpu() -> Workload {
    Workload {
        accelerator: Accelerator::Gpu,
        ..Workload::default()
    }
}

#[test]
fn gpu_defaults_to_ecs_on_ec2_with_guardrails() {
    let r = route(&gpu());
    assert_eq!(r.home, Home::EcsEc2);
    assert!(r.reasons[0].ends_with("(ECS-GPU)"), "{:?}", r.reasons);
    assert!(r
        .guardrails
        .iter()
        .any(|g| g.contains("homogeneous Auto Scaling group")));
    assert!(r.guardrails.iter().any(|g| g.contains("pins whole GPUs")));
    assert!(r
        .guardrails
        .iter()
        .any(|g| g.contains("amazon-linux-2023/gpu/recommended/image_id")));
    // The driver is a link of the chain: the AMI's driver, and the family no AMI drives.
    let driver = r
        .guardrails
        .iter()
        .find(|g| g.contains("one NVIDIA driver"))
        .expect("a driver guardrail");
    assert!(
        driver.contains("580.178.04 in release 20261113"),
        "{driver}"
    );
    assert!(driver.contains("g7 needs a newer driver"), "{driver}");
    assert!(driver.contains("EKS-G7-DOC"), "{driver}");
}

#[test]
fn gpu_with_fargate_is_never_fargate_and_names_alternatives() {
    let r = route(&Workload {
        fargate: true,
        ..gpu()
    });
    assert_eq!(r.home, Home::EcsEc2);
    assert!(r.reasons[0].starts_with("not Fargate"), "{:?}", r.reasons);
    assert!(r.reasons[0].contains("no GPU dimension"));
    assert!(r.reasons[0].contains("(BOTO, ECS-GPU, ECS-2023)"));
    assert!(r
        .guardrails
        .iter()
        .any(|g| g.contains("ecs-managed-instances")));
}

#[test]
fn gpu_with_aws_owned_lifecycle_goes_to_managed_instances() {
    let r = route(&Workload {
        ec2_lifecycle: Some(Ec2Lifecycle::Aws),
        ..gpu()
    });
    assert_eq!(r.home, Home::EcsManagedInstances);
    assert!(r.reasons[0].contains("pre-installed"), "{:?}", r.reasons);
    assert!(r
        .guardrails
        .iter()
        .any(|g| g.starts_with("fractional GPUs")));
}

#[test]
fn gpu_with_own_lifecycle_stays_on_ec2_without_the_preference_note() {
    let r = route(&Workload {
        ec2_lifecycle: Some(Ec2Lifecycle::Own),
        ..gpu()
    });
    assert_eq!(r.home, Home::EcsEc2);
    assert_eq!(r.reasons.len(), 1);
}

#[test]
fn on_premises_gpu_goes_to_anywhere() {
    let r = route(&Workload {
        on_premises: true,
        ..gpu()
    });
    assert_eq!(r.home, Home::EcsAnywhere);
    assert!(r.reasons[0].contains("--enable-gpu"));
    assert!(r.guardrails.iter().any(|g| g.contains("EXTERNAL")));
}

#[test]
fn kubernetes_primitives_go_to_eks_and_gpu_sharing_is_explained() {
    let r = route(&Workload {
        kubernetes: vec![K8sPrimitive::Karpenter],
        ..gpu()
    });
    assert_eq!(r.home, Home::Eks);
    assert!(r.reasons[0].contains("Karpenter"));
    assert_eq!(r.reasons.len(), 1);
    let r = route(&Workload {
        kubernetes: vec![K8sPrimitive::Mig, K8sPrimitive::TimeSlicing],
        ..gpu()
    });
    assert_eq!(r.home, Home::Eks);
    assert!(r.reasons[1].contains("no MIG profile"), "{:?}", r.reasons);
    assert!(r.reasons[1].contains("0.125/0.25/0.5"));
}

#[test]
fn managed_model_api_goes_to_bedrock_first() {
    let r = route(&Workload {
        managed_model_api: true,
        managed_ml: true,
        kubernetes: vec![K8sPrimitive::Kserve],
        ..gpu()
    });
    assert_eq!(r.home, Home::Bedrock);
}

#[test]
fn managed_training_or_hosting_goes_to_sagemaker() {
    let r = route(&Workload {
        managed_ml: true,
        kubernetes: vec![K8sPrimitive::Kserve],
        ..gpu()
    });
    assert_eq!(r.home, Home::Sagemaker);
}

#[test]
fn neuron_goes_to_managed_instances() {
    let r = route(&Workload {
        accelerator: Accelerator::Neuron,
        ..Workload::default()
    });
    assert_eq!(r.home, Home::EcsManagedInstances);
    assert!(
        r.reasons[0].contains("managed instances only"),
        "{:?}",
        r.reasons
    );
    let r = route(&Workload {
        accelerator: Accelerator::Neuron,
        on_premises: true,
        ec2_lifecycle: Some(Ec2Lifecycle::Own),
        ..Workload::default()
    });
    assert_eq!(r.home, Home::EcsManagedInstances);
    assert_eq!(r.guardrails.len(), 2);
}

#[test]
fn windows_gpu_is_refused_on_windows_containers() {
    let r = route(&Workload {
        windows: true,
        ..gpu()
    });
    assert_eq!(r.home, Home::EcsEc2);
    assert!(r
        .reasons
        .iter()
        .any(|s| s.starts_with("Windows containers cannot reserve GPUs")));
    assert!(r
        .guardrails
        .iter()
        .any(|g| g.starts_with("no GPU on Windows")));
}

#[test]
fn cpu_only_goes_to_fargate_unless_the_team_owns_ec2() {
    assert_eq!(route(&Workload::default()).home, Home::Fargate);
    let r = route(&Workload {
        fargate: true,
        windows: true,
        ..Workload::default()
    });
    assert_eq!(r.home, Home::Fargate);
    assert!(r
        .guardrails
        .iter()
        .any(|g| g.starts_with("Windows on Fargate")));
    let r = route(&Workload {
        ec2_lifecycle: Some(Ec2Lifecycle::Own),
        ..Workload::default()
    });
    assert_eq!(r.home, Home::EcsEc2);
    assert_eq!(
        route(&Workload {
            on_premises: true,
            ..Workload::default()
        })
        .home,
        Home::EcsAnywhere
    );
}

/// Whatever else is asked, an accelerated workload is never routed to Fargate.
#[test]
fn no_combination_routes_an_accelerated_workload_to_fargate() {
    let lifecycles = [None, Some(Ec2Lifecycle::Own), Some(Ec2Lifecycle::Aws)];
    for accelerator in [Accelerator::Gpu, Accelerator::Neuron] {
        for bits in 0u32..64 {
            for lifecycle in lifecycles {
                let b = |i: u32| bits & (1 << i) != 0;
                let w = Workload {
                    accelerator,
                    managed_model_api: b(0),
                    kubernetes: if b(1) {
                        vec![K8sPrimitive::Dra]
                    } else {
                        vec![]
                    },
                    managed_ml: b(2),
                    windows: b(3),
                    fargate: b(4),
                    on_premises: b(5),
                    ec2_lifecycle: lifecycle,
                };
                let r = route(&w);
                assert_ne!(r.home, Home::Fargate, "{w:?}");
                assert!(!r.reasons.is_empty(), "{w:?}");
            }
        }
    }
}

#[test]
fn workload_files_use_the_same_keys() {
    let w = Workload::from_toml(
        "accelerator = \"gpu\"\nfargate = true\nkubernetes = [\"kserve\", \"mig\"]\nec2_lifecycle = \"aws\"\n",
    )
    .unwrap();
    assert_eq!(w.accelerator, Accelerator::Gpu);
    assert!(w.fargate);
    assert_eq!(w.kubernetes, [K8sPrimitive::Kserve, K8sPrimitive::Mig]);
    assert_eq!(w.ec2_lifecycle, Some(Ec2Lifecycle::Aws));
}

#[test]
fn workload_file_errors_name_the_line() {
    let e = Workload::from_toml("accelerator = \"gpu\"\ngpus = 2\n").unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("unknown field `gpus`"), "{e}");
    let e = Workload::from_toml("kubernetes = [\"nomad\"]\n").unwrap_err();
    assert_eq!(e.line, Some(1));
}

/// Every home `route` recommends names the module that builds it, or says why none
/// does; the two GPU homes name the two modules, which exist with their examples.
#[test]
fn each_home_names_its_module_or_why_there_is_none() {
    let r = route(&gpu());
    assert_eq!(r.deploy.module, Some(EC2_MODULE));
    let r = route(&Workload {
        ec2_lifecycle: Some(Ec2Lifecycle::Aws),
        ..gpu()
    });
    assert_eq!(r.home, Home::EcsManagedInstances);
    assert_eq!(r.deploy.module, Some(MANAGED_INSTANCES_MODULE));
    // Neuron goes to Managed Instances, whose module selects NVIDIA GPUs only.
    let r = route(&Workload {
        accelerator: Accelerator::Neuron,
        ..Workload::default()
    });
    assert_eq!(r.deploy.module, None);
    assert!(r.deploy.note.contains("NVIDIA GPUs only"), "{:?}", r.deploy);
    for (w, home) in [
        (
            Workload {
                on_premises: true,
                ..gpu()
            },
            Home::EcsAnywhere,
        ),
        (
            Workload {
                kubernetes: vec![K8sPrimitive::Kueue],
                ..gpu()
            },
            Home::Eks,
        ),
        (
            Workload {
                managed_ml: true,
                ..gpu()
            },
            Home::Sagemaker,
        ),
        (
            Workload {
                managed_model_api: true,
                ..gpu()
            },
            Home::Bedrock,
        ),
        (Workload::default(), Home::Fargate),
        (
            Workload {
                ec2_lifecycle: Some(Ec2Lifecycle::Own),
                ..Workload::default()
            },
            Home::EcsEc2,
        ),
    ] {
        let r = route(&w);
        assert_eq!(r.home, home, "{w:?}");
        assert_eq!(r.deploy.module, None, "{w:?}");
        assert!(!r.deploy.note.is_empty(), "{w:?}");
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for module in [EC2_MODULE, MANAGED_INSTANCES_MODULE] {
        assert!(
            root.join(module).join("examples/basic/main.tf").is_file(),
            "{module} has no examples/basic"
        );
    }
}

#[test]
fn the_fargate_alternatives_name_the_modules() {
    let r = route(&Workload {
        fargate: true,
        ..gpu()
    });
    let alt = r
        .guardrails
        .iter()
        .find(|g| g.starts_with("alternatives to Fargate"))
        .unwrap();
    assert!(
        alt.contains(EC2_MODULE) && alt.contains(MANAGED_INSTANCES_MODULE),
        "{alt}"
    );
}
