use std::collections::BTreeSet;

use super::*;

fn known(name: &str) -> &'static InstanceType {
    match catalog().lookup(name) {
        Lookup::Known(t) => t,
        other => panic!("{name}: expected a known type, got {other:?}"),
    }
}

#[test]
fn embedded_data_loads_with_81_instance_types() {
    assert_eq!(catalog().instance_types().len(), 81);
}

#[test]
fn no_duplicate_instance_type_or_family_names() {
    let names: BTreeSet<_> = catalog().instance_types().iter().map(|t| &t.name).collect();
    assert_eq!(names.len(), catalog().instance_types().len());
    let families: BTreeSet<_> = catalog().families().iter().map(|f| &f.name).collect();
    assert_eq!(families.len(), catalog().families().len());
}

#[test]
fn duplicate_instance_type_is_rejected_by_the_loader() {
    let json = include_str!("../data/catalog.json");
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    let types = v["instance_types"].as_array_mut().unwrap();
    let first = types[0].clone();
    types.push(first);
    let err = data::load(&v.to_string()).unwrap_err();
    assert!(err.to_string().contains("listed twice"), "{err}");
}

#[test]
fn every_nvidia_full_gpu_type_has_at_least_one_gpu() {
    for t in catalog().instance_types() {
        if t.is_nvidia() && !matches!(t.family.as_str(), "g6f" | "gr6f" | "p6e-gb200") {
            assert!(
                matches!(t.gpus, Gpus::Whole(n) if n >= 1),
                "{}: {:?}",
                t.name,
                t.gpus
            );
        }
    }
}

#[test]
fn fractions_only_on_fractional_families() {
    for t in catalog().instance_types() {
        let fractional_family = matches!(t.family.as_str(), "g6f" | "gr6f");
        assert_eq!(
            t.gpus.fraction().is_some(),
            fractional_family,
            "{}: {:?}",
            t.name,
            t.gpus
        );
    }
}

#[test]
fn every_family_has_a_status_and_every_type_a_family() {
    let cat = catalog();
    for t in cat.instance_types() {
        let f = cat.family(&t.family).expect("family listed");
        assert_eq!(f.status, t.ecs_status, "{}", t.name);
    }
    let statuses = |s: EcsStatus| -> Vec<&str> {
        cat.families()
            .iter()
            .filter(|f| f.status == s)
            .map(|f| f.name.as_str())
            .collect()
    };
    assert_eq!(statuses(EcsStatus::Deprecated), ["g2"]);
    assert_eq!(statuses(EcsStatus::Restricted), ["p2"]);
    assert_eq!(statuses(EcsStatus::NotNvidia), ["g4ad"]);
    assert_eq!(
        statuses(EcsStatus::NoEcsGpuAmi),
        ["p6e-gb200", "g5g", "p6e-gb300"]
    );
    // G7 needs driver 595; every ECS GPU AMI release ships 580 or older.
    assert_eq!(statuses(EcsStatus::NoEcsGpuAmiDriver), ["g7"]);
    // No ECS document names p5e, p5en or p6-b300: the AMI loading their driver is not one.
    assert_eq!(
        statuses(EcsStatus::Unverified),
        ["p5e", "p5en", "p6-b300", "g7e"]
    );
}

#[test]
fn every_fact_has_a_source_that_resolves() {
    let cat = catalog();
    let check = |what: &str, keys: &[String]| {
        assert!(!keys.is_empty(), "{what}: no source");
        for k in keys {
            assert!(cat.source(k).is_some(), "{what}: unknown source key {k:?}");
        }
    };
    for f in cat.families() {
        check(&format!("family {}", f.name), &f.sources);
    }
    for t in cat.instance_types() {
        check(&format!("{} name", t.name), &t.sources["name"]);
        let mut fields = vec![];
        if t.gpus != Gpus::Unknown {
            fields.push("gpu_count");
        }
        if t.gpus.fraction().is_some() {
            fields.push("gpu_fraction");
        }
        for (field, present) in [
            ("gpu_model", t.gpu_model.is_some()),
            ("gpu_memory_mib", t.gpu_memory_mib.is_some()),
            ("vcpus", t.vcpus.is_some()),
            ("memory_mib", t.memory_mib.is_some()),
            ("architecture", t.architecture.is_some()),
        ] {
            if present {
                fields.push(field);
            }
        }
        for field in fields {
            let keys = t
                .sources
                .get(field)
                .unwrap_or_else(|| panic!("{}: {field} has no source", t.name));
            check(&format!("{} {field}", t.name), keys);
        }
    }
    check("ami", &cat.ami.sources);
    for p in &cat.ami.gpu_parameters {
        check(&p.parameter, &p.sources);
    }
    check("agent", &cat.agent.sources);
    check("market", &cat.market.sources);
    check("efa", &cat.efa.sources);
    check("capabilities", &cat.capabilities.sources);
    check("gpu requirement", &cat.gpu_requirement.sources);
    check("fargate", &cat.fargate.sources);
    check("query language", &cat.query_language.sources);
    check("managed instances", &cat.managed_instances.sources);
    check("anywhere", &cat.anywhere.sources);
    check("autoscaling", &cat.autoscaling.sources);
    check("ec2", &cat.ec2.sources);
    check("vgpu", &cat.vgpu.sources);
    let d = &cat.drivers;
    for r in d.ami_releases() {
        check(
            &format!("AMI release {} {}", r.release, r.variant),
            &r.sources,
        );
    }
    for (name, needs) in d.families() {
        check(&format!("driver needs of {name}"), &needs.sources);
    }
    for image in d.images() {
        check(&format!("image {}", image.repository), &image.sources);
        for r in &image.releases {
            for k in &r.sources {
                assert!(
                    cat.source(k).is_some(),
                    "{}: unknown source key {k:?}",
                    image.repository
                );
            }
        }
    }
    check("CUDA toolkit drivers", &d.toolkit_sources);
    check("minor version compatibility", &d.minor_compat_sources);
    check("forward compatibility", &d.forward_compatibility.sources);
    check("container requirement", &d.container_requirement.sources);
    for (v, facts) in &d.ami_variants {
        check(&format!("AMI variant {v}"), &facts.sources);
    }
}

