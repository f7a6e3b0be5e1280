//! Where the image of a launch template or instance comes from, and what is known of it.

use ecs_gpu_catalog::{catalog, AmiClass, AmiNameClass};
use ecs_gpu_model::{Loc, Model, Node, Resource, UnknownReason, Value};

use super::graph::{inline_specification, is_standalone_instance, known_str};
use crate::task::every_known_string;
use crate::{reads, Reads};

/// What [`ami_source`] and [`image_attr`] read: the image argument, and the data sources and SSM
/// parameters it refers to.
pub const AMI: Reads = reads! {
    whole: ["aws_ami", "aws_ssm_parameter", "aws_ssm_parameters_by_path"],
    arguments: {
        "aws_instance": ["ami"],
        "aws_launch_configuration": ["image_id"],
        "aws_launch_template": ["image_id"],
        "aws_spot_fleet_request": ["launch_specification"],
    },
};

/// Where a launch template's image comes from.
#[derive(Debug, Clone)]
pub enum AmiSource<'m> {
    /// An SSM parameter: `data "aws_ssm_parameter"`'s `name`, or a `resolve:ssm:` image ID.
    SsmParameter {
        /// The parameter's name.
        name: String,
        /// The parameter name as written (the data source's `name`, or the `image_id`).
        at: Option<Loc>,
        /// The `aws_ssm_parameter` data source, when the name is read from one.
        data: Option<&'m Resource>,
    },
    /// A `data "aws_ami"` with a known `name` filter or `name_regex`, classified.
    AmiLookup {
        /// The `aws_ami` data source.
        data: &'m Resource,
        /// What its name says of the image.
        class: AmiNameClass,
        /// The filter value or regex.
        at: Option<Loc>,
        /// The filter value or regex, as written.
        pattern: String,
    },
    /// A literal `ami-...` ID.
    LiteralId {
        /// The image ID.
        id: String,
        /// Where it is written.
        at: Option<Loc>,
    },
    /// Not known (a variable, a data source's result, a reference to another resource).
    Unknown,
}

impl AmiSource<'_> {
    /// Where the image is written: the parameter name, the name filter, or the literal ID.
    pub fn at(&self) -> Option<Loc> {
        match self {
            AmiSource::SsmParameter { at, .. }
            | AmiSource::AmiLookup { at, .. }
            | AmiSource::LiteralId { at, .. } => *at,
            AmiSource::Unknown => None,
        }
    }

    /// The SSM parameter's class, for [`AmiSource::SsmParameter`].
    pub fn parameter_class(&self) -> Option<AmiClass<'static>> {
        match self {
            AmiSource::SsmParameter { name, .. } => Some(catalog().ami.classify_parameter(name)),
            _ => None,
        }
    }

    /// Known to be an ECS GPU-optimized AMI.
    pub fn is_ecs_gpu(&self) -> bool {
        match self {
            AmiSource::SsmParameter { .. } => {
                matches!(self.parameter_class(), Some(AmiClass::EcsGpu { .. }))
            }
            AmiSource::AmiLookup { class, .. } => matches!(class, AmiNameClass::EcsGpu { .. }),
            _ => false,
        }
    }

    /// Known to be an ECS-optimized AMI of a non-GPU variant.
    pub fn is_ecs_non_gpu(&self) -> bool {
        match self {
            AmiSource::SsmParameter { .. } => {
                matches!(self.parameter_class(), Some(AmiClass::EcsNonGpu { .. }))
            }
            AmiSource::AmiLookup { class, .. } => matches!(class, AmiNameClass::EcsNonGpu { .. }),
            _ => false,
        }
    }

    /// Known to be an ECS-optimized AMI, of the GPU variant or not.
    pub fn is_ecs_optimized(&self) -> bool {
        self.is_ecs_gpu()
            || self.is_ecs_non_gpu()
            || matches!(
                self,
                AmiSource::AmiLookup {
                    class: AmiNameClass::EcsAnyVariant { .. },
                    ..
                }
            )
    }
}

/// The image argument of a launch template (`image_id`) or of an `aws_instance` (`ami`).
pub fn image_attr(template: &Resource) -> Option<&Node> {
    if let Some(spec) = inline_specification(template) {
        return spec.body.attr("ami");
    }
    let name = if is_standalone_instance(template) {
        "ami"
    } else {
        "image_id"
    };
    template.body.attr(name)
}

