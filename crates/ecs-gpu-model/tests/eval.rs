//! Evaluation of real configurations written to temporary folders.

mod common;

use common::*;
use ecs_gpu_model::{
    IgnoreChanges, InstanceKey, LoadOptions, Mode, TaskDefinitionOrigin, Texts, UnknownReason,
    Value,
};

#[test]
fn literals_and_operators() {
    assert_eq!(json(&eval("1 + 2 * 3")), "7");
    assert_eq!(json(&eval("\"a${1 + 1}b\"")), "\"a2b\"");
    assert_eq!(json(&eval("[1, \"a\", true, null]")), "[1,\"a\",true,null]");
    assert_eq!(json(&eval("{ b = 1, a = 2 }")), "{\"a\":2,\"b\":1}");
    assert_eq!(json(&eval("true ? 1 : 2")), "1");
    assert_eq!(json(&eval("!true || 2 >= 2")), "true");
    assert_eq!(json(&eval("\"5\" + 1")), "6");
    assert_eq!(json(&eval("1 == \"1\"")), "false");
    assert_eq!(json(&eval("-7 % 3")), "-1");
}

#[test]
fn locals_chain_in_any_order() {
    let n = eval_with(
        "locals {\n  c = \"${local.b}-c\"\n  b = \"${local.a}-b\"\n  a = \"a\"\n}",
        "local.c",
    );
    assert_eq!(str_of(&n), "a-b-c");
}

#[test]
fn a_self_referencing_local_is_an_error_not_a_crash() {
    let n = eval_with(
        "locals {\n  a = local.b\n  b = \"${local.a}x\"\n}",
        "local.a",
    );
    assert_eq!(reason(&n), UnknownReason::Error);
    let n = eval_with("locals {\n  a = [local.a]\n}", "local.a");
    assert!(n.to_json_text().is_none());
}

#[test]
fn long_local_chains_evaluate() {
    let mut extra = String::from("locals {\n  l0 = 1\n");
    for i in 1..400 {
        extra.push_str(&format!("  l{i} = local.l{} + 1\n", i - 1));
    }
    extra.push_str("}\n");
    assert_eq!(json(&eval_with(&extra, "local.l399")), "400");
}

#[test]
fn tfvars_precedence_every_level() {
    let vars = "variable \"a\" { default = \"default\" }\nvariable \"b\" { default = \"default\" }\nvariable \"c\" { default = \"default\" }\nvariable \"d\" { default = \"default\" }\nvariable \"e\" { default = \"default\" }\nvariable \"f\" { default = \"default\" }\nvariable \"g\" { default = \"default\" }\n";
    let main = "resource \"t\" \"t\" {\n  a = var.a\n  b = var.b\n  c = var.c\n  d = var.d\n  e = var.e\n  f = var.f\n  g = var.g\n}\n";
    let dir = write(&[
        ("variables.tf", vars),
        ("main.tf", main),
        ("terraform.tfvars", "b = \"tfvars\"\nc = \"tfvars\"\nd = \"tfvars\"\ne = \"tfvars\"\nf = \"tfvars\"\ng = \"tfvars\"\n"),
        ("terraform.tfvars.json", "{\"c\": \"tfvars.json\", \"d\": \"tfvars.json\", \"e\": \"tfvars.json\", \"f\": \"tfvars.json\", \"g\": \"tfvars.json\"}"),
        ("a.auto.tfvars", "d = \"a.auto\"\ne = \"a.auto\"\nf = \"a.auto\"\ng = \"a.auto\"\n"),
        ("b.auto.tfvars.json", "{\"e\": \"b.auto.json\", \"f\": \"b.auto.json\", \"g\": \"b.auto.json\"}"),
        ("extra/x.tfvars", "f = \"var-file\"\ng = \"var-file\"\n"),
    ]);
    let model = ecs_gpu_model::load(&LoadOptions {
        paths: vec![dir.path().to_path_buf()],
        var_files: vec![dir.path().join("extra/x.tfvars")],
        vars: vec![("g".into(), "cli".into())],
        ..Default::default()
    });
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    let r = find(&model, "t", "t");
    let got: Vec<String> = ["a", "b", "c", "d", "e", "f", "g"]
        .iter()
        .map(|k| str_of(r.body.attr(k).expect(k)))
        .collect();
    assert_eq!(
        got,
        [
            "default",
            "tfvars",
            "tfvars.json",
            "a.auto",
            "b.auto.json",
            "var-file",
            "cli"
        ]
    );
}

#[test]
fn variable_types_convert_and_missing_values_are_unknown() {
    let dir = write(&[
        (
            "main.tf",
            "variable \"n\" { type = number }\nvariable \"s\" {\n  type = string\n  default = 5\n}\nvariable \"none\" {}\nvariable \"o\" {\n  type = object({ a = string, b = optional(number, 7) })\n  default = { a = \"x\" }\n}\nvariable \"l\" { type = list(number) }\nresource \"t\" \"t\" {\n  n = var.n\n  s = var.s\n  none = var.none\n  o = var.o\n  l = var.l\n}\n",
        ),
    ]);
    let model = ecs_gpu_model::load(&LoadOptions {
        paths: vec![dir.path().to_path_buf()],
        vars: vec![("n".into(), "42".into()), ("l".into(), "[\"1\", 2]".into())],
        ..Default::default()
    });
    let r = find(&model, "t", "t");
    assert_eq!(json(r.body.attr("n").unwrap()), "42");
    assert_eq!(json(r.body.attr("s").unwrap()), "\"5\"");
    assert_eq!(reason(r.body.attr("none").unwrap()), UnknownReason::NoValue);
    assert_eq!(json(r.body.attr("o").unwrap()), "{\"a\":\"x\",\"b\":7}");
    assert_eq!(json(r.body.attr("l").unwrap()), "[1,2]");
}

#[test]
fn templatefile_with_directives() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "resource \"t\" \"t\" {\n  x = templatefile(\"${path.module}/user-data.sh.tpl\", { cluster = \"gpu\", gpu = true, extra = [\"A=1\", \"B=2\"] })\n  y = templatefile(\"user-data.sh.tpl\", { cluster = aws_ecs_cluster.c.arn, gpu = true, extra = [] })\n}\nresource \"aws_ecs_cluster\" \"c\" { name = \"gpu\" }\n",
        ),
        (
            "user-data.sh.tpl",
            "#!/bin/bash\necho ECS_CLUSTER=${cluster} >> /etc/ecs/ecs.config\n%{ if gpu ~}\necho ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config\n%{ endif ~}\n%{ for e in extra ~}\necho ${e}\n%{ endfor ~}\n",
        ),
    ]);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    let r = find(&m, "t", "t");
    assert_eq!(
        str_of(r.body.attr("x").unwrap()),
        "#!/bin/bash\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\necho ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config\necho A=1\necho B=2\n"
    );
    let y = r.body.attr("y").unwrap();
    assert_eq!(reason(y), UnknownReason::AfterApply);
    assert!(fragments(y)
        .iter()
        .any(|f| f.contains("ECS_ENABLE_GPU_SUPPORT=true")));
    assert_eq!(y.refs()[0].address, "aws_ecs_cluster.c");
    // The template is a loaded file, so locations inside it point there.
    assert!(m.files.iter().any(|f| f.path.ends_with("user-data.sh.tpl")));
}

#[test]
fn file_outside_the_checked_tree_is_refused() {
    let outer = write(&[
        ("secret.txt", "top secret"),
        ("inner/main.tf", "resource \"t\" \"t\" {\n  x = file(\"../secret.txt\")\n  y = file(\"${path.module}/ok.txt\")\n  z = try(file(\"../secret.txt\"), \"fallback\")\n}\n"),
        ("inner/ok.txt", "fine"),
    ]);
    let m = load_dir(&outer.path().join("inner"));
    let r = find(&m, "t", "t");
    assert_eq!(
        reason(r.body.attr("x").unwrap()),
        UnknownReason::Unsupported
    );
    // Terraform would read the file: `try` must not pretend it failed.
    assert!(r.body.attr("z").unwrap().is_unknown());
    assert_eq!(str_of(r.body.attr("y").unwrap()), "fine");
    assert!(m.notes.iter().any(|n| n.message.contains("outside")));
}