#[test]
fn unverified_numbers_stay_unknown() {
    let t = known("p6e-gb200.36xlarge");
    assert_eq!(t.gpus, Gpus::Unknown);
    assert_eq!(t.gpu_model, None);
    assert_eq!(t.vcpus, None);
    assert_eq!(t.memory_mib, None);
    assert_eq!(t.architecture, None);
    assert_eq!(t.ecs_status, EcsStatus::NoEcsGpuAmi);
    assert!(!t.is_supported());
}

/// Types that arrived by a DescribeInstanceTypes record carry its numbers, and their family's
/// status says nothing beyond what a source says (no ECS source for G7e: unverified).
#[test]
fn types_added_from_describe_instance_types_are_known_and_unverified() {
    let t = known("g7e.2xlarge");
    assert_eq!(t.gpus, Gpus::Whole(1));
    assert_eq!(t.gpu_memory_mib, Some(98304));
    assert_eq!(t.vcpus, Some(8));
    assert_eq!(t.memory_mib, Some(65536));
    assert_eq!(t.architecture, Some(Architecture::X86_64));
    assert_eq!(t.ecs_status, EcsStatus::Unverified);
    assert_eq!(t.sources["vcpus"], ["karpenter-preview"]);
    assert_eq!(known("g7.48xlarge").gpus, Gpus::Whole(8));
    assert_eq!(catalog().efa.supports("g7e.48xlarge"), Some(true));
    assert_eq!(catalog().efa.supports("g7e.2xlarge"), Some(false));
    // Every NVIDIA family of the EC2 API's names is in the catalog now, but cg1 (no record anywhere).
    assert_eq!(catalog().ec2.families_with_gpus_not_detailed, ["cg1"]);
}

#[test]
fn vgpu_facts_name_the_fractional_families() {
    let v = &catalog().vgpu;
    assert!(v.is_vgpu_family("g6f") && v.is_vgpu_family("gr6f") && !v.is_vgpu_family("g6"));
    assert!(v.needs_memory_overcommit("g6f.large") && !v.needs_memory_overcommit("g6f.xlarge"));
    assert_eq!(v.ami_variants, ["al2023"]);
    assert_eq!(v.min_ami_release, "20260323");
    assert!(!v.mps);
    // Every fractional type of the catalog is of a vGPU family, and the other way round.
    for t in catalog().instance_types() {
        assert_eq!(
            t.gpus.fraction().is_some(),
            v.is_vgpu_family(&t.family),
            "{}",
            t.name
        );
    }
    // The AMI variants named are the catalog's.
    for variant in &v.ami_variants {
        assert!(catalog()
            .ami
            .gpu_parameters
            .iter()
            .any(|p| &p.variant == variant));
    }
}

#[test]
fn gpu_ami_variants_are_found_for_listed_and_pinned_parameters() {
    let ami = &catalog().ami;
    let variant = |name: &str| ami.gpu_variant(name).map(|p| p.variant.as_str());
    assert_eq!(
        variant("/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"),
        Some("al2023")
    );
    assert_eq!(
        variant("/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/al2023-ami-ecs-gpu-hvm-2023.0.20251027-kernel-6.1-x86_64"),
        Some("al2023")
    );
    assert_eq!(
        variant("/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/amzn2-ami-ecs-gpu-hvm-2.0.20230906-x86_64-ebs"),
        Some("al2")
    );
    assert_eq!(
        variant("/aws/service/ecs/optimized-ami/amazon-linux-2/kernel-5.10/gpu/recommended"),
        Some("al2-kernel-5.10")
    );
    assert_eq!(
        variant("/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"),
        None
    );
    assert_eq!(variant("/my/gpu/ami"), None);
}

#[test]
fn gpu_ami_releases_are_read_from_names_and_pinned_parameters() {
    let ami = &catalog().ami;
    assert_eq!(
        ami.gpu_ami_release("al2023-ami-ecs-gpu-hvm-2023.0.20260323-kernel-6.1-x86_64"),
        Some("20260323")
    );
    assert_eq!(
        ami.gpu_ami_release(
            "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/al2023-ami-ecs-gpu-hvm-2023.0.20251027-kernel-6.1-x86_64/image_id"
        ),
        None,
        "a sub-parameter's last segment is not the AMI name"
    );
    assert_eq!(
        ami.gpu_ami_release(
            "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/al2023-ami-ecs-gpu-hvm-2023.0.20251027-kernel-6.1-x86_64"
        ),
        Some("20251027")
    );
    assert_eq!(
        ami.gpu_ami_release("amzn2-ami-ecs-gpu-hvm-2.0.20230906-x86_64-ebs"),
        Some("20230906")
    );
    // A release that is not written out, or not a GPU AMI: unknown.
    assert_eq!(
        ami.gpu_ami_release("al2023-ami-ecs-gpu-hvm-2023.0.2026*"),
        None
    );
    assert_eq!(ami.gpu_ami_release("al2023-ami-ecs-gpu-hvm-*"), None);
    assert_eq!(
        ami.gpu_ami_release("al2023-ami-ecs-hvm-2023.0.20260323-kernel-6.1-x86_64"),
        None
    );
    assert_eq!(
        ami.gpu_ami_release("/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended"),
        None
    );
}

