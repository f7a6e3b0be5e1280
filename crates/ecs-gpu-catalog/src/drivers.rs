//! NVIDIA driver facts: the driver each ECS GPU-optimized AMI release ships, the driver branches a
//! GPU family can use, the CUDA a driver supports and the two ways an image of a newer CUDA may run
//! anyway (minor version and forward compatibility), and the CUDA of well-known images. Every fact
//! carries source keys (docs/drivers.md).
//!
//! Answers are three-valued where the sources are: a driver a family is known to need, known not
//! to work with it, or not known; an image whose CUDA a source gives, or unknown (`latest`, a
//! digest, an unknown registry or release). Where forward compatibility may let an image run, the
//! answer is [`RunVerdict::MayRunForwardCompat`], never "cannot run".
//!
//! ```
//! use ecs_gpu_catalog::{catalog, CudaVersion, RunVerdict, Support};
//!
//! let drivers = &catalog().drivers;
//! // The driver of the newest Amazon Linux 2023 GPU AMI release the catalog knows.
//! let al2023 = drivers.newest_release("al2023").unwrap();
//! assert_eq!(al2023.driver.branch(), 580);
//! // G7 needs 595 or later.
//! assert_eq!(drivers.family_supports("g7", &al2023.driver), Support::No);
//! // CUDA 12.8 needs driver 570.26 or later.
//! let cuda = CudaVersion::parse("12.8").unwrap();
//! assert_eq!(drivers.min_driver_for_cuda(cuda).unwrap().to_string(), "570.26");
//! // The Amazon Linux 2 GPU AMI's 550 driver supports CUDA 12.4.
//! let al2 = drivers.newest_release("al2").unwrap();
//! assert_eq!(drivers.cuda_of_driver(&al2.driver).unwrap().to_string(), "12.4");
//! // An image's CUDA, from its reference.
//! let image = drivers.image_cuda("nvidia/cuda:12.9.0-runtime-ubuntu22.04").known().unwrap();
//! assert_eq!(image.cuda.to_string(), "12.9.0");
//! assert_eq!(drivers.can_run(&image, &al2023.driver), RunVerdict::Runs);
//! assert!(drivers.image_cuda("nvidia/cuda:latest").known().is_none());
//! ```

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;

/// An NVIDIA driver version (`580.95.05`, `570.26`), ordered by its numbers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DriverVersion {
    parts: [u32; 3],
    text: String,
}

impl DriverVersion {
    /// Parses `branch.minor[.patch]`. `None` for anything else.
    pub fn parse(s: &str) -> Option<DriverVersion> {
        let s = s.trim();
        let mut parts = [0u32; 3];
        let mut n = 0;
        for p in s.split('.') {
            if n == 3 || p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) || p.len() > 6 {
                return None;
            }
            parts[n] = p.parse().ok()?;
            n += 1;
        }
        (n >= 2).then(|| DriverVersion {
            parts,
            text: s.to_string(),
        })
    }

    /// The driver branch (`580` of `580.95.05`).
    pub fn branch(&self) -> u32 {
        self.parts[0]
    }
}

impl Ord for DriverVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.parts.cmp(&other.parts)
    }
}

impl PartialOrd for DriverVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for DriverVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for DriverVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        DriverVersion::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("not a driver version: {s:?}")))
    }
}

/// A CUDA version (`12.8`, `12.4.1`). Two versions compare by major, minor, then patch (a missing
/// patch is 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CudaVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: Option<u32>,
}

impl CudaVersion {
    /// Parses `major.minor[.patch]` (a fourth part, as in `13.0.0.044`, is dropped).
    pub fn parse(s: &str) -> Option<CudaVersion> {
        let mut it = s.trim().split('.');
        let num = |p: Option<&str>| -> Option<u32> {
            let p = p?;
            (!p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse().ok())
                .flatten()
        };
        let major = num(it.next())?;
        let minor = num(it.next())?;
        let patch = match it.next() {
            None => None,
            Some(p) => Some(num(Some(p))?),
        };
        Some(CudaVersion {
            major,
            minor,
            patch,
        })
    }

    /// The same version without its patch: what `NVIDIA_REQUIRE_CUDA` compares (`cuda>=12.8`).
    pub fn major_minor(self) -> CudaVersion {
        CudaVersion {
            patch: None,
            ..self
        }
    }