#[test]
fn module_calls_with_inputs_and_outputs() {
    let (_d, m) = load(&[
        (
            "root/main.tf",
            "module \"gpu\" {\n  source = \"../modules/gpu\"\n  gpus = 2\n  name = \"inference\"\n}\nresource \"t\" \"t\" {\n  x = module.gpu.family\n  y = module.gpu.arn\n}\nmodule \"vpc\" {\n  source = \"terraform-aws-modules/vpc/aws\"\n}\nresource \"t\" \"v\" { x = module.vpc.vpc_id }\n",
        ),
        (
            "modules/gpu/main.tf",
            "variable \"gpus\" { type = number }\nvariable \"name\" {}\nvariable \"memory\" { default = 1024 }\nresource \"aws_ecs_task_definition\" \"td\" {\n  family = \"${var.name}-td\"\n  memory = var.memory\n  container_definitions = jsonencode([{ name = var.name, resourceRequirements = [{ type = \"GPU\", value = tostring(var.gpus) }] }])\n}\noutput \"family\" { value = aws_ecs_task_definition.td.revision }\noutput \"arn\" { value = aws_ecs_task_definition.td.arn }\n",
        ),
    ]);
    let call_td = m
        .resources
        .iter()
        .find(|r| r.kind == "aws_ecs_task_definition" && m.module_address(r) == Some("module.gpu"))
        .expect("module instance resource");
    assert_eq!(str_of(call_td.body.attr("family").unwrap()), "inference-td");
    assert_eq!(json(call_td.body.attr("memory").unwrap()), "1024");
    // The module folder is also loaded on its own, with its defaults (gpus has none).
    let own = m
        .resources
        .iter()
        .find(|r| r.kind == "aws_ecs_task_definition" && m.module_address(r).is_none())
        .expect("root instance");
    assert_eq!(
        reason(own.body.attr("family").unwrap()),
        UnknownReason::NoValue
    );
    let t = find(&m, "t", "t");
    let x = t.body.attr("x").unwrap();
    assert_eq!(x.refs()[0].address, "aws_ecs_task_definition.td");
    // The reference resolves in the module instance.
    let tds = m.referenced(t.body.attr("y").unwrap(), "aws_ecs_task_definition");
    assert_eq!(tds.len(), 1);
    assert_eq!(m.module_address(tds[0]), Some("module.gpu"));
    let v = find(&m, "t", "v");
    assert_eq!(
        reason(v.body.attr("x").unwrap()),
        UnknownReason::RemoteModule
    );
    let notes: Vec<_> = m
        .notes
        .iter()
        .filter(|n| n.kind == ecs_gpu_model::LoadNoteKind::RemoteModules)
        .collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(
        notes[0].message,
        "`module.vpc` (`terraform-aws-modules/vpc/aws`)"
    );
    let td = m
        .task_definitions
        .iter()
        .find(|td| matches!(td.origin, TaskDefinitionOrigin::Resource(id) if id == call_td.id))
        .unwrap();
    let c = td.containers().unwrap();
    assert_eq!(
        json(c),
        "[{\"name\":\"inference\",\"resourceRequirements\":[{\"type\":\"GPU\",\"value\":\"2\"}]}]"
    );
}

#[test]
fn module_outputs_feed_the_parent() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "module \"cfg\" {\n  source = \"./cfg\"\n  n = 3\n}\nresource \"t\" \"t\" { x = module.cfg.doubled }\n",
        ),
        ("cfg/main.tf", "variable \"n\" {}\nlocals { d = var.n * 2 }\noutput \"doubled\" { value = local.d }\n"),
    ]);
    assert_eq!(
        json(root_resource(&m, "t", "t").body.attr("x").unwrap()),
        "6"
    );
}

#[test]
fn module_count_and_for_each_and_self_calls() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "module \"m\" {\n  source = \"./m\"\n  for_each = { a = 1, b = 2 }\n  v = each.value\n}\nmodule \"c\" {\n  source = \"./m\"\n  count = 2\n  v = count.index\n}\nresource \"t\" \"t\" {\n  x = module.m[\"b\"].out\n  y = module.c[1].out\n}\n",
        ),
        (
            "m/main.tf",
            "variable \"v\" { default = 0 }\nresource \"t\" \"in\" { v = var.v }\noutput \"out\" { value = var.v + 10 }\nmodule \"again\" {\n  source = \"./\"\n}\n",
        ),
    ]);
    let t = root_resource(&m, "t", "t");
    assert_eq!(json(t.body.attr("x").unwrap()), "12");
    assert_eq!(json(t.body.attr("y").unwrap()), "11");
    let addrs: Vec<_> = m.modules.iter().filter_map(|x| x.address.clone()).collect();
    assert!(addrs.contains(&"module.m[\"a\"]".to_string()), "{addrs:?}");
    assert!(addrs.contains(&"module.c[1]".to_string()), "{addrs:?}");
    assert!(
        m.notes
            .iter()
            .any(|n| n.message.contains("module.m[\"a\"].module.again")
                || n.message.contains("again"))
    );
}

#[test]
fn count_zero_two_and_unknown() {
    let (_d, m) = load(&[(
        "main.tf",
        "variable \"n\" {}\nresource \"t\" \"zero\" { count = 0 }\nresource \"t\" \"two\" {\n  count = 2\n  i = count.index\n}\nresource \"t\" \"unk\" {\n  count = var.n\n  i = count.index\n}\n",
    )]);
    assert!(!m.resources.iter().any(|r| r.name == "zero"));
    let two: Vec<_> = m.resources.iter().filter(|r| r.name == "two").collect();
    assert_eq!(two.len(), 2);
    assert_eq!(two[1].key, Some(InstanceKey::Index(1)));
    assert_eq!(json(two[1].body.attr("i").unwrap()), "1");
    let unk: Vec<_> = m.resources.iter().filter(|r| r.name == "unk").collect();
    assert_eq!(unk.len(), 1);
    assert!(unk[0].instances_unknown);
    assert!(unk[0].body.attr("i").unwrap().is_unknown());
}

#[test]
fn for_each_over_map_and_set() {
    let (_d, m) = load(&[(
        "main.tf",
        "resource \"t\" \"m\" {\n  for_each = { b = \"g6.xlarge\", a = \"g5.xlarge\" }\n  k = each.key\n  v = each.value\n}\nresource \"t\" \"s\" {\n  for_each = toset([\"y\", \"x\", \"y\"])\n  k = each.key\n}\n",
    )]);
    let ms: Vec<_> = m.resources.iter().filter(|r| r.name == "m").collect();
    assert_eq!(ms.len(), 2);
    assert_eq!(ms[0].key, Some(InstanceKey::Key("a".into())));
    assert_eq!(str_of(ms[0].body.attr("v").unwrap()), "g5.xlarge");
    let ss: Vec<_> = m.resources.iter().filter(|r| r.name == "s").collect();
    assert_eq!(ss.len(), 2);
    assert_eq!(str_of(ss[1].body.attr("k").unwrap()), "y");
}

#[test]
fn dynamic_blocks_known_and_unknown() {
    let (_d, m) = load(&[(
        "main.tf",
        "variable \"tags\" {}\nresource \"aws_autoscaling_group\" \"g\" {\n  dynamic \"tag\" {\n    for_each = { AmazonECSManaged = \"true\", Name = \"gpu\" }\n    content {\n      key = tag.key\n      value = tag.value\n    }\n  }\n  dynamic \"tag\" {\n    for_each = var.tags\n    iterator = t\n    content {\n      key = t.key\n    }\n  }\n}\n",
    )]);
    let g = find(&m, "aws_autoscaling_group", "g");
    let tags: Vec<_> = g.body.blocks("tag").collect();
    assert_eq!(tags.len(), 2);
    assert_eq!(
        str_of(tags[0].body.attr("key").unwrap()),
        "AmazonECSManaged"
    );
    assert!(g.body.may_have_unknown("tag"));
    let (_d, m) = load(&[(
        "main.tf",
        "resource \"t\" \"s\" {\n  dynamic \"a\" {\n    for_each = toset([\"x\"])\n    content { k = a.key }\n  }\n  dynamic \"b\" {\n    for_each = [\"x\"]\n    content { k = b.key }\n  }\n}\n",
    )]);
    let s = find(&m, "t", "s");
    assert_eq!(
        json(s.body.block("a").unwrap().body.attr("k").unwrap()),
        "\"x\""
    );
    assert_eq!(
        json(s.body.block("b").unwrap().body.attr("k").unwrap()),
        "0"
    );
}

#[test]
fn unknowns_carry_references_and_service_finds_its_task_definition() {
    let (_d, m) = load(&[(
        "main.tf",
        "resource \"aws_ecs_task_definition\" \"app\" {\n  family = \"app\"\n  container_definitions = \"[]\"\n}\nresource \"aws_ecs_service\" \"s\" {\n  task_definition = aws_ecs_task_definition.app.arn\n  desired_count = length(aws_ecs_task_definition.app.arn) > 0 ? 1 : 2\n  name = upper(\"x-${aws_ecs_task_definition.app.revision}\")\n}\n",
    )]);
    let s = find(&m, "aws_ecs_service", "s");
    let td = s.body.attr("task_definition").unwrap();
    assert_eq!(reason(td), UnknownReason::AfterApply);
    assert_eq!(td.refs()[0].attribute, vec!["arn".to_string()]);
    let found = m.referenced(td, "aws_ecs_task_definition");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].name, "app");
    let dc = s.body.attr("desired_count").unwrap();
    assert_eq!(dc.refs()[0].attribute, vec!["arn".to_string()]);
    let name = s.body.attr("name").unwrap();
    assert_eq!(name.refs()[0].attribute, vec!["revision".to_string()]);
}