/// catalog.json is generated from `data/sources/` by `scripts/import-catalog.py`; a hand edit of
/// either side, or a source change not carried over, fails here. Needs python3 (3.8 or later);
/// without it the test says so and passes, and `.ci/run` runs the same check directly.
#[test]
fn catalog_json_is_generated_from_its_sources() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = root.join("scripts/import-catalog.py");
    let out = match std::process::Command::new("python3")
        .arg(&script)
        .arg("--check")
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "note: python3 not found: catalog.json was not checked against data/sources"
            );
            return;
        }
        Err(e) => panic!("{}: {e}", script.display()),
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn lookups_are_exact_and_size_aware() {
    let g5_12 = known("g5.12xlarge");
    assert_eq!(g5_12.gpus, Gpus::Whole(4));
    assert_eq!(g5_12.gpu_model.as_deref(), Some("NVIDIA A10G"));
    assert_eq!(g5_12.vcpus, Some(48));
    assert_eq!(g5_12.cpu_units(), Some(48 * 1024));
    assert_eq!(known("g5.xlarge").gpus, Gpus::Whole(1));
    assert_eq!(known("p5.48xlarge").gpus, Gpus::Whole(8));
    assert_eq!(
        known("g6f.2xlarge").gpus,
        Gpus::Fraction(GpuFraction::Quarter)
    );
    assert_eq!(
        known("g6f.2xlarge").ecs_gpu_value().as_deref(),
        Some("0.25")
    );
    assert_eq!(known("g4ad.xlarge").ecs_gpu_value(), None);
    assert_eq!(known("g5g.xlarge").architecture, Some(Architecture::Arm64));
    assert_eq!(known("g5g.xlarge").ecs_status, EcsStatus::NoEcsGpuAmi);
}