/// The image source of a launch template (or of an `aws_instance`).
pub fn ami_source<'m>(model: &'m Model, template: &'m Resource) -> AmiSource<'m> {
    let Some(node) = image_attr(template) else {
        return AmiSource::Unknown;
    };
    if let Some(s) = known_str(node) {
        if let Some(param) = s.strip_prefix("resolve:ssm:") {
            // `resolve:ssm:name:version` / `name:label`: the name is before a `:` after the path.
            let name = match param.rfind(':') {
                Some(i) if param[..i].contains('/') => &param[..i],
                _ => param,
            };
            return AmiSource::SsmParameter {
                name: name.to_string(),
                at: node.loc,
                data: None,
            };
        }
        if s.starts_with("ami-") {
            return AmiSource::LiteralId {
                id: s.to_string(),
                at: node.loc,
            };
        }
        return AmiSource::Unknown;
    }
    // The value must be the data source's result itself (or a function of it alone): an unknown
    // for another reason (a conditional on a variable without a value, `var.pinned ? "ami-..." :
    // data.aws_ssm_parameter.x.value`) might be something else, and so might a value over two
    // data sources.
    if !matches!(&node.value, Value::Unknown(u) if u.reason == UnknownReason::DataSource) {
        return AmiSource::Unknown;
    }
    let refs = node.refs();
    let mut addresses: Vec<&str> = refs.iter().map(|r| r.address.as_str()).collect();
    addresses.sort_unstable();
    addresses.dedup();
    if addresses.len() != 1 {
        return AmiSource::Unknown;
    }
    let ssm = model.referenced(node, "aws_ssm_parameter");
    if let [data] = ssm.as_slice() {
        if let Some(name_node) = data.body.attr("name") {
            if let Some(name) = known_str(name_node) {
                return AmiSource::SsmParameter {
                    name: name.to_string(),
                    at: name_node.loc,
                    data: Some(data),
                };
            }
        }
        return AmiSource::Unknown;
    }
    // `data "aws_ssm_parameters_by_path"` over an AMI parameter's path, with the image ID picked
    // from its values (`values[index(names, "${path}/image_id")]`): every parameter under the
    // path is of that AMI, so the path classifies it as a parameter name would.
    let by_path = model.referenced(node, "aws_ssm_parameters_by_path");
    if let [data] = by_path.as_slice() {
        if let Some(path_node) = data.body.attr("path") {
            if let Some(path) = known_str(path_node) {
                return AmiSource::SsmParameter {
                    name: path.trim_end_matches('/').to_string(),
                    at: path_node.loc,
                    data: Some(data),
                };
            }
        }
        return AmiSource::Unknown;
    }
    let amis = model.referenced(node, "aws_ami");
    if let [data] = amis.as_slice() {
        return ami_lookup(data);
    }
    AmiSource::Unknown
}

/// Whether a `data "aws_ami"` is scoped to images Amazon owns: `owners` known and only Amazon's
/// alias, or an `owner-alias` filter whose values are only that alias.
fn owned_by_amazon(data: &Resource) -> bool {
    let alias = catalog().ami.amazon_owner_alias.as_str();
    let only_alias = |node: &Node| {
        every_known_string(node).is_some_and(|owners| owners.iter().all(|o| *o == alias))
    };
    data.body.attr("owners").is_some_and(only_alias)
        || data.body.blocks("filter").any(|f| {
            f.body.attr("name").and_then(known_str) == Some("owner-alias")
                && f.body.attr("values").is_some_and(only_alias)
        })
}

/// What a `data "aws_ami"` says about the image: its `name` filter or `name_regex`, classified
/// ([`ecs_gpu_catalog::AmiFacts::classify_name`]), when the lookup is scoped to Amazon's images
/// ([`owned_by_amazon`]); unknown otherwise.
fn ami_lookup(data: &Resource) -> AmiSource<'_> {
    if data.body.may_have_unknown("filter") || !owned_by_amazon(data) {
        return AmiSource::Unknown;
    }
    // Every `name` filter must hold; one whose values all classify alike decides.
    for f in data.body.blocks("filter") {
        let Some(name) = f.body.attr("name").and_then(known_str) else {
            return AmiSource::Unknown;
        };
        if name != "name" {
            continue;
        }
        let Some(values) = f.body.attr("values").and_then(Node::as_list) else {
            return AmiSource::Unknown;
        };
        let mut class = None;
        let mut first = None;
        for v in values {
            let Some(s) = known_str(v) else {
                return AmiSource::Unknown;
            };
            let c = catalog().ami.classify_name(s);
            if first.is_none() {
                first = Some((s.to_string(), v.loc));
            }
            class = match class {
                None => Some(c),
                Some(prev) => match both_classes(prev, c) {
                    Some(both) => Some(both),
                    None => return AmiSource::Unknown,
                },
            };
        }
        if let (Some(class), Some((pattern, at))) = (class, first) {
            if class != AmiNameClass::Unknown {
                return AmiSource::AmiLookup {
                    data,
                    class,
                    at,
                    pattern,
                };
            }
        }
    }
    if let Some(re) = data.body.attr("name_regex") {
        if let Some(s) = known_str(re) {
            // The literal beginning of an anchored regex, as a name pattern.
            if let Some(rest) = s.strip_prefix('^') {
                let literal: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .collect();
                if !literal.is_empty() {
                    let pattern = format!("{literal}*");
                    let class = catalog().ami.classify_name(&pattern);
                    if class != AmiNameClass::Unknown {
                        return AmiSource::AmiLookup {
                            data,
                            class,
                            at: re.loc,
                            pattern: s.to_string(),
                        };
                    }
                }
            }
        }
    }
    AmiSource::Unknown
}

/// What two values of one name filter (either may match) say together: the same kind of AMI, and
/// Amazon Linux 2 only when both are (`amzn2-...` or `al2023-...` is not known to be either);
/// `None` when they are different kinds.
fn both_classes(a: AmiNameClass, b: AmiNameClass) -> Option<AmiNameClass> {
    use AmiNameClass::*;
    Some(match (a, b) {
        (EcsGpu { amazon_linux_2: x }, EcsGpu { amazon_linux_2: y }) => EcsGpu {
            amazon_linux_2: x && y,
        },
        (EcsNonGpu { amazon_linux_2: x }, EcsNonGpu { amazon_linux_2: y }) => EcsNonGpu {
            amazon_linux_2: x && y,
        },
        (EcsAnyVariant { amazon_linux_2: x }, EcsAnyVariant { amazon_linux_2: y }) => {
            EcsAnyVariant {
                amazon_linux_2: x && y,
            }
        }
        (Unknown, Unknown) => Unknown,
        _ => return None,
    })
}