#[test]
fn data_source_arguments_are_known_and_results_are_not() {
    let (_d, m) = load(&[(
        "main.tf",
        "data \"aws_ssm_parameter\" \"ami\" {\n  name = \"/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id\"\n}\nresource \"t\" \"t\" {\n  name = data.aws_ssm_parameter.ami.name\n  image = data.aws_ssm_parameter.ami.value\n}\n",
    )]);
    let t = find(&m, "t", "t");
    assert_eq!(
        str_of(t.body.attr("name").unwrap()),
        "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
    );
    let image = t.body.attr("image").unwrap();
    assert_eq!(reason(image), UnknownReason::DataSource);
    let d = m.resolve(&image.refs()[0]);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].mode, Mode::Data);
}

#[test]
fn duplicate_keys_keep_the_last_and_record_the_discarded() {
    let (_d, m) = load(&[(
        "main.tf",
        "resource \"aws_ecs_task_definition\" \"t\" {\n  family = \"f\"\n  container_definitions = jsonencode([{\n    name = \"app\"\n    environment = []\n    environment = [{ name = \"NVIDIA_DRIVER_CAPABILITIES\", value = \"all\" }]\n  }])\n}\n",
    )]);
    let td = &m.task_definitions[0];
    let c = td.containers().unwrap();
    let obj = c.as_list().unwrap()[0].as_object().unwrap();
    assert_eq!(obj.discarded.len(), 1);
    assert_eq!(obj.discarded[0].key, "environment");
    let loc = obj.discarded[0].key_loc.unwrap();
    let file = m.file(loc.file);
    assert_eq!(file.line_col(loc.span.start), (5, 5));
    assert_eq!(obj.get("environment").unwrap().as_list().unwrap().len(), 1);
    assert_eq!(
        json(c),
        "[{\"environment\":[{\"name\":\"NVIDIA_DRIVER_CAPABILITIES\",\"value\":\"all\"}],\"name\":\"app\"}]"
    );
}

#[test]
fn multi_line_for_values() {
    let n = eval("{ for k in [\"a\"] : k =>\n    true &&\n    false\n  }");
    assert_eq!(json(&n), "{\"a\":false}");
    let n = eval("{ for k in [\"a\"] : k =>\n    true\n    ? 1\n    : 2\n  }");
    assert_eq!(json(&n), "{\"a\":1}");
}

#[test]
fn json_task_definition_files_of_both_shapes() {
    let (_d, m) = load(&[
        (
            "register.json",
            "{\n  \"family\": \"a\",\n  \"containerDefinitions\": [{\"name\": \"x\", \"resourceRequirements\": [{\"type\": \"GPU\", \"value\": 1}]}],\n  \"requiresCompatibilities\": [\"EC2\"]\n}\n",
        ),
        (
            "describe.json",
            "{\"taskDefinition\": {\"family\": \"b\", \"containerDefinitions\": [{\"name\": \"y\", \"image\": \"${image}\"}], \"runtimePlatform\": {\"operatingSystemFamily\": \"WINDOWS_SERVER_2019_FULL\"}}}",
        ),
        ("package.json", "{\"name\": \"not a task definition\"}"),
        ("broken.json", "{ not json"),
    ]);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert_eq!(m.task_definitions.len(), 2);
    let a = m
        .task_definitions
        .iter()
        .find(|t| t.family.as_ref().and_then(|f| f.as_str()).as_deref() == Some("a"))
        .unwrap();
    let c = a.containers().unwrap();
    let v = c.as_list().unwrap()[0]
        .get("resourceRequirements")
        .unwrap()
        .as_list()
        .unwrap()[0]
        .get("value")
        .unwrap();
    assert_eq!(v.as_f64(), Some(1.0));
    let loc = v.loc.unwrap();
    assert_eq!(m.file(loc.file).line_col(loc.span.start).0, 3);
    let b = m
        .task_definitions
        .iter()
        .find(|t| t.family.as_ref().and_then(|f| f.as_str()).as_deref() == Some("b"))
        .unwrap();
    assert_eq!(
        b.operating_system_family
            .as_ref()
            .and_then(|o| o.as_str())
            .as_deref(),
        Some("WINDOWS_SERVER_2019_FULL")
    );
    // A `${...}` placeholder is not a literal value.
    let image = b.containers().unwrap().as_list().unwrap()[0]
        .get("image")
        .unwrap();
    assert!(image.is_unknown());
}

#[test]
fn terraform_json_syntax() {
    let (_d, m) = load(&[(
        "main.tf.json",
        r#"{
  "variable": {"gpus": {"default": 2, "type": "number"}},
  "locals": {"name": "gpu-${var.gpus}"},
  "resource": {
    "aws_launch_template": {"lt": {
      "name": "${local.name}",
      "metadata_options": {"http_tokens": "optional"},
      "tags": {"a": "b"}
    }},
    "aws_autoscaling_group": {"g": {
      "count": "${var.gpus}",
      "tag": [{"key": "AmazonECSManaged", "value": "true"}, {"key": "Name", "value": "x"}],
      "lifecycle": {"ignore_changes": ["desired_capacity", "tag"]}
    }}
  }
}"#,
    )]);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    let lt = find(&m, "aws_launch_template", "lt");
    assert_eq!(str_of(lt.body.attr("name").unwrap()), "gpu-2");
    assert_eq!(
        str_of(
            lt.body
                .block("metadata_options")
                .unwrap()
                .body
                .attr("http_tokens")
                .unwrap()
        ),
        "optional"
    );
    assert!(lt.body.attr("tags").unwrap().as_object().is_some());
    let gs: Vec<_> = m.resources.iter().filter(|r| r.name == "g").collect();
    assert_eq!(gs.len(), 2);
    assert_eq!(gs[0].body.blocks("tag").count(), 2);
    assert!(gs[0].ignore_changes.ignores("desired_capacity"));
}

#[test]
fn ignore_changes_as_written() {
    let (_d, m) = load(&[(
        "main.tf",
        "resource \"aws_ecs_service\" \"a\" {\n  lifecycle {\n    ignore_changes = [desired_count, tags[\"AmazonECSManaged\"], capacity_provider_strategy[0].weight]\n  }\n}\nresource \"aws_ecs_service\" \"b\" {\n  lifecycle {\n    ignore_changes = all\n  }\n}\n",
    )]);
    let a = find(&m, "aws_ecs_service", "a");
    assert_eq!(
        a.ignore_changes,
        IgnoreChanges::Attributes(vec![
            "desired_count".into(),
            "tags[\"AmazonECSManaged\"]".into(),
            "capacity_provider_strategy[0].weight".into()
        ])
    );
    assert!(a.ignore_changes.ignores("tags"));
    assert_eq!(
        find(&m, "aws_ecs_service", "b").ignore_changes,
        IgnoreChanges::All
    );
}

