//! `ecs-gpu --version` names the version, the commit it was built from and the build, so a bug
//! report says exactly which binary ran. The build without git (a tarball, the PyPI sdist) saying
//! `commit unknown` is tested by scripts/test-package.sh, which builds from the sdist.

use std::path::Path;
use std::process::Command;

fn version_line(flag: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .arg(flag)
        .output()
        .expect("ecs-gpu runs");
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(o.stderr.is_empty(), "{o:?}");
    String::from_utf8(o.stdout).expect("utf-8")
}

#[test]
fn version_names_the_version_the_commit_and_the_build() {
    let line = version_line("--version");
    assert_eq!(line, version_line("-V"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let head = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["log", "-1", "--date=short", "--format=%h %cd", "--abbrev=9"])
        .output()
        .ok()
        .filter(|o| o.status.success() && root.join(".git").exists())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    // The release workflow names the commit for builds where git cannot (build.rs).
    let given = std::env::var("ECS_GPU_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty());
    let commit = given
        .as_deref()
        .map(str::trim)
        .or(head.as_deref())
        .unwrap_or("unknown");
    let build = if cfg!(feature = "live") {
        "live AWS access"
    } else {
        "check-only build, no live AWS access"
    };
    assert_eq!(
        line,
        format!(
            "ecs-gpu {} (commit {commit}; {build})\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}