    fn key(self) -> (u32, u32, u32) {
        (self.major, self.minor, self.patch.unwrap_or(0))
    }
}

impl Ord for CudaVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for CudaVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.patch {
            Some(p) => write!(f, "{}.{}.{p}", self.major, self.minor),
            None => write!(f, "{}.{}", self.major, self.minor),
        }
    }
}

impl<'de> Deserialize<'de> for CudaVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        CudaVersion::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("not a CUDA version: {s:?}")))
    }
}

/// One ECS GPU-optimized AMI release of one variant, and the driver it ships.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmiRelease {
    /// `YYYYMMDD`.
    pub release: String,
    /// [`crate::GpuAmiParameter::variant`]: `al2023`, `al2` or `al2-kernel-5.10`.
    pub variant: String,
    #[serde(rename = "nvidia_driver")]
    pub driver: DriverVersion,
    /// The CUDA version the release notes give (the Amazon Linux 2 GPU AMIs only).
    pub cuda: Option<CudaVersion>,
    /// `true`: the build installs exactly this driver; `false`: the version the release process
    /// tracked for what the build installed, right to the branch; `None`: from release notes.
    pub installs_exactly: Option<bool>,
    pub sources: Vec<String>,
}

/// Whether a driver can drive a GPU, or an image can run: as far as the sources say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Support {
    Yes,
    No,
    /// No source says either way.
    Unknown,
}

/// What the sources say about the driver branches a GPU family can use.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyDriverNeeds {
    pub gpu: String,
    /// Branches below it cannot drive the GPU; it and later ones can (G7: 595).
    pub min_branch: Option<u32>,
    /// Branches above it cannot drive the GPU; it and earlier ones can (p2's K80: 470).
    pub max_branch: Option<u32>,
    /// Branches that cannot drive it (595 for P3, P3dn and G6f).
    #[serde(default)]
    pub unsupported_branches: Vec<u32>,
    /// The first driver version a source lists the GPU for: it and later versions of its branch,
    /// and later branches, drive it. Earlier ones are not known either way.
    pub supported_from: Option<DriverVersion>,
    pub note: String,
    pub sources: Vec<String>,
}

impl FamilyDriverNeeds {
    /// Whether `driver` can drive the family's GPUs.
    pub fn supports(&self, driver: &DriverVersion) -> Support {
        let b = driver.branch();
        if self.min_branch.is_some_and(|m| b < m)
            || self.max_branch.is_some_and(|m| b > m)
            || self.unsupported_branches.contains(&b)
        {
            return Support::No;
        }
        if self.min_branch.is_some() || self.max_branch.is_some() {
            return Support::Yes;
        }
        match &self.supported_from {
            Some(from) if b > from.branch() || (b == from.branch() && driver >= from) => {
                Support::Yes
            }
            _ => Support::Unknown,
        }
    }

    /// "needs driver 595 or later", "not driver 595", "driver 470 or older", "known to work
    /// from driver 575.57.08": what the sources say, for messages.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = self.min_branch {
            parts.push(format!("needs NVIDIA driver {m} or later"));
        }
        if let Some(m) = self.max_branch {
            parts.push(format!("needs NVIDIA driver {m} or older"));
        }
        if !self.unsupported_branches.is_empty() {
            let b: Vec<String> = self
                .unsupported_branches
                .iter()
                .map(u32::to_string)
                .collect();
            parts.push(format!("cannot use NVIDIA driver {}", b.join(" or ")));
        }
        if let Some(v) = &self.supported_from {
            parts.push(format!("runs on NVIDIA driver {v} and later"));
        }
        parts.join("; ")
    }
}

/// One row of NVIDIA's CUDA toolkit driver table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolkitDriver {
    /// As NVIDIA names it (`CUDA 12.8 Update 1`).
    pub toolkit: String,
    pub cuda: CudaVersion,
    pub min_driver: DriverVersion,
}

/// The driver branches on which a CUDA major release runs through minor version compatibility.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinorCompat {
    pub major: u32,
    pub min_branch: u32,
}