#[test]
fn one_bad_file_does_not_stop_the_others() {
    let dir = write(&[
        ("good.tf", "resource \"t\" \"t\" { x = 1 }\n"),
        ("bad.tf", "resource \"t\" \"u\" {\n  x = \n}\n"),
    ]);
    std::fs::write(dir.path().join("binary.tf"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let m = load_dir(dir.path());
    assert_eq!(m.problems.len(), 2, "{:?}", m.problems);
    assert!(m
        .problems
        .iter()
        .any(|p| p.path.ends_with("bad.tf") && p.line == Some(2)));
    assert!(m.problems.iter().any(|p| p.path.ends_with("binary.tf")
        && p.message.contains("UTF-8")
        && p.line == Some(1)));
    assert!(m.resources.iter().any(|r| r.name == "t"));
}

#[cfg(unix)]
#[test]
fn symlink_loops_do_not_hang() {
    let dir = write(&[("a/main.tf", "resource \"t\" \"t\" { x = 1 }\n")]);
    std::os::unix::fs::symlink(dir.path(), dir.path().join("a/loop")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("a/self"), dir.path().join("a/self")).ok();
    let m = load_dir(dir.path());
    assert_eq!(m.resources.iter().filter(|r| r.name == "t").count(), 1);
}

#[test]
fn gitignored_and_terraform_folders_are_skipped() {
    let (_d, m) = load(&[
        (".gitignore", "ignored/\n"),
        ("ignored/main.tf", "resource \"t\" \"ignored\" {}\n"),
        (
            ".terraform/modules/x/main.tf",
            "resource \"t\" \"cache\" {}\n",
        ),
        ("main.tf", "resource \"t\" \"kept\" {}\n"),
    ]);
    let names: Vec<_> = m.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["kept"]);
}

#[test]
fn jsonencode_text_matches_terraform() {
    assert_eq!(
        str_of(&eval(
            "jsonencode({ b = \"<&>\", a = [1.5, 100, -0.25], c = { z = null, y = true } })"
        )),
        r#"{"a":[1.5,100,-0.25],"b":"\u003c\u0026\u003e","c":{"y":true,"z":null}}"#
    );
    let n = eval_with(
        "resource \"aws_ecr_repository\" \"r\" {}",
        "jsonencode([{ image = aws_ecr_repository.r.repository_url, gpu = \"1\" }])",
    );
    assert!(matches!(n.value, Value::Json(_)));
    assert!(n.as_str().is_none());
    assert_eq!(
        n.json().unwrap().as_list().unwrap()[0]
            .get("gpu")
            .unwrap()
            .as_str()
            .unwrap(),
        "1"
    );
}

#[test]
fn heredoc_json_is_read_through_node_json() {
    let (_d, m) = load(&[(
        "main.tf",
        "resource \"aws_ecs_task_definition\" \"t\" {\n  family = \"f\"\n  container_definitions = <<EOF\n[{\"name\": \"a\", \"resourceRequirements\": [{\"type\": \"GPU\", \"value\": \"1\"}]}]\nEOF\n}\n",
    )]);
    let c = m.task_definitions[0].containers().unwrap();
    assert_eq!(
        c.as_list().unwrap()[0]
            .get("name")
            .unwrap()
            .as_str()
            .unwrap(),
        "a"
    );
    assert!(c.loc.is_some());
}

#[test]
fn partially_known_user_data_keeps_fragments_through_base64() {
    let n = eval_with(
        "resource \"aws_ecs_cluster\" \"c\" {}",
        "base64encode(\"#!/bin/bash\\necho ECS_CLUSTER=${aws_ecs_cluster.c.name} >> /etc/ecs/ecs.config\\n\")",
    );
    let f = fragments(&n);
    assert!(f.iter().any(|x| x.contains("ECS_CLUSTER=")), "{f:?}");
    let n = eval("base64gzip(\"ECS_ENABLE_GPU_SUPPORT=true\")");
    assert_eq!(
        fragments(&n),
        vec!["ECS_ENABLE_GPU_SUPPORT=true".to_string()]
    );
    let n = eval_with(
        "resource \"aws_x\" \"y\" {}",
        "join(\"\\n\", [\"A=1\", aws_x.y.z, \"B=2\"])",
    );
    assert_eq!(
        fragments(&n),
        vec!["A=1\n".to_string(), "\nB=2".to_string()]
    );
}

#[test]
fn unknown_conditions_carry_both_branches_refs() {
    let n = eval_with(
        "resource \"aws_x\" \"a\" {}\nresource \"aws_y\" \"c\" {}\nresource \"aws_z\" \"e\" {}",
        "aws_x.a.b ? aws_y.c.d : aws_z.e.f",
    );
    let addrs: Vec<_> = n.refs().iter().map(|r| r.address.clone()).collect();
    assert_eq!(addrs, ["aws_x.a", "aws_y.c", "aws_z.e"]);
}

#[test]
fn missing_keys_and_unsupported_functions_are_unknown() {
    assert_eq!(reason(&eval("{ a = 1 }.b")), UnknownReason::Error);
    assert_eq!(reason(&eval("[1][5]")), UnknownReason::Error);
    let n = eval_with("resource \"aws_x\" \"y\" {}", "sha256(aws_x.y.z)");
    assert_eq!(n.refs()[0].address, "aws_x.y");
    assert_eq!(reason(&eval("uuid()")), UnknownReason::Unsupported);
    assert_eq!(
        json(&eval("try({ a = 1 }.b, \"fallback\")")),
        "\"fallback\""
    );
    assert_eq!(json(&eval("can({ a = 1 }.b)")), "false");
    assert_eq!(
        reason(&eval_with(
            "resource \"aws_x\" \"y\" {}",
            "try(aws_x.y.z, \"f\")"
        )),
        UnknownReason::AfterApply
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_file_belongs_to_the_folder_of_the_link() {
    let dir = write(&[
        ("shared/providers.tf", "locals { region = \"eu-west-1\" }\n"),
        (
            "prod/main.tf",
            "resource \"t\" \"prod\" { r = local.region }\n",
        ),
        (
            "stage/main.tf",
            "resource \"t\" \"stage\" { r = local.region }\n",
        ),
    ]);
    for env in ["prod", "stage"] {
        std::os::unix::fs::symlink(
            dir.path().join("shared/providers.tf"),
            dir.path().join(env).join("providers.tf"),
        )
        .unwrap();
    }
    let m = load_dir(dir.path());
    for name in ["prod", "stage"] {
        assert_eq!(
            str_of(find(&m, "t", name).body.attr("r").unwrap()),
            "eu-west-1"
        );
    }
}

#[test]
fn override_files_merge_into_their_blocks() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "resource \"aws_launch_template\" \"lt\" {\n  instance_type = \"m5.large\"\n  metadata_options {\n    http_tokens = \"optional\"\n  }\n  lifecycle {\n    create_before_destroy = true\n  }\n}\nlocals { x = 1 }\n",
        ),
        (
            "override.tf",
            "resource \"aws_launch_template\" \"lt\" {\n  instance_type = \"g6.xlarge\"\n  metadata_options {\n    http_tokens = \"required\"\n  }\n  lifecycle {\n    ignore_changes = all\n  }\n}\nlocals { x = 2 }\nresource \"t\" \"t\" { x = local.x }\n",
        ),
    ]);
    let lts: Vec<_> = m.resources_of("aws_launch_template").collect();
    assert_eq!(lts.len(), 1);
    let lt = lts[0];
    assert_eq!(str_of(lt.body.attr("instance_type").unwrap()), "g6.xlarge");
    let md: Vec<_> = lt.body.blocks("metadata_options").collect();
    assert_eq!(md.len(), 1);
    assert_eq!(str_of(md[0].body.attr("http_tokens").unwrap()), "required");
    assert_eq!(lt.ignore_changes, IgnoreChanges::All);
    assert!(lt
        .body
        .block("lifecycle")
        .unwrap()
        .body
        .attr("create_before_destroy")
        .is_some());
    assert_eq!(json(find(&m, "t", "t").body.attr("x").unwrap()), "2");
}

#[test]
fn template_file_and_cloudinit_data_sources() {
    let (_d, m) = load(&[(
        "main.tf",
        "data \"template_file\" \"ud\" {\n  template = \"ECS_CLUSTER=$${cluster}\\nECS_ENABLE_GPU_SUPPORT=$${gpu}\"\n  vars = { cluster = \"gpu\", gpu = true }\n}\ndata \"cloudinit_config\" \"ci\" {\n  gzip = true\n  part {\n    content = \"ECS_ENABLE_GPU_SUPPORT=false\"\n  }\n}\nresource \"t\" \"t\" {\n  a = data.template_file.ud.rendered\n  b = data.cloudinit_config.ci.rendered\n}\n",
    )]);
    let t = find(&m, "t", "t");
    assert_eq!(
        str_of(t.body.attr("a").unwrap()),
        "ECS_CLUSTER=gpu\nECS_ENABLE_GPU_SUPPORT=true"
    );
    let b = t.body.attr("b").unwrap();
    assert_eq!(reason(b), UnknownReason::DataSource);
    assert_eq!(
        fragments(b),
        vec!["ECS_ENABLE_GPU_SUPPORT=false".to_string()]
    );
}

#[test]
fn errors_propagate_as_in_terraform_but_jsonencode_keeps_its_structure() {
    // Terraform fails the whole expression: `try` takes its fallback.
    assert_eq!(json(&eval("try(length({ a = tonumber(\"x\") }), 0)")), "0");
    assert_eq!(
        json(&eval("try(true || tonumber(\"x\") > 1, false)")),
        "false"
    );
    // A reference to a resource that is not declared is an error, not a known value.
    assert_eq!(
        reason(&eval("upper(aws_nope.x.name)")),
        UnknownReason::Error
    );
    // The rules still read the rest of a container definition.
    let n = eval("jsonencode([{ name = \"app\", image = lookup({}, \"missing\") }])");
    assert_eq!(
        n.json().unwrap().as_list().unwrap()[0]
            .get("name")
            .unwrap()
            .as_str()
            .unwrap(),
        "app"
    );
}

#[test]
fn the_selected_workspace_is_read_as_terraform_does() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "resource \"t\" \"t\" { w = terraform.workspace }\n",
        ),
        (".terraform/environment", "prod\n"),
    ]);
    assert_eq!(str_of(find(&m, "t", "t").body.attr("w").unwrap()), "prod");
}

