//! The report every renderer's snapshot test renders: an error with a secondary label, a warning in
//! a module, an info with no location, text that needs escaping, and a file that did not parse.

use crate::{Diagnostic, Label, Location, Report, RuleInfo, Severity};

pub(crate) fn sample() -> Report {
    let main_tf = "resource \"aws_ecs_task_definition\" \"app\" {\n  family                   = \"app\"\n  requires_compatibilities = [\"FARGATE\"]\n  container_definitions = jsonencode([{\n    name = \"app\"\n    resourceRequirements = [{ type = \"GPU\", value = \"1\" }]\n  }])\n}\n";
    let module_tf =
        "locals {\n  env = [{ name = \"NVIDIA_VISIBLE_DEVICES\", value = \"all\" }]\n}\n";
    let mut report = Report::new(2);
    report.sources.insert("main.tf".into(), main_tf.into());
    report
        .sources
        .insert("modules/gpu/task.tf".into(), module_tf.into());
    report.rules = vec![
        RuleInfo {
            id: "GPU101".into(),
            name: "gpu-task-on-fargate".into(),
            default_severity: Severity::Error,
            summary: "a GPU task definition is Fargate-compatible".into(),
            description: "A task definition that reserves GPUs and lists `FARGATE`.".into(),
            doc: "## What it checks\n\nA task definition that reserves GPUs and lists `FARGATE`.\n\n## Why it matters\n\nFargate has no GPUs.\n\n## Example\n\n```hcl\nrequires_compatibilities = [\"FARGATE\"]\n```\n\n## How to fix\n\nUse `EC2`.\n".into(),
        },
        RuleInfo {
            id: "GPU105".into(),
            name: "nvidia-driver-capabilities".into(),
            default_severity: Severity::Warning,
            summary: "a GPU container does not set `NVIDIA_DRIVER_CAPABILITIES`".into(),
            description: "The variable.".into(),
            doc: "## What it checks\n\nThe variable.\n".into(),
        },
        RuleInfo {
            id: "GPU003".into(),
            name: "remote-module-not-followed".into(),
            default_severity: Severity::Info,
            summary: "a remote module call is not followed".into(),
            description: "Remote modules.".into(),
            doc: "## What it checks\n\nRemote modules.\n".into(),
        },
    ];
    report.problems = vec![crate::Problem {
        file: "broken, really.tf".into(),
        line: Some(4),
        column: Some(1),
        message: "expected '}' to close the block, found end of file".into(),
    }];
    report.diagnostics = vec![
        Diagnostic {
            rule: "GPU101".into(),
            name: "gpu-task-on-fargate".into(),
            severity: Severity::Error,
            message: "the GPU task definition `aws_ecs_task_definition.app` is Fargate-compatible"
                .into(),
            location: Some(Location {
                file: "main.tf".into(),
                line: 3,
                column: 30,
                end_line: 3,
                end_column: 41,
            }),
            resource: Some("aws_ecs_task_definition.app".into()),
            module: None,
            instances: Vec::new(),
            help: Some("use `requires_compatibilities = [\"EC2\"]`: Fargate has no GPUs".into()),
            labels: vec![Label {
                location: Location {
                    file: "main.tf".into(),
                    line: 6,
                    column: 28,
                    end_line: 6,
                    end_column: 58,
                },
                message: "GPUs reserved here".into(),
            }],
            omitted: 0,
        },
        Diagnostic {
            rule: "GPU105".into(),
            name: "nvidia-driver-capabilities".into(),
            severity: Severity::Warning,
            message: "the GPU container `app` does not set `NVIDIA_DRIVER_CAPABILITIES`, 100% sure: a,b\nsecond line".into(),
            location: Some(Location {
                file: "modules/gpu/task.tf".into(),
                line: 2,
                column: 9,
                end_line: 2,
                end_column: 62,
            }),
            resource: Some("aws_ecs_task_definition.app".into()),
            module: Some("module.gpu".into()),
            instances: vec!["module.gpu".into(), "module.gpu_spot".into()],
            help: Some("add `{ name = \"NVIDIA_DRIVER_CAPABILITIES\", value = \"utility,compute\" }`".into()),
            labels: Vec::new(),
            omitted: 2,
        },
        Diagnostic {
            rule: "GPU003".into(),
            name: "remote-module-not-followed".into(),
            severity: Severity::Info,
            message: "remote module calls were not followed: `module.vpc`".into(),
            location: None,
            resource: None,
            module: None,
            instances: Vec::new(),
            help: None,
            labels: Vec::new(),
            omitted: 0,
        },
    ];
    report
}

/// The forged finding a hostile container name tries to print on a line of its own.
pub(crate) const FORGED: &str = "x/main.tf:1:1: error GPU101 gpu-task-on-fargate: FORGED";

/// A report whose texts from the checked files hold control characters: a newline followed by a
/// forged finding, a carriage return, terminal escape sequences, a bidirectional override, in the
/// message, the help, a label, the resource, the module, the file name and the source line.
pub(crate) fn hostile() -> Report {
    let name = format!("ok\n{FORGED}\r\u{1b}[31mred\u{1b}]0;title\u{7}\u{202e}");
    let file = format!("dir\n{FORGED}/main.tf");
    let mut report = Report::new(1);
    report.sources.insert(
        file.clone(),
        format!(
            "resource \"aws_ecs_task_definition\" \"app\" {{\n  name = \"{}\"\n}}\n",
            name.replace('\n', "\u{1b}[2J")
        ),
    );
    let location = Location {
        file: file.clone(),
        line: 2,
        column: 3,
        end_line: 2,
        end_column: 20,
    };
    report.diagnostics.push(Diagnostic {
        rule: "GPU105".into(),
        name: "nvidia-driver-capabilities".into(),
        severity: Severity::Warning,
        message: format!("the GPU container `{name}` does not set `NVIDIA_DRIVER_CAPABILITIES`"),
        location: Some(location.clone()),
        resource: Some(format!("aws_ecs_task_definition.{name}")),
        module: Some(format!("module.{name}")),
        instances: Vec::new(),
        help: Some(format!("set it in `{name}`")),
        labels: vec![Label {
            location,
            message: format!("container `{name}` here"),
        }],
        omitted: 0,
    });
    report.problems.push(crate::Problem {
        file,
        line: Some(1),
        column: Some(1),
        message: format!("cannot read `{name}`"),
    });
    report
}

/// What no line-oriented output of [`hostile`] may hold: a line that starts with the forged
/// finding, a raw escape or bell character, a carriage return, a bidirectional override.
pub(crate) fn assert_not_forged(out: &str) {
    for line in out.lines() {
        assert!(!line.starts_with(FORGED), "forged line: {line:?}");
    }
    for c in ['\u{1b}', '\u{7}', '\r', '\u{202e}'] {
        assert!(!out.contains(c), "raw {c:?} in {out:?}");
    }
    assert!(
        out.contains("\\u{1b}[31m"),
        "the escape is shown escaped: {out}"
    );
}