/// How an image's CUDA is read from its reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CudaFrom {
    /// The tag starts with the CUDA version (`nvidia/cuda:12.4.1-base-ubuntu22.04`).
    TagPrefix,
    /// The tag carries `-cuda<major.minor>-` (`pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime`).
    TagCudaInfix,
    /// The release (the tag, or its part before the first `-`) is in the entry's table.
    Release,
}

/// What the NVIDIA runtime checks when the image's container starts ([`ContainerRequirement`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartCheck {
    /// `NVIDIA_REQUIRE_CUDA` with brand and driver-branch alternatives (the NVIDIA CUDA images).
    Alternatives,
    /// No `NVIDIA_REQUIRE_*` variable: no check.
    None,
    /// Not recorded.
    Unknown,
}

/// One release of an image whose CUDA a source gives.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageRelease {
    pub tag: String,
    pub cuda: CudaVersion,
    /// The driver branches the release's notes say a data center GPU may use instead of the one
    /// its CUDA needs (`470.57 (or later R470), 525.85 (or later R525)`: 470, 525), through the
    /// CUDA compatibility package: a stated forward compatibility path for this release. Empty
    /// when the page states none.
    #[serde(default)]
    pub data_center_branches: Vec<u32>,
    /// The page the row was read from.
    pub url: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

/// An image repository whose CUDA the catalog can read.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageEntry {
    /// As written after an optional `docker.io/` (`nvidia/cuda`, `nvcr.io/nvidia/tritonserver`).
    pub repository: String,
    pub cuda_from: CudaFrom,
    /// When set, only tags ending with it are read (`-runtime`).
    pub tag_suffix: Option<String>,
    pub start_check: StartCheck,
    /// Whether the image carries the CUDA compatibility package; `None` when not known.
    pub compat_package: Option<bool>,
    #[serde(default)]
    pub releases: Vec<ImageRelease>,
    /// For an entry read by release: what may follow the release in a tag of the image its
    /// release notes describe (`-py3` of `24.05-py3`). Another tag of the release
    /// (`24.05-trtllm-python-py3`, another image with its own CUDA) is read only when a row names
    /// it whole. Empty: any.
    #[serde(default)]
    pub release_tag_suffixes: Vec<String>,
    pub sources: Vec<String>,
}

/// An image whose CUDA is known.
#[derive(Debug, Clone, Copy)]
pub struct KnownImage<'a> {
    pub cuda: CudaVersion,
    pub entry: &'a ImageEntry,
    /// The release row the CUDA comes from, for an entry read by release.
    pub release: Option<&'a ImageRelease>,
}

impl KnownImage<'_> {
    /// The source keys of this answer.
    pub fn sources(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self.entry.sources.iter().map(String::as_str).collect();
        if let Some(r) = self.release {
            keys.extend(r.sources.iter().map(String::as_str));
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

/// Why an image's CUDA is not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownImage {
    /// No tag or `latest`: the image moves.
    Floating,
    /// Pinned by digest only.
    Digest,
    /// A repository the catalog does not list.
    NotListed,
    /// A listed repository whose tag (or release) says nothing the catalog reads.
    TagNotListed,
}

/// The CUDA an image reference needs, as far as the catalog knows.
#[derive(Debug, Clone, Copy)]
pub enum ImageCuda<'a> {
    Known(KnownImage<'a>),
    Unknown(UnknownImage),
}

impl<'a> ImageCuda<'a> {
    pub fn known(self) -> Option<KnownImage<'a>> {
        match self {
            ImageCuda::Known(k) => Some(k),
            ImageCuda::Unknown(_) => None,
        }
    }
}

/// Whether an image can run on a driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunVerdict {
    /// The driver supports the image's CUDA release.
    Runs,
    /// Same CUDA major release: minor version compatibility may run it, with its limits (the
    /// features of the newer release, and code compiled on the fly, are not available). Under the
    /// NVIDIA runtime's legacy mode, an image whose start check has no alternative for the
    /// driver's branch does not start.
    MayRunMinorCompat,
    /// The image carries the CUDA compatibility package, or its release's notes list the
    /// driver's branch for data center GPUs: it may run through forward compatibility, on a data
    /// center GPU, if the package supports the driver's branch.
    MayRunForwardCompat,
    /// No compatibility path applies: why.
    Cannot(String),
    /// The driver's CUDA is not known.
    Unknown,
}