#[test]
fn unknown_names_are_unknown_never_guessed() {
    let cat = catalog();
    // A typo and an unlisted size of a known family.
    assert!(
        matches!(cat.lookup("g5.xlarg"), Lookup::Unknown { family: Some(f) } if f.name == "g5")
    );
    assert!(matches!(
        cat.lookup("g5.96xlarge"),
        Lookup::Unknown { family: Some(_) }
    ));
    // Case matters, as in EC2.
    assert!(matches!(
        cat.lookup("G5.xlarge"),
        Lookup::Unknown { family: None }
    ));
    // A family that is not in EC2's list (new or invented).
    assert!(matches!(
        cat.lookup("g9.xlarge"),
        Lookup::Unknown { family: None }
    ));
    // GPU families EC2 has that the catalog does not detail: unknown, not "no GPU".
    assert!(cat.is_ec2_instance_type("cg1.4xlarge"));
    assert!(matches!(
        cat.lookup("cg1.4xlarge"),
        Lookup::Unknown { family: None }
    ));
    // g2: known deprecated family, no sizes listed.
    match cat.lookup("g2.2xlarge") {
        Lookup::Unknown { family: Some(f) } => assert_eq!(f.status, EcsStatus::Deprecated),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ec2_types_of_families_without_gpus_are_no_gpu() {
    let cat = catalog();
    assert_eq!(cat.lookup("m5.large"), Lookup::NoGpu);
    assert_eq!(cat.lookup("c7i.2xlarge"), Lookup::NoGpu);
    assert_eq!(cat.lookup("inf2.xlarge"), Lookup::NoGpu);
    // Not an EC2 name: unknown.
    assert!(matches!(cat.lookup("m5.huge"), Lookup::Unknown { .. }));
}

#[test]
fn suggestions_name_the_nearest_types() {
    let cat = catalog();
    assert_eq!(cat.suggest("g5.xlarg", 3)[0], "g5.xlarge");
    assert_eq!(cat.suggest("g4dn.xlarge ", 1), ["g4dn.xlarge"]);
    assert_eq!(cat.suggest("p5.48xl", 1), ["p5.48xlarge"]);
    assert!(cat.suggest("zzzzzz", 3).is_empty());
}

#[test]
fn ami_parameters_are_classified() {
    let ami = &catalog().ami;
    let gpu = |name: &str| match ami.classify_parameter(name) {
        AmiClass::EcsGpu {
            variant,
            end_of_life,
        } => (variant.map(|v| v.variant.as_str()), end_of_life),
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(
        gpu("/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"),
        (Some("al2023"), None)
    );
    assert_eq!(
        gpu("/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended"),
        (Some("al2"), Some("2026-06-30"))
    );
    assert_eq!(
        gpu("/aws/service/ecs/optimized-ami/amazon-linux-2/kernel-5.10/gpu/recommended/image_id"),
        (Some("al2-kernel-5.10"), Some("2026-06-30"))
    );
    // The version-pinned form is a GPU AMI too.
    assert_eq!(
        gpu("/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/amzn2-ami-ecs-gpu-hvm-2.0.20230906-x86_64-ebs"),
        (None, Some("2026-06-30"))
    );
    assert_eq!(
        ami.classify_parameter(
            "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"
        ),
        AmiClass::EcsNonGpu { end_of_life: None }
    );
    assert_eq!(
        ami.classify_parameter("/aws/service/ecs/optimized-ami/amazon-linux-2/recommended"),
        AmiClass::EcsNonGpu {
            end_of_life: Some("2026-06-30")
        }
    );
    assert_eq!(
        ami.classify_parameter("/my/team/gpu-ami"),
        AmiClass::Unknown
    );
    assert_eq!(
        ami.recommended_parameter,
        "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
    );
}

#[test]
fn ami_name_filters_are_classified_without_guessing() {
    let ami = &catalog().ami;
    assert_eq!(
        ami.classify_name("al2023-ami-ecs-gpu-hvm-*-x86_64-ebs"),
        AmiNameClass::EcsGpu {
            amazon_linux_2: false
        }
    );
    assert_eq!(
        ami.classify_name("amzn2-ami-ecs-gpu-hvm-*"),
        AmiNameClass::EcsGpu {
            amazon_linux_2: true
        }
    );
    assert_eq!(
        ami.classify_name("al2023-ami-ecs-hvm-*-x86_64"),
        AmiNameClass::EcsNonGpu {
            amazon_linux_2: false
        }
    );
    // ECS AMIs that could be GPU ones as well.
    assert_eq!(
        ami.classify_name("al2023-ami-ecs-*"),
        AmiNameClass::EcsAnyVariant {
            amazon_linux_2: false
        }
    );
    assert_eq!(
        ami.classify_name("amzn2-ami-ecs-gpu-*"),
        AmiNameClass::EcsAnyVariant {
            amazon_linux_2: true
        }
    );
    // The kernel-5.10 GPU AMI is a GPU AMI (it was read as a non-GPU one), and a filter of the
    // kernel-5.10 AMIs may match it.
    assert_eq!(
        ami.classify_name("amzn2-ami-ecs-kernel-5.10-gpu-hvm-*"),
        AmiNameClass::EcsGpu {
            amazon_linux_2: true
        }
    );
    assert_eq!(
        ami.classify_name("amzn2-ami-ecs-kernel-5.10-*"),
        AmiNameClass::EcsAnyVariant {
            amazon_linux_2: true
        }
    );
    assert_eq!(
        ami.gpu_variant_of_name("amzn2-ami-ecs-kernel-5.10-gpu-hvm-2.0.20260813-x86_64-ebs")
            .map(|p| p.variant.as_str()),
        Some("al2-kernel-5.10")
    );
    assert_eq!(
        ami.gpu_variant_of_name("amzn2-ami-ecs-gpu-hvm-*")
            .map(|p| p.variant.as_str()),
        Some("al2")
    );
    assert_eq!(ami.gpu_variant_of_name("amzn2-ami-ecs-*"), None);
    // Could match AMIs other than the ECS ones.
    assert_eq!(ami.classify_name("amzn2-ami-*"), AmiNameClass::Unknown);
    assert_eq!(ami.classify_name("al2023-ami-e*"), AmiNameClass::Unknown);
    assert_eq!(ami.classify_name("my-gpu-image-*"), AmiNameClass::Unknown);
}

#[test]
fn gpu_values_parse_as_ecs_reads_them() {
    assert_eq!(GpuValue::parse("1"), Ok(GpuValue::Whole(1)));
    assert_eq!(GpuValue::parse("8"), Ok(GpuValue::Whole(8)));
    assert_eq!(GpuValue::parse("ALL"), Ok(GpuValue::All));
    assert_eq!(
        GpuValue::parse("0.125"),
        Ok(GpuValue::Fraction(GpuFraction::Eighth))
    );
    assert_eq!(
        GpuValue::parse("0.5"),
        Ok(GpuValue::Fraction(GpuFraction::Half))
    );
    assert!(matches!(
        GpuValue::parse("0"),
        Err(GpuValueError::NotPositive(_))
    ));
    assert!(matches!(
        GpuValue::parse("-1"),
        Err(GpuValueError::NotPositive(_))
    ));
    assert!(matches!(
        GpuValue::parse("0.3"),
        Err(GpuValueError::NotAllowed(_))
    ));
    assert!(matches!(
        GpuValue::parse("1.5"),
        Err(GpuValueError::NotAllowed(_))
    ));
    assert!(matches!(
        GpuValue::parse("one"),
        Err(GpuValueError::NotANumber(_))
    ));
    assert!(matches!(GpuValue::parse(""), Err(GpuValueError::Empty)));
}

#[test]
fn agent_and_fargate_identifiers_are_read_from_the_data() {
    let cat = catalog();
    assert_eq!(
        cat.agent.gpu_driver_version_attribute(),
        Some("ecs.capability.gpu-driver-version")
    );
    assert!(cat.fargate.is_capacity_provider("FARGATE"));
    assert!(cat.fargate.is_capacity_provider("FARGATE_SPOT"));
    assert!(!cat.fargate.is_capacity_provider("gpu-g5"));
}

#[test]
fn capability_names_come_from_the_toolkit() {
    let caps = &catalog().capabilities;
    assert!(caps.invalid_names("utility,compute").is_empty());
    assert!(caps.invalid_names("all").is_empty());
    assert_eq!(caps.invalid_names("compute,utilty"), ["utilty"]);
    assert_eq!(caps.default, "utility,compute");
}

#[test]
fn fargate_table_has_no_gpu_and_seven_cpu_sizes() {
    let f = &catalog().fargate;
    assert!(!f.gpu);
    let sizes = f.sizes();
    assert_eq!(sizes.len(), 7);
    assert_eq!(sizes[0], (256, &[512u64, 1024, 2048][..]));
}

#[test]
fn filters_combine_and_never_match_unknown_values() {
    let cat = catalog();
    let names = |f: Filter| -> Vec<String> { cat.filter(&f).map(|t| t.name.clone()).collect() };
    let g5_multi = names(Filter {
        family: Some("g5".into()),
        min_gpus: Some(4),
        ..Filter::default()
    });
    assert_eq!(g5_multi, ["g5.12xlarge", "g5.24xlarge", "g5.48xlarge"]);
    // `l4` is a word of "NVIDIA L4", not of "NVIDIA L40S".
    let l4 = names(Filter {
        gpu_model: Some("l4".into()),
        ..Filter::default()
    });
    assert!(
        l4.iter()
            .all(|n| n.starts_with("g6.") || n.starts_with("g6f.") || n.starts_with("gr6")),
        "{l4:?}"
    );
    assert!(l4.contains(&"g6.xlarge".to_string()));
    let arm = names(Filter {
        architecture: Some(Architecture::Arm64),
        ..Filter::default()
    });
    assert_eq!(arm.len(), 6);
    assert!(names(Filter {
        architecture: Some(Architecture::Arm64),
        supported: true,
        ..Filter::default()
    })
    .is_empty());
    // p6e-gb200 has no verified numbers: no numeric filter keeps it.
    let big = names(Filter {
        min_gpus: Some(1),
        ..Filter::default()
    });
    assert!(!big.contains(&"p6e-gb200.36xlarge".to_string()));
    assert!(!big.contains(&"g6f.large".to_string()));
    let mem = names(Filter {
        min_gpu_memory_mib: Some(80 * 1024),
        ..Filter::default()
    });
    assert!(mem.contains(&"p5.48xlarge".to_string()) && !mem.contains(&"p4d.24xlarge".to_string()));
}

/// The module's EFA refusal reads `efa` per type: true with EFA, false without, null when the
/// sources do not say (the module then refuses nothing).
#[test]
fn terraform_catalog_carries_efa_and_keeps_unknown_null() {
    let text = catalog().terraform_locals();
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("\"{name}\" ")))
            .unwrap_or_else(|| panic!("{name} is not in catalog.tf"))
            .to_string()
    };
    assert!(line("p5.48xlarge").contains("efa = true }"));
    assert!(line("g4dn.2xlarge").contains("efa = false }"));
    let unknown = catalog()
        .instance_types()
        .iter()
        .find(|t| catalog().efa.supports(&t.name).is_none())
        .map(|t| t.name.clone());
    if let Some(name) = unknown {
        assert!(line(&name).contains("efa = null }"), "{name}");
    }
}