/// The text a location points at.
fn at(m: &ecs_gpu_model::Model, loc: ecs_gpu_model::Loc) -> String {
    let f = m.file(loc.file);
    let text = f.text.as_deref().expect("texts are kept by default");
    text[loc.span.start as usize..loc.span.end as usize].to_string()
}

#[test]
fn locations_point_at_what_was_written() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "module \"gpu\" {\n  source = \"./gpu\"\n  gpus   = \"2\"\n}\nlocals {\n  env = [{ name = \"NVIDIA_DRIVER_CAPABILITIES\", value = \"all\" }]\n}\nresource \"aws_ecs_task_definition\" \"t\" {\n  family = \"f\"\n  container_definitions = jsonencode([{\n    name        = \"app\"\n    environment = local.env\n    resourceRequirements = [{ type = \"GPU\", value = \"1\" }]\n  }])\n  user_data = templatefile(\"${path.module}/ud.tpl\", { c = \"x\" })\n}\n",
        ),
        ("ud.tpl", "ECS_CLUSTER=${c}\n"),
        (
            "gpu/main.tf",
            "variable \"gpus\" {}\nresource \"t\" \"g\" { v = var.gpus }\n",
        ),
    ]);
    let td = &m.task_definitions[0];
    let c = &td.containers().unwrap().as_list().unwrap()[0];
    let o = c.as_object().unwrap();
    let rr = o
        .entries
        .iter()
        .find(|e| e.key == "resourceRequirements")
        .unwrap();
    assert_eq!(at(&m, rr.key_loc.unwrap()), "resourceRequirements");
    let value = rr.value.as_list().unwrap()[0].get("value").unwrap();
    assert_eq!(at(&m, value.loc.unwrap()), "\"1\"");
    // A value that came through a local points where the local wrote it.
    let env = c.get("environment").unwrap().as_list().unwrap()[0]
        .get("name")
        .unwrap();
    assert_eq!(at(&m, env.loc.unwrap()), "\"NVIDIA_DRIVER_CAPABILITIES\"");
    // A module input points at the call's argument, in the caller's file.
    let g = m
        .resources
        .iter()
        .find(|r| r.name == "g" && m.module_address(r) == Some("module.gpu"))
        .unwrap();
    let v = g.body.attr("v").unwrap();
    assert_eq!(at(&m, v.loc.unwrap()), "\"2\"");
    assert!(m.file(v.loc.unwrap().file).path.ends_with("main.tf"));
    // Attribute names and the resource header.
    let r = find(&m, "aws_ecs_task_definition", "t");
    assert_eq!(at(&m, r.loc), "resource \"aws_ecs_task_definition\" \"t\"");
    assert_eq!(
        at(&m, r.body.attribute("family").unwrap().name_loc.unwrap()),
        "family"
    );
}

#[test]
fn ephemeral_values_are_unknown() {
    let n = eval_with(
        "ephemeral \"aws_secretsmanager_secret_version\" \"s\" { secret_id = \"x\" }",
        "ephemeral.aws_secretsmanager_secret_version.s.secret_string",
    );
    assert_eq!(reason(&n), UnknownReason::DataSource);
    assert_eq!(
        n.refs()[0].address,
        "ephemeral.aws_secretsmanager_secret_version.s"
    );
}

#[test]
fn a_file_named_alone_is_evaluated_with_its_folder() {
    let dir = write(&[
        ("main.tf", "resource \"t\" \"t\" { x = local.name }\n"),
        ("locals.tf", "locals { name = \"gpu\" }\n"),
    ]);
    let m = ecs_gpu_model::load(&LoadOptions {
        paths: vec![dir.path().join("main.tf")],
        ..Default::default()
    });
    assert_eq!(str_of(find(&m, "t", "t").body.attr("x").unwrap()), "gpu");
}

#[test]
fn terraform_json_module_inputs_stay_attributes() {
    let (_d, m) = load(&[
        (
            "main.tf.json",
            r#"{"module": {"svc": {"source": "./svc", "network_configuration": {"subnets": ["a"]}}}}"#,
        ),
        (
            "svc/main.tf",
            "variable \"network_configuration\" {}\nresource \"t\" \"t\" { x = var.network_configuration.subnets[0] }\n",
        ),
    ]);
    let t = m
        .resources
        .iter()
        .find(|r| m.module_address(r) == Some("module.svc"))
        .unwrap();
    assert_eq!(str_of(t.body.attr("x").unwrap()), "a");
}

/// A walked module folder that a root before it calls: with one worker, the folder's own unit
/// reuses the declarations the call parsed, unless a file of the folder did not parse (then that
/// file's problem is reported, once).
#[test]
fn a_called_module_folder_is_loaded_as_a_root_once_whichever_way() {
    let module = "variable \"n\" { default = \"own\" }\nresource \"t\" \"m\" { x = var.n }\n";
    let root = "module \"m\" {\n  source = \"./mod\"\n  n = \"called\"\n}\n";
    for (bad, threads) in [(false, 1), (false, 2), (true, 1), (true, 2)] {
        let mut files = vec![("a/main.tf", root), ("a/mod/main.tf", module)];
        if bad {
            files.push(("a/mod/bad.tf", "resource \"t\" \"b\" {\n  x = \n}\n"));
        }
        let dir = write(&files);
        let m = ecs_gpu_model::load(&LoadOptions {
            paths: vec![dir.path().to_path_buf()],
            threads: Some(threads),
            ..Default::default()
        });
        let values: Vec<(Option<&str>, String)> = m
            .resources
            .iter()
            .filter(|r| r.kind == "t" && r.name == "m")
            .map(|r| (m.module_address(r), str_of(r.body.attr("x").unwrap())))
            .collect();
        assert_eq!(
            values,
            [(Some("module.m"), "called".into()), (None, "own".into())],
            "bad file: {bad}, {threads} workers"
        );
        assert_eq!(m.files_checked, if bad { 3 } else { 2 }, "{bad} {threads}");
        let problems: Vec<_> = m
            .problems
            .iter()
            .map(|p| (p.path.file_name().unwrap().to_owned(), p.line))
            .collect();
        if bad {
            assert_eq!(problems, [("bad.tf".into(), Some(2))], "{threads} workers");
        } else {
            assert!(problems.is_empty(), "{problems:?}");
        }
    }
}

/// The manifest `terraform init` writes for the calls of `installed_modules_are_followed...`.
const MANIFEST: &str = r#"{"Modules":[{"Key":"","Source":"","Dir":"."},
{"Key":"gpu","Source":"registry.terraform.io/acme/gpu-capacity/aws","Version":"1.2.0","Dir":".terraform/modules/gpu"},
{"Key":"gpu.tags","Source":"git::https://example.com/tags.git?ref=v1","Dir":".terraform/modules/gpu.tags"},
{"Key":"stale","Source":"registry.terraform.io/acme/old/aws","Version":"0.1.0","Dir":".terraform/modules/stale"},
{"Key":"escape","Source":"registry.terraform.io/acme/escape/aws","Version":"1.0.0","Dir":"../elsewhere"},
{"Key":"raised","Source":"registry.terraform.io/acme/raised/aws","Version":"1.4.2","Dir":".terraform/modules/raised"},
{"Key":"typo","Source":"registry.terraform.io/acme/typo/aws","Version":"1.0.0","Dir":".terraform/modules/typo"}]}"#;

