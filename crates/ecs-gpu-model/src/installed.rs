//! Module calls installed by `terraform init`.
//!
//! `terraform init` downloads every remote module call of a root module into `.terraform/modules`
//! and records where in `.terraform/modules/modules.json`, one entry per call:
//!
//! ```json
//! {"Modules":[{"Key":"","Source":"","Dir":"."},
//!             {"Key":"gpu","Source":"registry.terraform.io/terraform-aws-modules/autoscaling/aws","Version":"8.0.0","Dir":".terraform/modules/gpu"},
//!             {"Key":"gpu.nested","Source":"git::https://example.com/m.git?ref=v1","Dir":".terraform/modules/gpu.nested"}]}
//! ```
//!
//! (Terraform's `internal/modsdir` manifest, written by `internal/initwd/module_install.go`: a
//! record's key is the call's module path joined by `.`, its source `SourceAddr.String()`, its
//! folder the package's path plus the address's `//` subfolder; `terraform init`'s documentation,
//! developer.hashicorp.com/terraform/cli/commands/init, says that child modules are installed
//! under `.terraform/modules`.) The key is the call's path from the root, the module block names joined by `.` (instance keys
//! do not count: every instance of a call runs the same code); the folder is relative to the root
//! module's folder. A remote call installed there is followed like a local one, as Terraform does
//! when it plans. A call whose entry names another source than the configuration, or a version
//! its `version` constraint no longer allows (changed since the last `terraform init`, which
//! `terraform plan` refuses: Terraform's `internal/configs/configload/loader_load.go`), is not
//! followed: its copy is not the code the configuration asks for.

use std::path::PathBuf;

use ecs_gpu_hcl::json::{Json, JsonValue};
use ecs_gpu_hcl::ParseError;

use crate::version::{Constraints, Version};
use crate::FastMap;

/// The manifest's path under a root module's folder.
pub(crate) const MANIFEST: &str = ".terraform/modules/modules.json";

/// A root module's installed calls.
#[derive(Debug, Default)]
pub(crate) struct Installed {
    /// The root module's folder as displayed (the installed folders are shown under it).
    pub display_root: PathBuf,
    /// By key: what `terraform init` installed for the call.
    entries: FastMap<String, Entry>,
}

/// One installed call.
#[derive(Debug)]
struct Entry {
    /// The source it was installed from.
    source: String,
    /// Its folder, relative to the root module's folder.
    dir: String,
    /// The version installed (registry modules only), as written and parsed.
    version: Option<(String, Version)>,
}