#[test]
fn managed_instances_values_named_in_code_are_in_the_data() {
    use crate::ManagedInstancesFacts as Mi;
    let mi = &catalog().managed_instances;
    assert!(mi
        .accelerator_types
        .iter()
        .any(|t| t == Mi::GPU_ACCELERATOR_TYPE));
    assert!(mi
        .accelerator_manufacturers
        .iter()
        .any(|m| m == Mi::NVIDIA_MANUFACTURER));
    // The other values are there too, so that a set of them is read as known.
    assert_eq!(mi.accelerator_types, ["gpu", "fpga", "inference"]);
    assert!(mi.accelerator_manufacturers.iter().any(|m| m == "amd"));
}

#[test]
fn nvidia_accelerator_names_are_the_gpu_names_of_nvidia_types() {
    let cat = catalog();
    let names = &cat.managed_instances.nvidia_accelerator_names;
    for n in ["a10g", "t4", "l4", "h100"] {
        assert!(names.iter().any(|v| v == n), "{n} missing from {names:?}");
    }
    // An AMD GPU, an FPGA and an inference chip are accelerators EC2 names too.
    for n in ["radeon-pro-v520", "vu9p", "inferentia"] {
        assert!(!names.iter().any(|v| v == n), "{n} in {names:?}");
    }
}

#[test]
fn instance_type_patterns_match_as_attribute_based_selection_reads_them() {
    use crate::wildcard_match as m;
    assert!(m("g5.xlarge", "g5.xlarge"));
    assert!(!m("g5.xlarge", "g5.2xlarge"));
    assert!(m("g5.*", "g5.2xlarge"));
    assert!(!m("g5.*", "g5g.xlarge"));
    assert!(m("m6*.*", "m6i.large"));
    assert!(m("*3*", "p3.2xlarge"));
    assert!(m("r*", "r5.large"));
    assert!(m("*", ""));
    assert!(!m("", "a"));
    assert!(m("a*b*c", "aXbYbZc"));
    assert!(!m("a*b*c", "aXbYbZ"));
    // The EC2 names a family pattern matches: every one is of that family.
    let cat = catalog();
    let c6i: Vec<&str> = cat.ec2_instance_types_matching("c6i.*").collect();
    assert!(c6i.contains(&"c6i.xlarge"));
    assert!(c6i.iter().all(|n| n.starts_with("c6i.")));
    assert_eq!(cat.ec2_instance_types_matching("nosuch.*").count(), 0);
}