#[test]
fn installed_modules_are_followed_like_local_ones() {
    let (dir, m) = load(&[
        (
            "infra/main.tf",
            "module \"gpu\" {\n  source  = \"acme/gpu-capacity/aws\"\n  version = \"~> 1.2\"\n  count   = 2\n  name    = \"inference-${count.index}\"\n}\nmodule \"stale\" {\n  source = \"acme/new/aws\"\n}\nmodule \"escape\" {\n  source = \"acme/escape/aws\"\n}\nmodule \"absent\" {\n  source = \"acme/absent/aws\"\n}\nmodule \"raised\" {\n  source  = \"acme/raised/aws\"\n  version = \">= 1.0, < 1.4\"\n}\nmodule \"typo\" {\n  source  = \"acme/typo/aws\"\n  version = \"^1.0\"\n}\nresource \"t\" \"t\" {\n  x = module.gpu[1].group\n  y = module.stale.anything\n}\n",
        ),
        ("infra/.terraform/modules/modules.json", MANIFEST),
        (
            "infra/.terraform/modules/gpu/main.tf",
            "variable \"name\" {}\nmodule \"tags\" {\n  source = \"git::https://example.com/tags.git?ref=v1\"\n}\nmodule \"sub\" {\n  source = \"./modules/sub\"\n  owner  = module.tags.owner\n}\nresource \"t\" \"g\" {\n  name   = var.name\n  here   = path.module\n  owner  = module.sub.owner\n}\noutput \"group\" { value = var.name }\n",
        ),
        (
            "infra/.terraform/modules/gpu/modules/sub/main.tf",
            "variable \"owner\" {}\noutput \"owner\" { value = \"sub-${var.owner}\" }\n",
        ),
        (
            "infra/.terraform/modules/gpu.tags/main.tf",
            "output \"owner\" { value = \"ml\" }\n",
        ),
        ("infra/.terraform/modules/stale/main.tf", "resource \"t\" \"s\" {}\n"),
        ("infra/.terraform/modules/raised/main.tf", "resource \"t\" \"s\" {}\n"),
        ("infra/.terraform/modules/typo/main.tf", "resource \"t\" \"s\" {}\n"),
        ("elsewhere/main.tf", "resource \"t\" \"e\" {}\n"),
    ]);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    let g: Vec<(Option<&str>, String, String, String)> = m
        .resources
        .iter()
        .filter(|r| r.kind == "t" && r.name == "g")
        .map(|r| {
            (
                m.module_address(r),
                str_of(r.body.attr("name").unwrap()),
                str_of(r.body.attr("here").unwrap()),
                str_of(r.body.attr("owner").unwrap()),
            )
        })
        .collect();
    let here = ".terraform/modules/gpu".to_string();
    assert_eq!(
        g,
        [
            (
                Some("module.gpu[0]"),
                "inference-0".into(),
                here.clone(),
                "sub-ml".into()
            ),
            (
                Some("module.gpu[1]"),
                "inference-1".into(),
                here,
                "sub-ml".into()
            ),
        ]
    );
    // Findings point at the installed file, under the checked folder.
    let g0 = find(&m, "t", "g");
    let shown = m
        .file(g0.loc.file)
        .path
        .to_string_lossy()
        .replace('\\', "/");
    assert!(
        shown.ends_with("infra/.terraform/modules/gpu/main.tf"),
        "{shown}"
    );
    // The output of an installed call is known in the caller.
    let t = root_resource(&m, "t", "t");
    assert_eq!(str_of(t.body.attr("x").unwrap()), "inference-1");
    assert_eq!(
        reason(t.body.attr("y").unwrap()),
        UnknownReason::RemoteModule
    );
    // What is not installed, installed from another source, or outside the root is not followed,
    // and the note says why.
    assert!(m.resources.iter().all(|r| r.name != "s"));
    // (`elsewhere` is checked on its own, as a root of the checked folder, not as a call.)
    let e = find(&m, "t", "e");
    assert_eq!(m.module_address(e), None);
    let notes: Vec<&str> = m
        .notes
        .iter()
        .filter(|n| n.kind == ecs_gpu_model::LoadNoteKind::RemoteModules)
        .map(|n| n.message.as_str())
        .collect();
    // One note per call not followed.
    assert_eq!(notes.len(), 5, "{notes:?}");
    let notes = [notes.join(", ")];
    for part in [
        "`module.stale` (`acme/new/aws`; `.terraform/modules` holds it from `registry.terraform.io/acme/old/aws`: run `terraform init` again)",
        "`module.escape` (`acme/escape/aws`; its folder in the `terraform init` manifest, `../elsewhere`, is missing or outside the root module's folder)",
        "`module.absent` (`acme/absent/aws`)",
        "`module.raised` (`acme/raised/aws`; `.terraform/modules` holds version `1.4.2`, which `>= 1.0, < 1.4` does not allow: run `terraform init` again)",
        "`module.typo` (`acme/typo/aws`; its `version`, `^1.0`, is not a version constraint Terraform accepts)",
    ] {
        assert!(notes[0].contains(part), "{part}\nnot in\n{}", notes[0]);
    }
    assert!(!notes[0].contains("module.gpu"), "{}", notes[0]);
    // The installed files are counted as checked; the folder outside is not.
    assert_eq!(m.files_checked, 5, "{:?}", dir.path());
}

#[test]
fn a_manifest_that_cannot_be_read_is_a_problem_at_its_line() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "module \"gpu\" {\n  source = \"acme/gpu-capacity/aws\"\n}\nresource \"t\" \"t\" {}\n",
        ),
        (
            ".terraform/modules/modules.json",
            "{\"Modules\": [\n  {\"Key\": \"gpu\"}\n]}\n",
        ),
    ]);
    let problems: Vec<_> = m
        .problems
        .iter()
        .map(|p| {
            (
                p.path.to_string_lossy().replace('\\', "/"),
                p.line,
                p.message.clone(),
            )
        })
        .collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].0.ends_with(".terraform/modules/modules.json"));
    assert_eq!(problems[0].1, Some(2));
    assert!(
        problems[0].2.contains("not a module manifest"),
        "{problems:?}"
    );
    // The rest is still loaded, and the call is said not to be followed.
    find(&m, "t", "t");
    assert!(m
        .notes
        .iter()
        .any(|n| n.message.contains("`module.gpu` (`acme/gpu-capacity/aws`)")));
}

/// OpenTofu reads `foo.tofu` in place of `foo.tf` and `foo.tofu.json` in place of `foo.tf.json`,
/// in root folders and module folders, override files included, whatever `.gitignore` says; the
/// same whichever walk finds the files (one folder, several paths, one file named).
#[test]
fn opentofu_files_take_the_place_of_their_tf_twins() {
    let dir = write(&[
        (
            "root/main.tf",
            "module \"m\" {\n  source = \"../mod\"\n}\nresource \"t\" \"only_in_tf\" {}\nresource \"t\" \"t\" { x = \"tf\" }\n",
        ),
        ("root/main.tofu", "module \"m\" {\n  source = \"../mod\"\n}\nresource \"t\" \"t\" { x = \"tofu\" }\n"),
        ("root/extra.tf.json", "{\"resource\": {\"t\": {\"j\": {\"x\": \"tf.json\"}}}}"),
        ("root/extra.tofu.json", "{\"resource\": {\"t\": {\"j\": {\"x\": \"tofu.json\"}}}}"),
        ("root/plain.tofu", "resource \"t\" \"plain\" { x = \"plain\" }\n"),
        ("root/override.tf", "resource \"t\" \"plain\" { x = \"override.tf\" }\n"),
        ("root/override.tofu", "resource \"t\" \"plain\" { x = \"override.tofu\" }\n"),
        (".gitignore", "hidden.tofu\n"),
        ("root/hidden.tf", "resource \"t\" \"hidden\" {}\n"),
        ("root/hidden.tofu", "resource \"t\" \"hidden_tofu\" {}\n"),
        ("mod/main.tf", "resource \"t\" \"m\" { x = \"tf\" }\n"),
        ("mod/main.tofu", "resource \"t\" \"m\" { x = \"tofu\" }\n"),
    ]);
    let root = dir.path().join("root");
    let walks = [
        vec![dir.path().to_path_buf()],
        vec![root.clone(), dir.path().join("mod")],
        vec![root.join("main.tf")],
    ];
    for paths in walks {
        let m = ecs_gpu_model::load(&LoadOptions {
            paths: paths.clone(),
            ..Default::default()
        });
        assert!(m.problems.is_empty(), "{paths:?}: {:?}", m.problems);
        let at = |name: &str| {
            m.resources
                .iter()
                .filter(|r| r.kind == "t" && r.name == name && m.module_address(r).is_none())
                .map(|r| r.body.attr("x").map(str_of).unwrap_or_default())
                .collect::<Vec<_>>()
        };
        assert_eq!(at("t"), ["tofu"], "{paths:?}");
        assert!(at("only_in_tf").is_empty(), "{paths:?}");
        assert_eq!(at("j"), ["tofu.json"], "{paths:?}");
        assert_eq!(at("plain"), ["override.tofu"], "{paths:?}");
        // `hidden.tofu` is ignored by the walk, not by OpenTofu: `hidden.tf` is not read either.
        // (A file named alone is read with every Terraform file of its folder, ignored or not.)
        assert!(at("hidden").is_empty(), "{paths:?}");
        let named_file = paths[0].extension().is_some_and(|e| e == "tf");
        assert_eq!(
            at("hidden_tofu").len(),
            usize::from(named_file),
            "{paths:?}"
        );
        let called: Vec<_> = m
            .resources
            .iter()
            .filter(|r| r.name == "m" && m.module_address(r) == Some("module.m"))
            .map(|r| str_of(r.body.attr("x").unwrap()))
            .collect();
        assert_eq!(called, ["tofu"], "{paths:?}");
    }
}