/// What the manifest says about one remote call.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup<'a> {
    /// Installed from this source, in this folder (relative to the root module's folder).
    Dir(&'a str),
    /// No entry for the call.
    NotInstalled,
    /// Installed from another source than the call's.
    OtherSource(&'a str),
    /// Installed at a version the call's `version` does not allow (`None`: no version recorded,
    /// while the call asks for one).
    OtherVersion(Option<&'a str>),
}

impl Installed {
    /// Reads a manifest's text. The error is a JSON syntax error, or the place of the first value
    /// that is not what `terraform init` writes.
    pub(crate) fn parse(text: &str, display_root: PathBuf) -> Result<Installed, ParseError> {
        let json = crate::parse::json(text)?;
        let invalid = |at: &Json, what: &str| ParseError {
            message: format!("not a module manifest of `terraform init`: {what}"),
            span: at.span,
        };
        let modules = json
            .member("Modules")
            .ok_or_else(|| invalid(&json, "no `Modules` list"))?;
        let JsonValue::Array(list) = &modules.value else {
            return Err(invalid(modules, "`Modules` is not a list"));
        };
        let mut entries = FastMap::default();
        for entry in list {
            let text_of = |key: &str| match entry.member(key).map(|j| &j.value) {
                Some(JsonValue::String(s)) => Some(s.clone()),
                _ => None,
            };
            let (Some(key), Some(dir)) = (text_of("Key"), text_of("Dir")) else {
                return Err(invalid(
                    entry,
                    "an entry without a `Key` and a `Dir` string",
                ));
            };
            let source = text_of("Source").unwrap_or_default();
            // Terraform refuses a manifest whose version is not one (`internal/modsdir`).
            let version = match text_of("Version") {
                Some(v) if !v.is_empty() => {
                    let parsed = Version::parse(&v).ok_or_else(|| {
                        invalid(entry, &format!("the version `{v}` is not a version"))
                    })?;
                    Some((v, parsed))
                }
                _ => None,
            };
            entries.insert(
                key,
                Entry {
                    source,
                    dir,
                    version,
                },
            );
        }
        Ok(Installed {
            display_root,
            entries,
        })
    }

    /// The installed folder of the call at `key`, written with `source` and the `version`
    /// constraint (`None`: the call has none, and any version installed will do).
    pub(crate) fn lookup(
        &self,
        key: &str,
        source: &str,
        version: Option<&Constraints>,
    ) -> Lookup<'_> {
        let Some(entry) = self.entries.get(key) else {
            return Lookup::NotInstalled;
        };
        if !same_source(&entry.source, source) {
            return Lookup::OtherSource(&entry.source);
        }
        match (version, &entry.version) {
            (Some(_), None) => Lookup::OtherVersion(None),
            (Some(wanted), Some((text, installed))) if !wanted.allows(installed) => {
                Lookup::OtherVersion(Some(text))
            }
            _ => Lookup::Dir(&entry.dir),
        }
    }
}

/// Whether the manifest's source is the one written in the call. A registry address without a
/// host is the public registry's, `registry.terraform.io` (Terraform's module-sources
/// documentation, developer.hashicorp.com/terraform/language/modules/sources#terraform-registry;
/// OpenTofu's is `registry.opentofu.org`). Terraform records a registry address with its host
/// (`registry.terraform.io/ns/name/provider`, OpenTofu `registry.opentofu.org/...`; older
/// versions as written), so an address without a host matches one with either public host, on
/// either side. Registry addresses are compared without regard to case, the package subfolder
/// after `//` exactly. An absolute path is installed from `file://` and the path (go-getter's
/// file source, as `terraform init` prints it: "Downloading file:///path"). Any other source must
/// be the same text.
fn same_source(installed: &str, written: &str) -> bool {
    if installed == written {
        return true;
    }
    if written.starts_with('/') {
        return installed
            .strip_prefix("file://")
            .is_some_and(|path| path.trim_end_matches('/') == written.trim_end_matches('/'));
    }
    let (Some(a), Some(b)) = (registry_address(installed), registry_address(written)) else {
        return false;
    };
    let public = |host: &str| {
        host.eq_ignore_ascii_case("registry.terraform.io")
            || host.eq_ignore_ascii_case("registry.opentofu.org")
    };
    let same_host = match (a.host, b.host) {
        (Some(x), Some(y)) => x.eq_ignore_ascii_case(y),
        (Some(h), None) | (None, Some(h)) => public(h),
        (None, None) => true,
    };
    same_host
        && a.subfolder == b.subfolder
        && a.names
            .iter()
            .zip(&b.names)
            .all(|(x, y)| x.eq_ignore_ascii_case(y))
}

/// A module registry address: `[host/]namespace/name/provider[//subfolder]`.
#[derive(Debug, PartialEq, Eq)]
struct RegistryAddress<'a> {
    host: Option<&'a str>,
    /// Namespace, name and provider.
    names: [&'a str; 3],
    /// After `//`, empty when none.
    subfolder: &'a str,
}

/// `source` as a registry address; `None` for any other source. The namespace, name and
/// provider hold no `.`, which tells `github.com/org/repo` (a Git shorthand) from one.
fn registry_address(source: &str) -> Option<RegistryAddress<'_>> {
    if source.contains("::") || source.contains("://") || source.contains('?') {
        return None;
    }
    let (package, subfolder) = source.split_once("//").unwrap_or((source, ""));
    let parts: Vec<&str> = package.split('/').collect();
    let (host, names) = match parts.as_slice() {
        [a, b, c] => (None, [*a, *b, *c]),
        [host, a, b, c] => (Some(*host), [*a, *b, *c]),
        _ => return None,
    };
    let name_like = |p: &&str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    names.iter().all(name_like).then_some(RegistryAddress {
        host,
        names,
        subfolder,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(entries: &str) -> Installed {
        Installed::parse(
            &format!(r#"{{"Modules":[{{"Key":"","Source":"","Dir":"."}}{entries}]}}"#),
            PathBuf::from("infra"),
        )
        .expect("a manifest")
    }

    #[test]
    fn registry_calls_match_with_or_without_the_host_and_in_any_case() {
        let m = manifest(
            r#",{"Key":"gpu","Source":"registry.terraform.io/terraform-aws-modules/autoscaling/aws","Version":"8.0.0","Dir":".terraform/modules/gpu"},
                {"Key":"old","Source":"terraform-aws-modules/ecs/aws//modules/service","Dir":".terraform/modules/old/modules/service"},
                {"Key":"tofu","Source":"registry.opentofu.org/acme/gpu/aws","Dir":".terraform/modules/tofu"},
                {"Key":"private","Source":"app.terraform.io/acme/gpu/aws","Dir":".terraform/modules/private"}"#,
        );
        assert_eq!(
            m.lookup("gpu", "terraform-aws-modules/autoscaling/aws", None),
            Lookup::Dir(".terraform/modules/gpu")
        );
        assert_eq!(
            m.lookup("gpu", "Terraform-AWS-Modules/autoscaling/AWS", None),
            Lookup::Dir(".terraform/modules/gpu")
        );
        assert_eq!(
            m.lookup(
                "gpu",
                "registry.terraform.io/terraform-aws-modules/autoscaling/aws",
                None
            ),
            Lookup::Dir(".terraform/modules/gpu")
        );
        assert_eq!(
            m.lookup(
                "old",
                "terraform-aws-modules/ecs/aws//modules/service",
                None
            ),
            Lookup::Dir(".terraform/modules/old/modules/service")
        );
        // Recorded as written by an older Terraform, written now with the host.
        assert_eq!(
            m.lookup(
                "old",
                "registry.terraform.io/terraform-aws-modules/ecs/aws//modules/service",
                None
            ),
            Lookup::Dir(".terraform/modules/old/modules/service")
        );
        assert_eq!(
            m.lookup("tofu", "acme/gpu/aws", None),
            Lookup::Dir(".terraform/modules/tofu")
        );
        assert_eq!(
            m.lookup("private", "app.terraform.io/acme/gpu/aws", None),
            Lookup::Dir(".terraform/modules/private")
        );
    }

    #[test]
    fn another_source_package_subfolder_or_host_is_not_the_installed_copy() {
        let m = manifest(
            r#",{"Key":"gpu","Source":"registry.terraform.io/terraform-aws-modules/autoscaling/aws","Dir":".terraform/modules/gpu"},
                {"Key":"private","Source":"app.terraform.io/acme/gpu/aws","Dir":".terraform/modules/private"},
                {"Key":"git","Source":"git::https://example.com/gpu.git?ref=v1","Dir":".terraform/modules/git"}"#,
        );
        let other =
            Lookup::OtherSource("registry.terraform.io/terraform-aws-modules/autoscaling/aws");
        assert_eq!(
            m.lookup("gpu", "terraform-aws-modules/ecs/aws", None),
            other
        );
        assert_eq!(
            m.lookup(
                "gpu",
                "terraform-aws-modules/autoscaling/aws//modules/x",
                None
            ),
            other
        );
        assert_eq!(
            m.lookup(
                "gpu",
                "example.com/terraform-aws-modules/autoscaling/aws",
                None
            ),
            other
        );
        // A registry address without a host is the public registry's, not a private one's.
        assert_eq!(
            m.lookup("private", "acme/gpu/aws", None),
            Lookup::OtherSource("app.terraform.io/acme/gpu/aws")
        );
        assert_eq!(
            m.lookup("git", "git::https://example.com/gpu.git?ref=v1", None),
            Lookup::Dir(".terraform/modules/git")
        );
        assert_eq!(
            m.lookup("git", "git::https://example.com/gpu.git?ref=v2", None),
            Lookup::OtherSource("git::https://example.com/gpu.git?ref=v1")
        );
        assert_eq!(
            m.lookup("missing", "acme/gpu/aws", None),
            Lookup::NotInstalled
        );
    }

    #[test]
    fn a_copy_at_a_version_the_call_no_longer_allows_is_not_the_installed_copy() {
        let m = manifest(
            r#",{"Key":"gpu","Source":"registry.terraform.io/acme/gpu/aws","Version":"7.2.0","Dir":".terraform/modules/gpu"},
                {"Key":"git","Source":"git::https://example.com/gpu.git?ref=v1","Dir":".terraform/modules/git"}"#,
        );
        let c = |text: &str| Constraints::parse(text).expect("a constraint");
        let dir = Lookup::Dir(".terraform/modules/gpu");
        assert_eq!(m.lookup("gpu", "acme/gpu/aws", None), dir);
        assert_eq!(m.lookup("gpu", "acme/gpu/aws", Some(&c("~> 7.0"))), dir);
        assert_eq!(m.lookup("gpu", "acme/gpu/aws", Some(&c("7.2.0"))), dir);
        assert_eq!(
            m.lookup("gpu", "acme/gpu/aws", Some(&c("~> 8.0"))),
            Lookup::OtherVersion(Some("7.2.0"))
        );
        assert_eq!(
            m.lookup("gpu", "acme/gpu/aws", Some(&c(">= 7.0, < 7.2"))),
            Lookup::OtherVersion(Some("7.2.0"))
        );
        // The source is compared first: a changed source is what `terraform plan` says.
        assert_eq!(
            m.lookup("gpu", "acme/other/aws", Some(&c("~> 8.0"))),
            Lookup::OtherSource("registry.terraform.io/acme/gpu/aws")
        );
        // No version recorded, while the call asks for one.
        assert_eq!(
            m.lookup(
                "git",
                "git::https://example.com/gpu.git?ref=v1",
                Some(&c("1.0"))
            ),
            Lookup::OtherVersion(None)
        );
    }

    #[test]
    fn git_shorthands_are_not_registry_addresses() {
        assert_eq!(registry_address("github.com/acme/gpu"), None);
        assert_eq!(
            registry_address("acme/gpu/aws"),
            Some(RegistryAddress {
                host: None,
                names: ["acme", "gpu", "aws"],
                subfolder: ""
            })
        );
        assert_eq!(
            registry_address("app.terraform.io/acme/gpu/aws//sub/dir"),
            Some(RegistryAddress {
                host: Some("app.terraform.io"),
                names: ["acme", "gpu", "aws"],
                subfolder: "sub/dir"
            })
        );
        assert!(!same_source(
            "git::https://github.com/acme/gpu.git",
            "github.com/acme/gpu"
        ));
    }

    #[test]
    fn a_manifest_that_is_not_one_says_where() {
        let err = Installed::parse("{\"Modules\": [\n  {\"Key\": 1}\n]}", PathBuf::new())
            .expect_err("invalid");
        assert_eq!(err.span.start, 16);
        assert!(err.message.contains("`Key` and a `Dir`"), "{}", err.message);
        let cut = "{\"Modules\": [";
        let err = Installed::parse(cut, PathBuf::new()).expect_err("cut short");
        assert!(err.span.start as usize <= cut.len(), "{err:?}");
        let err = Installed::parse(
            "{\"Modules\": [\n  {\"Key\": \"a\", \"Dir\": \"d\", \"Version\": \"latest\"}\n]}",
            PathBuf::new(),
        )
        .expect_err("not a version");
        assert_eq!(err.span.start, 16);
        assert!(
            err.message
                .contains("the version `latest` is not a version"),
            "{}",
            err.message
        );
        let err = Installed::parse("[]", PathBuf::new()).expect_err("not an object");
        assert!(err.message.contains("no `Modules` list"), "{}", err.message);
    }
}