/// Every pattern over `a`, `b`, `*` and every name over `a`, `b`, up to 5 characters each, against
/// a plain recursive reading of the same definition.
#[test]
fn wildcard_match_agrees_with_the_recursive_definition() {
    fn reference(p: &[u8], n: &[u8]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some((b'*', rest)) => (0..=n.len()).any(|k| reference(rest, &n[k..])),
            Some((c, rest)) => n.first() == Some(c) && reference(rest, &n[1..]),
        }
    }
    fn all(alphabet: &[u8], max: usize) -> Vec<String> {
        let mut out = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..max {
            last = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |&c| format!("{s}{}", c as char)))
                .collect();
            out.extend(last.iter().cloned());
        }
        out
    }
    let names = all(b"ab", 5);
    let mut compared = 0;
    for p in all(b"ab*", 5) {
        for n in &names {
            assert_eq!(
                crate::wildcard_match(&p, n),
                reference(p.as_bytes(), n.as_bytes()),
                "{p:?} against {n:?}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 364 * 63);
}

#[test]
fn efa_support_is_known_only_for_the_types_the_source_lists() {
    let efa = &catalog().efa;
    assert_eq!(efa.supports("p5.48xlarge"), Some(true));
    assert_eq!(efa.supports("g5.12xlarge"), Some(true));
    assert_eq!(efa.supports("g5.xlarge"), Some(false));
    // Not in the generated table: unknown, never "no EFA".
    assert_eq!(efa.supports("p3.2xlarge"), None);
    assert_eq!(efa.supports("m5.large"), None);
    for t in efa.max_interfaces.keys().chain(&efa.without) {
        assert!(
            catalog().instance_types().iter().any(|k| &k.name == t),
            "{t} is not a catalog instance type"
        );
    }
}

fn driver(s: &str) -> DriverVersion {
    DriverVersion::parse(s).expect("a driver version")
}

fn cuda(s: &str) -> CudaVersion {
    CudaVersion::parse(s).expect("a CUDA version")
}

#[test]
fn versions_parse_and_order_by_number() {
    assert!(driver("580.95.05") > driver("580.9.99"));
    assert!(driver("570.26") < driver("570.124.06"));
    assert_eq!(driver("550.163.01").branch(), 550);
    for bad in ["", "580", "580.", "a.b", "580.95.05.1", "-1.2"] {
        assert!(DriverVersion::parse(bad).is_none(), "{bad:?}");
    }
    assert!(cuda("12.10") > cuda("12.9.1"));
    assert_eq!(cuda("13.0.0.044").to_string(), "13.0.0");
    assert_eq!(cuda("12.4.1").major_minor().to_string(), "12.4");
    for bad in ["12", "12.", "x.1", "12.4.1b"] {
        assert!(CudaVersion::parse(bad).is_none(), "{bad:?}");
    }
}

/// The table of AMI releases is what the derivation and the later release notes give: the
/// AL2023 GPU AMI went 570 -> 580 and stays on 580; the AL2 GPU AMIs stay on 550 / CUDA 12.4.1.
#[test]
fn ami_releases_give_each_variant_its_driver() {
    let d = &catalog().drivers;
    let al2023 = d.newest_release("al2023").unwrap();
    assert_eq!(
        (al2023.release.as_str(), al2023.driver.to_string().as_str()),
        ("20261113", "580.178.04")
    );
    assert_eq!(
        d.release("al2023", "20250909").unwrap().driver.branch(),
        570
    );
    assert_eq!(
        d.release("al2023", "20260813").unwrap().installs_exactly,
        Some(true)
    );
    assert_eq!(
        d.release("al2", "20260813").unwrap().installs_exactly,
        Some(false)
    );
    for variant in ["al2", "al2-kernel-5.10"] {
        let newest = d.newest_release(variant).unwrap();
        assert_eq!(newest.release, "20260924");
        assert_eq!(newest.driver.to_string(), "550.163.01");
        assert_eq!(newest.cuda.unwrap().to_string(), "12.4.1");
        assert!(!d.driver_moves(variant), "{variant}");
        assert!(d.releases(variant).all(|r| r.driver.branch() == 550));
    }
    assert!(d.driver_moves("al2023"));
    // A release the catalog has no driver for is unknown, never the nearest.
    assert!(d.release("al2023", "20250101").is_none());
    assert!(d.ami_release("al2023", Some("20261114")).is_none());
    assert_eq!(d.ami_release("al2023", None).unwrap().release, "20261113");
    assert_eq!(d.ami_variants["al2023"].pinned_major, Some(580));
    // The runtime checks the image's requirements in legacy mode only: AL2, and AL2023 before CDI.
    assert!(d.start_check_runs("al2", "20260924"));
    assert!(d.start_check_runs("al2023", "20260129"));
    assert!(!d.start_check_runs("al2023", "20260206"));
}

#[test]
fn families_say_which_drivers_drive_them() {
    let d = &catalog().drivers;
    // G7: 595 or later; every ECS GPU AMI driver is older.
    assert_eq!(d.family_supports("g7", &driver("580.178.04")), Support::No);
    assert_eq!(d.family_supports("g7", &driver("550.163.01")), Support::No);
    assert_eq!(d.family_supports("g7", &driver("595.71.05")), Support::Yes);
    // The 595 driver cannot run P3, P3dn and G6f; of the others the driver facts say nothing.
    for f in ["p3", "p3dn", "g6f"] {
        assert_eq!(
            d.family_supports(f, &driver("595.71.05")),
            Support::No,
            "{f}"
        );
        assert_eq!(
            d.family_supports(f, &driver("580.178.04")),
            Support::Unknown,
            "{f}"
        );
    }
    // K80: 470 or older.
    assert_eq!(d.family_supports("p2", &driver("470.182.03")), Support::Yes);
    assert_eq!(d.family_supports("p2", &driver("550.163.01")), Support::No);
    // Blackwell: known to work from the first driver listing the GPU; earlier ones are unknown.
    assert_eq!(
        d.family_supports("p6-b300", &driver("580.95.05")),
        Support::Yes
    );
    assert_eq!(
        d.family_supports("p6-b300", &driver("580.65.06")),
        Support::Unknown
    );
    assert_eq!(
        d.family_supports("p6-b300", &driver("570.133.20")),
        Support::Unknown
    );
    assert_eq!(d.family_supports("g7e", &driver("580.95.05")), Support::Yes);
    assert_eq!(
        d.family_supports("g7e", &driver("570.133.20")),
        Support::Unknown
    );
    assert_eq!(
        d.family_supports("p6-b200", &driver("595.71.05")),
        Support::Yes
    );
    // A family with no recorded needs is unknown.
    assert_eq!(
        d.family_supports("g5", &driver("580.95.05")),
        Support::Unknown
    );
    assert_eq!(
        d.family_needs("g7").unwrap().describe(),
        "needs NVIDIA driver 595 or later"
    );
}

#[test]
fn cuda_and_its_minimum_driver_follow_nvidias_table() {
    let d = &catalog().drivers;
    let min = |c: &str| d.min_driver_for_cuda(cuda(c)).map(ToString::to_string);
    assert_eq!(min("12.8").as_deref(), Some("570.26"));
    assert_eq!(min("12.8.0").as_deref(), Some("570.26"));
    assert_eq!(min("12.8.1").as_deref(), Some("570.124.06"));
    assert_eq!(min("13.0").as_deref(), Some("580.65.06"));
    assert_eq!(min("11.0").as_deref(), Some("450.51.05"));
    // Not in the table: unknown, not the nearest.
    assert_eq!(min("12.7"), None);
    assert_eq!(min("12.8.9"), None);
    let of = |v: &str| d.cuda_of_driver(&driver(v)).map(|c| c.to_string());
    assert_eq!(of("550.163.01").as_deref(), Some("12.4"));
    assert_eq!(of("570.133.20").as_deref(), Some("12.8"));
    assert_eq!(of("580.65.06").as_deref(), Some("13.0"));
    assert_eq!(of("580.178.04").as_deref(), Some("13.0"));
    assert_eq!(of("595.71.05").as_deref(), Some("13.2"));
    assert_eq!(of("440.33"), None);
    assert_eq!(d.minor_compat_branch(12), Some(525));
    assert_eq!(d.minor_compat_branch(13), Some(580));
}

#[test]
fn image_references_give_their_cuda_or_stay_unknown() {
    let d = &catalog().drivers;
    let c = |image: &str| d.image_cuda(image).known().map(|k| k.cuda.to_string());
    assert_eq!(
        c("nvidia/cuda:12.4.1-base-ubuntu22.04").as_deref(),
        Some("12.4.1")
    );
    assert_eq!(
        c("docker.io/nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04").as_deref(),
        Some("11.8.0")
    );
    assert_eq!(c("nvidia/cuda:11.0-runtime").as_deref(), Some("11.0"));
    assert_eq!(
        c("pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime").as_deref(),
        Some("12.8")
    );
    assert_eq!(
        c("nvcr.io/nvidia/tritonserver:23.11-py3").as_deref(),
        Some("12.3.0")
    );
    // Triton by its release notes, from an old release to a recent one.
    assert_eq!(
        c("nvcr.io/nvidia/tritonserver:20.03.1-py3").as_deref(),
        Some("10.2.89")
    );
    assert_eq!(
        c("nvcr.io/nvidia/tritonserver:22.04-py3").as_deref(),
        Some("11.6.2")
    );
    assert_eq!(
        c("nvcr.io/nvidia/tritonserver:26.02-py3").as_deref(),
        Some("13.1.1")
    );
    // The TensorRT-LLM image of a release is another image, with its own CUDA (TRITON-TRTLLM-MATRIX):
    // 24.05's release notes say CUDA 12.4, its TensorRT-LLM image has 12.3.2.
    assert_eq!(
        c("nvcr.io/nvidia/tritonserver:24.05").as_deref(),
        Some("12.4")
    );
    assert_eq!(
        c("nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3").as_deref(),
        Some("12.3.2")
    );
    // 25.10's notes say CUDA 13.0.2; its TensorRT-LLM image stays on 12.9.1.
    assert_eq!(
        c("nvcr.io/nvidia/tritonserver:25.10-py3").as_deref(),
        Some("13.0.2")
    );
    assert_eq!(
        c("nvcr.io/nvidia/tritonserver:25.10-trtllm-python-py3").as_deref(),
        Some("12.9.1")
    );
    assert_eq!(c("vllm/vllm-openai:v0.9.0").as_deref(), Some("12.8"));
    // NGC's PyTorch container by its YY.MM release, from its release notes.
    assert_eq!(
        c("nvcr.io/nvidia/pytorch:25.12-py3").as_deref(),
        Some("13.1.0")
    );
    assert_eq!(
        c("nvcr.io/nvidia/pytorch:19.05-py3").as_deref(),
        Some("10.1")
    );
    assert_eq!(
        c("nvcr.io/nvidia/pytorch:19.11-py3").as_deref(),
        Some("10.2.89")
    );
    use UnknownImage::*;
    let why = |image: &str| match d.image_cuda(image) {
        ImageCuda::Unknown(w) => Some(w),
        ImageCuda::Known(_) => None,
    };
    assert_eq!(why("nvidia/cuda"), Some(Floating));
    assert_eq!(why("nvidia/cuda:latest"), Some(Floating));
    assert_eq!(why("nvidia/cuda@sha256:0123abcd"), Some(Digest));
    // A tag with a digest: the tag says the CUDA.
    assert!(why("nvidia/cuda:12.4.1-base@sha256:0123abcd").is_none());
    assert_eq!(
        why("myregistry.example.com/nvidia/cuda:12.4.1-base"),
        Some(NotListed)
    );
    assert_eq!(
        why("123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:v0.9.0"),
        Some(NotListed)
    );
    // A devel PyTorch image may be built on another base: only runtime tags are read.
    assert_eq!(
        why("pytorch/pytorch:2.7.1-cuda12.8-cudnn9-devel"),
        Some(TagNotListed)
    );
    assert_eq!(why("pytorch/pytorch:2.4.0"), Some(TagNotListed));
    assert_eq!(why("vllm/vllm-openai:v0.10.2"), Some(TagNotListed));
    // A release whose notes were not read.
    assert_eq!(
        why("nvcr.io/nvidia/tritonserver:24.02-py3"),
        Some(TagNotListed)
    );
    assert_eq!(why("nvidia/cuda:base"), Some(TagNotListed));
    assert_eq!(why("nvcr.io/nvidia/pytorch:24.05-py3"), Some(TagNotListed));
    // Another image of a listed release: its CUDA is its own, not the release notes'.
    assert_eq!(
        why("nvcr.io/nvidia/tritonserver:23.11-vllm-python-py3"),
        Some(TagNotListed)
    );
    assert_eq!(
        why("nvcr.io/nvidia/tritonserver:25.03-trtllm-python-py3"),
        Some(TagNotListed)
    );
    assert_eq!(
        why("nvcr.io/nvidia/pytorch:25.12-py3-igpu"),
        Some(TagNotListed)
    );
}

#[test]
fn an_image_runs_natively_or_maybe_or_not_at_all() {
    let d = &catalog().drivers;
    let verdict = |image: &str, drv: &str| {
        let k = d.image_cuda(image).known().expect("known image");
        d.can_run(&k, &driver(drv))
    };
    let al2 = "550.163.01";
    let al2023 = "580.178.04";
    assert_eq!(
        verdict("nvidia/cuda:12.4.1-base-ubuntu22.04", al2),
        RunVerdict::Runs
    );
    assert_eq!(
        verdict("nvidia/cuda:12.9.0-runtime-ubuntu22.04", al2023),
        RunVerdict::Runs
    );
    // Same major, older driver: minor version compatibility may run it.
    assert_eq!(
        verdict("pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime", al2),
        RunVerdict::MayRunMinorCompat
    );
    // Another major: the CUDA images carry the compatibility package, the PyTorch wheels do not.
    assert_eq!(
        verdict("nvidia/cuda:13.0.0-base-ubuntu24.04", al2),
        RunVerdict::MayRunForwardCompat
    );
    assert_eq!(
        verdict("pytorch/pytorch:2.9.0-cuda13.0-cudnn9-runtime", al2),
        RunVerdict::Cannot(
            "minor version compatibility does not reach from CUDA 12 to CUDA 13, and the image carries no `cuda-compat-13-0` package for forward compatibility"
                .to_string()
        )
    );
    assert_eq!(
        verdict("pytorch/pytorch:2.9.0-cuda13.0-cudnn9-runtime", al2023),
        RunVerdict::Runs
    );
    // Whether NGC's PyTorch image carries the compatibility package is not recorded: across major
    // releases the answer is not known, within one it may run through minor version compatibility.
    assert_eq!(
        verdict("nvcr.io/nvidia/pytorch:25.12-py3", al2),
        RunVerdict::Unknown
    );
    assert_eq!(
        verdict("nvcr.io/nvidia/pytorch:25.12-py3", al2023),
        RunVerdict::MayRunMinorCompat
    );
    // A driver older than the table: unknown.
    assert_eq!(
        verdict("nvidia/cuda:12.4.1-base-ubuntu22.04", "440.33"),
        RunVerdict::Unknown
    );
}

/// The data center driver branches a release's notes list are what they say: 24.05 lists 470, 525,
/// 535 and 545; 26.10 lists none; the PyTorch 25.12 page none.
#[test]
fn ngc_release_rows_carry_the_data_center_branches_their_notes_list() {
    let d = &catalog().drivers;
    let branches = |image: &str| {
        let k = d.image_cuda(image).known().expect("known image");
        k.release
            .expect("a release row")
            .data_center_branches
            .clone()
    };
    assert_eq!(
        branches("nvcr.io/nvidia/tritonserver:24.05-py3"),
        [470, 525, 535, 545]
    );
    assert_eq!(
        branches("nvcr.io/nvidia/tritonserver:22.05-py3"),
        [450, 470, 510]
    );
    assert!(branches("nvcr.io/nvidia/tritonserver:26.10-py3").is_empty());
    assert!(branches("nvcr.io/nvidia/pytorch:25.12-py3").is_empty());
    assert_eq!(
        branches("nvcr.io/nvidia/pytorch:19.11-py3"),
        [384, 396, 410, 418]
    );
    // Every row read from a page names it.
    for e in d.images() {
        for r in &e.releases {
            if !r.data_center_branches.is_empty() {
                assert!(r.url.is_some(), "{} {}", e.repository, r.tag);
            }
        }
    }
}

/// A release whose notes list the driver's branch for data center GPUs may run on it through
/// forward compatibility (an info, never an error), even where the catalog does not record whether
/// the image carries the compatibility package; without that statement it stays unknown.
#[test]
fn a_listed_data_center_branch_is_a_forward_compatibility_path() {
    let d = &catalog().drivers;
    let al2 = driver("550.163.01");
    let known = d
        .image_cuda("nvcr.io/nvidia/pytorch:25.12-py3")
        .known()
        .expect("known image");
    assert_eq!(known.entry.compat_package, None);
    assert_eq!(d.can_run(&known, &al2), RunVerdict::Unknown);
    // The same release, had its page listed R550 for data center GPUs.
    let mut release = known.release.expect("a release row").clone();
    release.data_center_branches = vec![535, 550];
    let listed = KnownImage {
        release: Some(&release),
        ..known
    };
    assert_eq!(d.can_run(&listed, &al2), RunVerdict::MayRunForwardCompat);
    // A branch it does not list: as before.
    release.data_center_branches = vec![535];
    let other = KnownImage {
        release: Some(&release),
        ..known
    };
    assert_eq!(d.can_run(&other, &al2), RunVerdict::Unknown);
}

/// Messages name each GPU AMI variant by its operating system, never by the catalog's key.
#[test]
fn every_gpu_ami_variant_names_its_operating_system() {
    let names: Vec<(&str, &str)> = catalog()
        .ami
        .gpu_parameters
        .iter()
        .map(|p| (p.variant.as_str(), p.os()))
        .collect();
    for (variant, os) in &names {
        assert!(os.starts_with("Amazon Linux "), "{variant}: {os}");
    }
    assert!(names.contains(&("al2-kernel-5.10", "Amazon Linux 2 (kernel 5.10)")));
}