/// `merge` with an unknown argument is unknown, and keeps as entries exactly what the arguments
/// after the last unknown one set (a later argument wins); anything computed from it drops them.
#[test]
fn merge_with_an_unknown_argument_keeps_the_entries_written_after_it() {
    let entries = |expr: &str| -> Vec<(String, String)> {
        let n = eval_with("variable \"base\" {}\nvariable \"other\" {}", expr);
        match &n.value {
            Value::Unknown(u) => u
                .entries
                .iter()
                .map(|e| {
                    (
                        e.key.clone(),
                        e.value.to_json_text().unwrap_or_else(|| "?".into()),
                    )
                })
                .collect(),
            other => panic!("{expr}: known: {other:?}"),
        }
    };
    let kv = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        entries("merge(var.base, { a = 1, b = var.other })"),
        kv(&[("a", "1"), ("b", "?")])
    );
    // Written before the unknown argument: it may replace them.
    assert_eq!(
        entries("merge({ a = 0, z = 9 }, var.base, { a = 1 })"),
        kv(&[("a", "1")])
    );
    assert_eq!(entries("merge({ a = 0 }, var.base)"), kv(&[]));
    // An inner partly known merge brings its entries.
    assert_eq!(
        entries("merge(merge(var.base, { x = 1 }), { y = 2 })"),
        kv(&[("x", "1"), ("y", "2")])
    );
    assert_eq!(
        entries("merge(merge(var.base, { x = 1 }), var.other, { y = 2 })"),
        kv(&[("y", "2")])
    );
    // The same object through a reference or a known condition keeps them.
    let n = eval_with(
        "variable \"base\" {}\nlocals { c = merge(var.base, { gpu = 1 }) }",
        "true ? [local.c][0] : null",
    );
    assert!(
        matches!(&n.value, Value::Unknown(u) if u.entries.len() == 1),
        "{n:?}"
    );
    // Anything computed from it is not that object.
    for derived in [
        "merge(var.base, { a = 1 }).a",
        "merge(var.base, { a = 1 })[\"a\"]",
        "lookup(merge(var.base, { a = 1 }), \"a\", 0)",
        "keys(merge(var.base, { a = 1 }))",
        "tostring(merge(var.base, { a = 1 }))",
        "jsonencode(merge(var.base, { a = 1 }))",
        "base64encode(jsonencode(merge(var.base, { a = 1 })))",
        "try(merge(var.base, { a = 1 }), {})",
        "[for k, v in merge(var.base, { a = 1 }) : v]",
        "merge(var.base, { a = 1 })[*]",
        "values(merge(var.base, { a = 1 }))",
        "length(merge(var.base, { a = 1 }))",
        "var.other ? merge(var.base, { a = 1 }) : {}",
    ] {
        let n = eval_with("variable \"base\" {}\nvariable \"other\" {}", derived);
        match &n.value {
            Value::Unknown(u) => assert!(u.entries.is_empty(), "{derived}: {u:?}"),
            other => panic!("{derived}: known: {other:?}"),
        }
    }
    // With every argument known, merge is an object as before.
    assert_eq!(
        json(&eval("merge({ a = 1 }, { b = 2 })")),
        "{\"a\":1,\"b\":2}"
    );
}

/// A local module call's folder is where the file system finds it: `..` after a symbolic link
/// leaves the link's target, not the link's folder; calls from many roots by the same or other
/// spellings find the same folder.
#[cfg(unix)]
#[test]
fn module_sources_resolve_through_symlinked_folders() {
    let call = |source: &str| format!("module \"m\" {{\n  source = \"{source}\"\n}}\n");
    let dir = write(&[
        (
            "lib/modules/a/main.tf",
            "resource \"t\" \"m\" { v = \"a\" }\n",
        ),
        (
            "lib/modules/b/main.tf",
            "resource \"t\" \"m\" { v = \"b\" }\n",
        ),
        (
            "b/main.tf",
            "resource \"t\" \"m\" { v = \"top-level b\" }\n",
        ),
        ("roots/through-link-up/main.tf", &call("../../link/../b")),
        ("roots/through-link/main.tf", &call("../../link")),
        ("roots/direct/main.tf", &call("../../lib/modules/a")),
        ("roots/dotted/main.tf", &call("./../.././lib/modules/b")),
        ("roots/missing/main.tf", &call("../../lib/modules/none")),
        // The spelling that ignores the link, by another root on the same worker.
        ("roots/up-b/main.tf", &call("../../b")),
    ]);
    std::os::unix::fs::symlink(dir.path().join("lib/modules/a"), dir.path().join("link")).unwrap();
    // Folders under `roots/` only: the link is not walked, only called. One worker: every call
    // is resolved by the same one.
    let m = ecs_gpu_model::load(&LoadOptions {
        paths: vec![dir.path().join("roots")],
        threads: Some(1),
        ..Default::default()
    });
    let mut called: Vec<(String, String)> = m
        .resources_of("t")
        .filter_map(|r| {
            let parent = m.modules[r.module.0 as usize].parent?;
            let root = m.modules[parent.0 as usize].dir.file_name()?;
            Some((
                root.to_string_lossy().into_owned(),
                str_of(r.body.attr("v")?),
            ))
        })
        .collect();
    called.sort();
    let expected = [
        ("direct", "a"),
        ("dotted", "b"),
        ("through-link", "a"),
        ("through-link-up", "b"),
        ("up-b", "top-level b"),
    ];
    assert_eq!(
        called,
        expected.map(|(r, v)| (r.to_string(), v.to_string()))
    );
    assert!(
        m.notes.iter().any(|n| n.message.contains("module.m")),
        "the missing folder's call is said: {:?}",
        m.notes
    );
}

/// Without the texts, a file keeps its lines: the same lines and columns, and the text read again
/// when asked for, or nothing once it has changed.
#[test]
fn files_loaded_without_their_texts_keep_their_lines() {
    let main = "# ecs-gpu:ignore GPU303 why\n\n# é\nresource \"t\" \"t\" {\n  x = \"ü\" # ø\n}\n";
    let dir = write(&[("main.tf", main)]);
    let options = |texts| LoadOptions {
        paths: vec![dir.path().to_path_buf()],
        texts,
        ..Default::default()
    };
    let kept = ecs_gpu_model::load(&options(Texts::Keep));
    let dropped = ecs_gpu_model::load(&options(Texts::Drop));
    let (k, d) = (&kept.files[0], &dropped.files[0]);
    assert_eq!(k.text.as_deref(), Some(main));
    assert_eq!(d.text, None);
    assert_eq!(k.lines, d.lines);
    let x = find(&dropped, "t", "t")
        .body
        .attr("x")
        .unwrap()
        .loc
        .unwrap();
    assert_eq!(
        d.line_col_range(x.span.start, x.span.end),
        ((5, 7), (5, 10))
    );
    assert_eq!(
        d.line_col_range(x.span.start, x.span.end),
        k.line_col_range(x.span.start, x.span.end)
    );
    // Each comment with the line of code it is above (the trailing one: the next line).
    let next: Vec<u32> = d.comments.iter().map(|c| c.next_code_line).collect();
    assert_eq!(next, [4, 4, 6]);
    assert_eq!(
        next,
        k.comments
            .iter()
            .map(|c| c.next_code_line)
            .collect::<Vec<_>>()
    );
    assert_eq!(d.read_text().as_deref(), Some(main));
    // Changed since: its lines are not the ones loaded.
    std::fs::write(dir.path().join("main.tf"), format!("\n{main}")).unwrap();
    assert_eq!(d.read_text(), None);
    assert_eq!(k.read_text().as_deref(), Some(main));
}