/// The NVIDIA runtime's start check (`NVIDIA_REQUIRE_*`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContainerRequirement {
    /// `NVIDIA_REQUIRE_`: every variable with it is a requirement.
    pub prefix: String,
    /// `NVIDIA_REQUIRE_CUDA`.
    pub cuda_variable: String,
    /// `NVIDIA_DISABLE_REQUIRE`: `true` turns the check off.
    pub disable_variable: String,
    pub note: String,
    /// The first release of each variant whose runtime runs in CDI mode, which checks nothing.
    pub cdi_from_release: BTreeMap<String, String>,
    pub sources: Vec<String>,
}

/// Forward compatibility (source key CUDA-FC).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForwardCompatibility {
    /// The GPUs it applies to.
    pub gpus: String,
    /// `cuda-compat-<major>-<minor>`.
    pub package: String,
    pub note: String,
    pub sources: Vec<String>,
}

impl ForwardCompatibility {
    /// The compatibility package of one CUDA release (`cuda-compat-13-0` of 13.0.2).
    pub fn package_of(&self, cuda: CudaVersion) -> String {
        self.package
            .replace("<major>", &cuda.major.to_string())
            .replace("<minor>", &cuda.minor.to_string())
    }
}

/// What the sources say of an AMI variant's driver.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmiVariantDriver {
    /// The driver branch its builds are pinned to.
    pub pinned_major: Option<u32>,
    pub note: String,
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Rows<T> {
    sources: Vec<String>,
    rows: Vec<T>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDrivers {
    ami_releases: Vec<AmiRelease>,
    ami_variants: BTreeMap<String, AmiVariantDriver>,
    cuda_toolkit_drivers: Rows<ToolkitDriver>,
    minor_version_compatibility: Rows<MinorCompat>,
    forward_compatibility: ForwardCompatibility,
    container_requirement: ContainerRequirement,
    families: BTreeMap<String, FamilyDriverNeeds>,
    images: Vec<ImageEntry>,
}

/// The NVIDIA driver facts of the catalog ([`crate::Catalog::drivers`]).
#[derive(Debug, Clone)]
pub struct DriverFacts {
    ami_releases: Vec<AmiRelease>,
    /// Per AMI variant, what its builds pin.
    pub ami_variants: BTreeMap<String, AmiVariantDriver>,
    toolkit: Vec<ToolkitDriver>,
    /// The source keys of the CUDA toolkit driver table.
    pub toolkit_sources: Vec<String>,
    minor_compat: Vec<MinorCompat>,
    /// The source keys of the minor version compatibility table.
    pub minor_compat_sources: Vec<String>,
    pub forward_compatibility: ForwardCompatibility,
    pub container_requirement: ContainerRequirement,
    families: BTreeMap<String, FamilyDriverNeeds>,
    images: Vec<ImageEntry>,
}

impl From<RawDrivers> for DriverFacts {
    fn from(r: RawDrivers) -> Self {
        DriverFacts {
            ami_releases: r.ami_releases,
            ami_variants: r.ami_variants,
            toolkit: r.cuda_toolkit_drivers.rows,
            toolkit_sources: r.cuda_toolkit_drivers.sources,
            minor_compat: r.minor_version_compatibility.rows,
            minor_compat_sources: r.minor_version_compatibility.sources,
            forward_compatibility: r.forward_compatibility,
            container_requirement: r.container_requirement,
            families: r.families,
            images: r.images,
        }
    }
}

impl DriverFacts {
    /// Every ECS GPU AMI release the catalog knows, by variant, then release.
    pub fn ami_releases(&self) -> &[AmiRelease] {
        &self.ami_releases
    }

    /// The releases of one variant, oldest first.
    pub fn releases<'a>(&'a self, variant: &'a str) -> impl Iterator<Item = &'a AmiRelease> + 'a {
        self.ami_releases
            .iter()
            .filter(move |r| r.variant == variant)
    }

    fn of_variant(&self, variant: &str) -> impl Iterator<Item = &AmiRelease> {
        let variant = variant.to_string();
        self.ami_releases
            .iter()
            .filter(move |r| r.variant == variant)
    }

    /// One release of a variant (`YYYYMMDD`), when the catalog knows its driver.
    pub fn release(&self, variant: &str, release: &str) -> Option<&AmiRelease> {
        self.of_variant(variant).find(|r| r.release == release)
    }

    /// The newest release of a variant the catalog knows: what its `recommended` parameter gave
    /// when the catalog was built.
    pub fn newest_release(&self, variant: &str) -> Option<&AmiRelease> {
        self.of_variant(variant)
            .max_by(|a, b| a.release.cmp(&b.release))
    }

    /// The release an AMI reference ships: `release` when pinned, else the newest.
    pub fn ami_release(&self, variant: &str, release: Option<&str>) -> Option<&AmiRelease> {
        match release {
            Some(r) => self.release(variant, r),
            None => self.newest_release(variant),
        }
    }

    /// Whether the variant's driver has changed across its known releases (the driver moves
    /// with each release of its `recommended` parameter).
    pub fn driver_moves(&self, variant: &str) -> bool {
        let mut drivers = self.of_variant(variant).map(|r| &r.driver);
        let Some(first) = drivers.next() else {
            return false;
        };
        drivers.any(|d| d != first)
    }

    /// What the sources say of a family's driver branches (`None`: nothing recorded).
    pub fn family_needs(&self, family: &str) -> Option<&FamilyDriverNeeds> {
        self.families.get(family)
    }

    /// The families with recorded driver needs.
    pub fn families(&self) -> impl Iterator<Item = (&str, &FamilyDriverNeeds)> {
        self.families.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Whether `driver` can drive the GPUs of `family` ([`Support::Unknown`] when nothing is
    /// recorded for the family).
    pub fn family_supports(&self, family: &str, driver: &DriverVersion) -> Support {
        self.family_needs(family)
            .map_or(Support::Unknown, |n| n.supports(driver))
    }

    /// NVIDIA's CUDA toolkit driver table, newest CUDA first.
    pub fn toolkit_drivers(&self) -> &[ToolkitDriver] {
        &self.toolkit
    }

    /// The minimum driver of a CUDA release: of `12.8.1` its update's row, of `12.8` (or
    /// `12.8.0`) its first release's. `None` when the table has no such release.
    pub fn min_driver_for_cuda(&self, cuda: CudaVersion) -> Option<&DriverVersion> {
        let same_minor = self
            .toolkit
            .iter()
            .filter(|r| r.cuda.major == cuda.major && r.cuda.minor == cuda.minor);
        match cuda.patch {
            Some(p) if p > 0 => same_minor
                .filter(|r| r.cuda.patch == Some(p))
                .map(|r| &r.min_driver)
                .next(),
            _ => same_minor.min_by_key(|r| r.cuda).map(|r| &r.min_driver),
        }
    }

    /// The CUDA release (major.minor) a driver supports: the newest whose first release's minimum
    /// it meets. `None` below the table.
    pub fn cuda_of_driver(&self, driver: &DriverVersion) -> Option<CudaVersion> {
        let mut best: Option<CudaVersion> = None;
        for r in &self.toolkit {
            let mm = r.cuda.major_minor();
            let Some(first) = self.min_driver_for_cuda(mm) else {
                continue;
            };
            if driver >= first && best.is_none_or(|b| mm > b) {
                best = Some(mm);
            }
        }
        best
    }

    /// The lowest driver branch on which a CUDA major release runs through minor version
    /// compatibility.
    pub fn minor_compat_branch(&self, major: u32) -> Option<u32> {
        self.minor_compat
            .iter()
            .find(|r| r.major == major)
            .map(|r| r.min_branch)
    }

    /// The image repositories whose CUDA the catalog reads.
    pub fn images(&self) -> &[ImageEntry] {
        &self.images
    }

    /// The CUDA an image reference needs (`nvidia/cuda:12.4.1-base-ubuntu22.04`,
    /// `docker.io/pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime`,
    /// `nvcr.io/nvidia/tritonserver:23.11-py3`). A reference without a tag, with `latest`, pinned
    /// by digest alone, of a repository or release the catalog does not list, is unknown.
    pub fn image_cuda(&self, image: &str) -> ImageCuda<'_> {
        let image = image.trim();
        let image = image
            .strip_prefix("docker.io/")
            .or_else(|| image.strip_prefix("index.docker.io/"))
            .unwrap_or(image);
        let (name, digest) = match image.split_once('@') {
            Some((n, d)) => (n, Some(d)),
            None => (image, None),
        };
        let (repository, tag) = match name.rfind(':') {
            Some(i) if !name[i..].contains('/') => (&name[..i], Some(&name[i + 1..])),
            _ => (name, None),
        };
        let repository = repository.strip_prefix("library/").unwrap_or(repository);
        let Some(entry) = self.images.iter().find(|e| e.repository == repository) else {
            return ImageCuda::Unknown(UnknownImage::NotListed);
        };
        let tag = match tag {
            Some(t) if !t.is_empty() && t != "latest" => t,
            _ if digest.is_some() => return ImageCuda::Unknown(UnknownImage::Digest),
            _ => return ImageCuda::Unknown(UnknownImage::Floating),
        };
        if entry
            .tag_suffix
            .as_deref()
            .is_some_and(|s| !tag.ends_with(s))
        {
            return ImageCuda::Unknown(UnknownImage::TagNotListed);
        }
        let found = match entry.cuda_from {
            CudaFrom::TagPrefix => {
                let head = tag.split('-').next().unwrap_or_default();
                (head.split('.').count() >= 2)
                    .then(|| CudaVersion::parse(head))
                    .flatten()
                    .map(|cuda| (cuda, None))
            }
            CudaFrom::TagCudaInfix => tag
                .split('-')
                .find_map(|p| p.strip_prefix("cuda"))
                .and_then(CudaVersion::parse)
                .map(|cuda| (cuda, None)),
            CudaFrom::Release => {
                let (head, rest) = tag.split_at(tag.find('-').unwrap_or(tag.len()));
                let by_release = rest.is_empty()
                    || entry.release_tag_suffixes.is_empty()
                    || entry.release_tag_suffixes.iter().any(|s| s == rest);
                entry
                    .releases
                    .iter()
                    .find(|r| r.tag == tag)
                    .or_else(|| {
                        by_release
                            .then(|| entry.releases.iter().find(|r| r.tag == head))
                            .flatten()
                    })
                    .map(|r| (r.cuda, Some(r)))
            }
        };
        match found {
            Some((cuda, release)) => ImageCuda::Known(KnownImage {
                cuda,
                entry,
                release,
            }),
            None => ImageCuda::Unknown(UnknownImage::TagNotListed),
        }
    }

    /// Whether an image can run on a driver, and if only maybe, through which compatibility.
    pub fn can_run(&self, image: &KnownImage<'_>, driver: &DriverVersion) -> RunVerdict {
        let Some(supported) = self.cuda_of_driver(driver) else {
            return RunVerdict::Unknown;
        };
        let needs = image.cuda.major_minor();
        if supported >= needs {
            return RunVerdict::Runs;
        }
        if needs.major == supported.major {
            return match self.minor_compat_branch(needs.major) {
                Some(b) if driver.branch() >= b => RunVerdict::MayRunMinorCompat,
                _ => RunVerdict::Unknown,
            };
        }
        // The release's own notes list the driver's branch for data center GPUs: a stated forward
        // compatibility path, whatever is recorded of the image's compatibility package.
        if image
            .release
            .is_some_and(|r| r.data_center_branches.contains(&driver.branch()))
        {
            return RunVerdict::MayRunForwardCompat;
        }
        match image.entry.compat_package {
            Some(true) => RunVerdict::MayRunForwardCompat,
            Some(false) => RunVerdict::Cannot(format!(
                "minor version compatibility does not reach from CUDA {} to CUDA {}, and the image carries no `{}` package for forward compatibility",
                supported.major,
                needs.major,
                self.forward_compatibility.package_of(needs)
            )),
            None => RunVerdict::Unknown,
        }
    }

    /// Whether the NVIDIA runtime of an AMI release checks the image's `NVIDIA_REQUIRE_*` at
    /// container start (legacy mode), rather than not at all (CDI mode).
    pub fn start_check_runs(&self, variant: &str, release: &str) -> bool {
        self.container_requirement
            .cdi_from_release
            .get(variant)
            .is_none_or(|first| release < first.as_str())
    }
}