/// The collection functions that remove repeats or match keys give what comparing each element
/// with every other gives, in Terraform's order, with repeats of every kind (`0` and `-0`,
/// objects with keys in another order, lists, a `jsonencode` and its text).
#[test]
fn collection_functions_remove_repeats_as_pairwise_comparison_would() {
    for (expr, want) in [
        ("distinct([1, 2, 1, 0, -0])", r#"[1,2,0]"#),
        (
            "distinct([{ a = 1, b = 2 }, { b = 2, a = 1 }, [1], [1], [\"1\"]])",
            r#"[{"a":1,"b":2},[1],["1"]]"#,
        ),
        (
            "distinct([jsonencode({ a = 1 }), \"{\\\"a\\\":1}\"])",
            r#"["{\"a\":1}"]"#,
        ),
        ("toset([\"b\", \"a\", \"b\", 1])", r#"["1","a","b"]"#),
        (
            "setunion([\"b\"], [\"a\", \"b\"], [\"c\"])",
            r#"["a","b","c"]"#,
        ),
        (
            "setintersection([\"a\", \"b\", \"c\"], [\"c\", \"a\"], [\"a\", \"c\", \"d\"])",
            r#"["a","c"]"#,
        ),
        (
            "setsubtract([\"a\", \"b\", \"c\"], [\"b\"])",
            r#"["a","c"]"#,
        ),
        (
            "zipmap([\"a\", \"b\", \"a\"], [1, 2, 3])",
            r#"{"a":3,"b":2}"#,
        ),
        (
            "keys(zipmap([\"b\", \"a\", \"b\"], [1, 2, 3]))",
            r#"["a","b"]"#,
        ),
        (
            "{ for x in [\"a\", \"b\", \"a\"] : x => x... }",
            r#"{"a":["a","a"],"b":["b"]}"#,
        ),
        (
            "merge({ a = 1, b = 2 }, { b = 3, c = 4 }, { a = 5 })",
            r#"{"a":5,"b":3,"c":4}"#,
        ),
    ] {
        assert_eq!(json(&eval(expr)), want, "{expr}");
    }
    // A duplicate key in a `for` object without `...` is an error, as in Terraform.
    assert_eq!(
        reason(&eval("{ for x in [\"a\", \"a\"] : x => 1 }")),
        UnknownReason::Error
    );
}

/// The known text of a template with unknown parts, and where they stand: user data is read line
/// by line from it. `base64encode` keeps it (marked as encoded, so it is never decoded as JSON),
/// and a `cloudinit_config` gives its parts in order, with a `dynamic` part as a hole.
#[test]
fn partly_unknown_templates_keep_their_text_and_holes() {
    let (_d, m) = load(&[(
        "main.tf",
        r##"variable "extra" {
  type = string
}
data "aws_region" "current" {}
data "cloudinit_config" "ci" {
  part {
    content = "#!/bin/bash\necho ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config"
  }
  part {
    content = "region=${data.aws_region.current.name}"
  }
  dynamic "part" {
    for_each = []
    content {
      content = var.extra
    }
  }
}
resource "t" "t" {
  a = base64encode(<<-EOT
    echo ECS_CLUSTER=${aws_x.c.arn} >> /etc/ecs/ecs.config
    echo ECS_ENABLE_SPOT_INSTANCE_DRAINING=true >> /etc/ecs/ecs.config
  EOT
  )
  b = data.cloudinit_config.ci.rendered
  c = jsondecode(base64encode("{\"a\": \"${aws_x.c.arn}\"}"))
}
resource "aws_x" "c" {}
"##,
    )]);
    let t = find(&m, "t", "t");
    let Value::Unknown(a) = &t.body.attr("a").unwrap().value else {
        panic!("a is not unknown")
    };
    let text = a.partial_text().expect("the template's text");
    assert!(text.base64);
    assert_eq!(
        text.text,
        "echo ECS_CLUSTER= >> /etc/ecs/ecs.config\necho ECS_ENABLE_SPOT_INSTANCE_DRAINING=true >> /etc/ecs/ecs.config\n"
    );
    assert_eq!(text.holes, vec!["echo ECS_CLUSTER=".len()]);
    let Value::Unknown(b) = &t.body.attr("b").unwrap().value else {
        panic!("b is not unknown")
    };
    let text = b.partial_text().expect("the parts' text");
    assert_eq!(
        text.text,
        "#!/bin/bash\necho ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config\nregion=\n\n"
    );
    let region = text.text.find("region=").unwrap() + "region=".len();
    assert_eq!(text.holes, vec![region, region + 1]);
    // Base64 text is not JSON: Terraform's `jsondecode` fails on it.
    assert!(t.body.attr("c").unwrap().is_unknown());
}

/// A reference to an argument the provider passes to AWS as written (a cluster's `name`) is known
/// at plan time when the configuration writes it (of one instance of a block with `count`, too);
/// computed attributes, instances that are not known and names that are not known stay unknown
/// references.
#[test]
fn names_written_in_the_configuration_are_known_at_plan_time() {
    let (_d, m) = load(&[(
        "main.tf",
        r#"variable "env" {
  type = string
}
resource "aws_ecs_cluster" "main" {
  name = "gpu-${terraform.workspace}"
}
resource "aws_ecs_cluster" "per_env" {
  name = "gpu-${var.env}"
}
resource "aws_ecs_cluster" "many" {
  count = 2
  name  = "gpu-${count.index}"
}
variable "clusters" {
  type = set(string)
}
resource "aws_ecs_cluster" "each" {
  for_each = var.clusters
  name     = each.key
}
resource "aws_autoscaling_group" "prefixed" {
  name_prefix = "gpu-"
}
resource "t" "t" {
  name      = aws_ecs_cluster.main.name
  arn       = aws_ecs_cluster.main.arn
  per_env   = aws_ecs_cluster.per_env.name
  many      = aws_ecs_cluster.many[1].name
  each      = aws_ecs_cluster.each["a"].name
  prefixed  = aws_autoscaling_group.prefixed.name
  user_data = "ECS_CLUSTER=${aws_ecs_cluster.main.name}\n"
}
"#,
    )]);
    let t = find(&m, "t", "t");
    assert_eq!(str_of(t.body.attr("name").unwrap()), "gpu-default");
    assert_eq!(
        str_of(t.body.attr("user_data").unwrap()),
        "ECS_CLUSTER=gpu-default\n"
    );
    assert_eq!(str_of(t.body.attr("many").unwrap()), "gpu-1");
    for unknown in ["arn", "per_env", "each", "prefixed"] {
        let n = t.body.attr(unknown).unwrap();
        assert!(n.is_unknown(), "{unknown}");
        assert!(!n.refs().is_empty(), "{unknown} keeps its reference");
    }
}

/// `sha1` and `sha256` of a known string are known at plan time, in lowercase hexadecimal, as
/// Terraform prints them (modules make names unique with `substr(sha1(...), 0, 6)`).
#[test]
fn digests_of_known_strings_are_known() {
    assert_eq!(
        str_of(&eval("sha1(\"abc\")")),
        "a9993e364706816aba3e25717850c26c9cd0d89d"
    );
    assert_eq!(
        str_of(&eval("sha256(\"abc\")")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(str_of(&eval("substr(sha1(\"gpu\"), 0, 6)")).len(), 6);
    assert!(eval("sha1(aws_x.y.arn)").is_unknown());
}

/// A module called by its absolute path: `terraform init` links it into `.terraform/modules` with
/// the source `file://` and the path. An absolute path may lead anywhere on the machine, so it is
/// followed as a link is (docs/limits.md, "Links"): when it leads inside the checked folders
/// (given as one of them), directly or through `terraform init`'s link; outside them it is a
/// module that is not followed, with why, and nothing of it is read.
#[cfg(unix)]
#[test]
fn modules_called_by_an_absolute_path_are_followed_inside_the_checked_folders() {
    let shared = write(&[(
        "main.tf",
        "variable \"gpus\" { type = number }\nresource \"aws_ecs_task_definition\" \"td\" {\n  family = \"gpu\"\n  container_definitions = jsonencode([{ name = \"app\", resourceRequirements = [{ type = \"GPU\", value = tostring(var.gpus) }] }])\n}\n",
    )]);
    let source = shared.path().canonicalize().unwrap();
    let call = format!(
        "module \"gpu\" {{\n  source = \"{}\"\n  gpus   = 2\n}}\n",
        source.display()
    );
    let gpus_of = |m: &ecs_gpu_model::Model| {
        let td = m
            .resources
            .iter()
            .find(|r| {
                r.kind == "aws_ecs_task_definition" && m.module_address(r) == Some("module.gpu")
            })
            .expect("the module's task definition");
        json(td.body.attr("container_definitions").unwrap())
    };
    let with_shared = |root: &std::path::Path| {
        ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
            paths: vec![root.to_path_buf(), source.clone()],
            ..Default::default()
        })
    };
    // Outside the checked folders: not followed, and said.
    let (d, m) = load(&[("main.tf", &call)]);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert!(!m
        .resources
        .iter()
        .any(|r| m.module_address(r) == Some("module.gpu")));
    assert!(
        m.notes
            .iter()
            .any(|n| n.kind == ecs_gpu_model::LoadNoteKind::RemoteModules
                && n.message.contains("outside the checked folders")),
        "{:?}",
        m.notes
    );
    // Checked too: followed where it is.
    let m = with_shared(d.path());
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert!(
        gpus_of(&m).contains("\\\"value\\\":\\\"2\\\""),
        "{}",
        gpus_of(&m)
    );

    let root = write(&[
        ("main.tf", &call),
        (
            ".terraform/modules/modules.json",
            &format!(
                "{{\"Modules\":[{{\"Key\":\"\",\"Source\":\"\",\"Dir\":\".\"}},{{\"Key\":\"gpu\",\"Source\":\"file://{}\",\"Dir\":\".terraform/modules/gpu\"}}]}}",
                source.display()
            ),
        ),
    ]);
    std::os::unix::fs::symlink(&source, root.path().join(".terraform/modules/gpu")).unwrap();
    let m = with_shared(root.path());
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert!(
        gpus_of(&m).contains("\\\"value\\\":\\\"2\\\""),
        "{}",
        gpus_of(&m)
    );
    // Its file is one of the checked folders': shown once, by the walk's name for it.
    assert_eq!(
        m.files
            .iter()
            .filter(|f| f.path == source.join("main.tf"))
            .count(),
        1,
        "{:?}",
        m.files.iter().map(|f| &f.path).collect::<Vec<_>>()
    );
}
