//! A small grammar of Terraform expressions for the evaluator target: literals, references to
//! the module's own locals and variable, operators, conditionals, `for` expressions, splats,
//! indexes, templates and calls of the functions the evaluator knows. Sizes stay small (ranges
//! of at most 255, shallow nesting): the target looks for panics and wrong handling, not for the
//! memory bombs (a `range` or `for` that builds gigabytes), which the hostile suite covers.

use arbitrary::{Arbitrary, Result, Unstructured};

/// How deep an expression may nest.
const DEPTH: u32 = 6;

/// Functions the evaluator models, with the number of arguments to give them.
const FUNCTIONS: &[(&str, usize)] = &[
    ("length", 1),
    ("join", 2),
    ("split", 2),
    ("concat", 2),
    ("flatten", 1),
    ("merge", 2),
    ("lookup", 3),
    ("element", 2),
    ("index", 2),
    ("contains", 2),
    ("keys", 1),
    ("values", 1),
    ("zipmap", 2),
    ("distinct", 1),
    ("sort", 1),
    ("reverse", 1),
    ("slice", 3),
    ("range", 1),
    ("range", 3),
    ("min", 2),
    ("max", 2),
    ("abs", 1),
    ("ceil", 1),
    ("floor", 1),
    ("pow", 2),
    ("tostring", 1),
    ("tonumber", 1),
    ("tobool", 1),
    ("tolist", 1),
    ("toset", 1),
    ("tomap", 1),
    ("upper", 1),
    ("lower", 1),
    ("trimspace", 1),
    ("replace", 3),
    ("substr", 3),
    ("format", 2),
    ("formatlist", 2),
    ("regex", 2),
    ("can", 1),
    ("try", 2),
    ("coalesce", 2),
    ("compact", 1),
    ("one", 1),
    ("sum", 1),
    ("jsonencode", 1),
    ("jsondecode", 1),
    ("base64encode", 1),
    ("base64decode", 1),
    ("startswith", 2),
    ("endswith", 2),
    ("setproduct", 2),
    ("chunklist", 2),
    ("cidrsubnet", 3),
    ("sensitive", 1),
    ("nonsensitive", 1),
    ("file", 1),
    ("templatefile", 2),
    ("parseint", 2),
    ("strrev", 1),
    ("transpose", 1),
    ("alltrue", 1),
    ("anytrue", 1),
    ("setunion", 2),
    ("setintersection", 2),
    ("setsubtract", 2),
];

const STRINGS: &[&str] = &[
    "",
    "a",
    "GPU",
    "1",
    "-1",
    "1.5",
    "1e999",
    "g5.xlarge",
    "p4d.24xlarge",
    "EC2",
    "FARGATE",
    "true",
    "null",
    "[1,2]",
    "{\"a\":1}",
    "%s-%d",
    "a,b,c",
    "ami-0",
    "${",
    "\\n",
    "é",
    "\u{1b}[2J",
    "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended",
];

const NUMBERS: &[&str] = &[
    "0", "1", "-1", "2", "4", "8", "255", "1.5", "-0.5", "1e3", "1e308",
];

/// A quoted HCL string literal of `s`.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.replace("${", "$${").replace("%{", "%%{") + "\""
}

/// One expression, rendered as HCL.
#[derive(Debug)]
pub struct Expr(pub String);

impl Expr {
    fn gen(u: &mut Unstructured<'_>, depth: u32) -> Result<String> {
        let leaf = depth == 0 || u.is_empty();
        let choice = if leaf {
            u.int_in_range(0..=4)?
        } else {
            u.int_in_range(0..=17)?
        };
        Ok(match choice {
            0 => (*u.choose(NUMBERS)?).to_string(),
            1 => quote(u.choose(STRINGS)?),
            2 => (*u.choose(&["true", "false", "null"])?).to_string(),
            3 => {
                (*u.choose(&["local.a", "local.b", "local.c", "var.v", "count.index"])?).to_string()
            }
            4 => format!("{}", u.int_in_range(0u8..=255)?),
            5 => {
                let n = u.int_in_range(0..=4)?;
                let items: Result<Vec<String>> = (0..n).map(|_| Self::gen(u, depth - 1)).collect();
                format!("[{}]", items?.join(", "))
            }
            6 => {
                let n = u.int_in_range(0..=3)?;
                let mut items = Vec::new();
                for _ in 0..n {
                    let key = u.choose(&["a", "b", "name", "value", "type", "\"x y\""])?;
                    items.push(format!("{key} = {}", Self::gen(u, depth - 1)?));
                }
                format!("{{ {} }}", items.join(", "))
            }
            7 => {
                let op = u.choose(&["+", "-", "*", "/", "%", "==", "!=", "<", ">=", "&&", "||"])?;
                format!(
                    "({} {op} {})",
                    Self::gen(u, depth - 1)?,
                    Self::gen(u, depth - 1)?
                )
            }
            8 => format!(
                "({} ? {} : {})",
                Self::gen(u, depth - 1)?,
                Self::gen(u, depth - 1)?,
                Self::gen(u, depth - 1)?
            ),
            9 => format!(
                "[for x in {} : {}{}]",
                Self::gen(u, depth - 1)?,
                Self::gen_with(u, depth - 1, "x")?,
                if u.arbitrary()? {
                    format!(" if {}", Self::gen_with(u, depth - 1, "x")?)
                } else {
                    String::new()
                }
            ),
            10 => format!(
                "{{for k, v in {} : tostring(k) => {}{}}}",
                Self::gen(u, depth - 1)?,
                Self::gen_with(u, depth - 1, "v")?,
                if u.arbitrary()? { "..." } else { "" }
            ),
            11 => format!(
                "({})[{}]",
                Self::gen(u, depth - 1)?,
                Self::gen(u, depth - 1)?
            ),
            12 => format!(
                "({})[*].{}",
                Self::gen(u, depth - 1)?,
                u.choose(&["a", "name"])?
            ),
            13 => format!(
                "({}).{}",
                Self::gen(u, depth - 1)?,
                u.choose(&["a", "name", "0"])?
            ),
            14 => format!(
                "\"${{{}}}-x-%{{if {}}}y%{{endif}}\"",
                Self::gen(u, depth - 1)?,
                Self::gen(u, depth - 1)?
            ),
            15 => format!("-{}", Self::gen(u, depth - 1)?),
            16 => format!("!{}", Self::gen(u, depth - 1)?),
            _ => {
                let (name, n) = *u.choose(FUNCTIONS)?;
                let args: Result<Vec<String>> = (0..n).map(|_| Self::gen(u, depth - 1)).collect();
                format!("{name}({})", args?.join(", "))
            }
        })
    }

    /// An expression that may use the `for` variable `var`.
    fn gen_with(u: &mut Unstructured<'_>, depth: u32, var: &str) -> Result<String> {
        if u.ratio(1, 3)? {
            Ok(var.to_string())
        } else {
            Self::gen(u, depth)
        }
    }
}

/// An expression that passes `var` through a few of the grammar's steps (calls, templates,
/// indexes, `for`, conditionals): where a derived value goes, the rules quote it.
#[derive(Debug)]
pub struct Through(pub String);

impl Through {
    fn gen(u: &mut Unstructured<'_>, depth: u32, var: &str) -> Result<String> {
        if depth == 0 || u.is_empty() {
            return Ok(var.to_string());
        }
        let inner = Self::gen(u, depth - 1, var)?;
        Ok(match u.int_in_range(0..=7)? {
            0 => var.to_string(),
            1 => {
                let (name, n) = *u.choose(FUNCTIONS)?;
                let mut args = vec![inner];
                for _ in 1..n {
                    args.push(Expr::gen(u, 1)?);
                }
                format!("{name}({})", args.join(", "))
            }
            2 => format!("\"${{{inner}}}{}\"", u.choose(&["", "-x", "%"])?),
            3 => format!(
                "({inner}){}",
                u.choose(&["[0]", ".name", "[\"name\"]", "[*]"])?
            ),
            4 => format!("[for x in {inner} : x][0]"),
            5 => format!("({} ? {inner} : {})", Expr::gen(u, 1)?, Expr::gen(u, 1)?),
            6 => format!(
                "{}({inner})",
                u.choose(&["upper", "lower", "tostring", "trimspace", "strrev", "one"])?
            ),
            _ => format!("join(\"-\", [{inner}, {}])", Expr::gen(u, 0)?),
        })
    }
}

impl<'a> Arbitrary<'a> for Through {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Through(Self::gen(u, 3, "var.v")?))
    }
}

impl<'a> Arbitrary<'a> for Expr {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Expr(Self::gen(u, DEPTH)?))
    }
}

/// How the variable is hidden.
#[derive(Debug, Arbitrary)]
pub enum Hide {
    No,
    Sensitive,
    Ephemeral,
}

/// A text no expression of the grammar makes: the hidden variable's default holds it, and no
/// diagnostic may show it (in any case: `upper` and `lower` keep it).
pub const CANARY: &str = "zqxcanary";

/// Where the hidden variable's default holds [`CANARY`].
#[derive(Debug, Arbitrary)]
pub enum Canary {
    /// `default = "zqxcanary"`.
    Plain,
    /// `default = { name = "zqxcanary", a = <expression> }`.
    InObject,
    /// `default = ["zqxcanary", <expression>]`.
    InList,
    /// `default = "zqxcanary-${<expression>}"`.
    InTemplate,
}

/// A module whose task definitions read every expression.
#[derive(Debug, Arbitrary)]
pub struct Module {
    pub hide: Hide,
    pub canary: Canary,
    pub default: Expr,
    pub a: Expr,
    pub b: Expr,
    pub c: Expr,
    pub count: Expr,
    pub for_each: Expr,
    pub instance_type: Expr,
    /// Where the variable goes: a container's name, its GPU value, its driver capabilities, its
    /// image; the cluster the instances join (user data) and a `memberOf` instance type of the
    /// service that places it.
    pub name: Through,
    pub gpu: Through,
    pub capabilities: Through,
    pub image: Through,
    pub joins: Through,
    pub member_of: Through,
}

impl Module {
    /// Whether the variable is hidden (sensitive or ephemeral): its default then holds
    /// [`CANARY`], which no diagnostic may show unless the module calls `nonsensitive` (which
    /// shows a sensitive value on purpose).
    pub fn hides_canary(&self) -> bool {
        !matches!(self.hide, Hide::No)
    }

    fn default(&self) -> String {
        if !self.hides_canary() {
            return self.default.0.clone();
        }
        let expr = &self.default.0;
        match self.canary {
            Canary::Plain => format!("\"{CANARY}\""),
            Canary::InObject => format!("{{ name = \"{CANARY}\", a = {expr} }}"),
            Canary::InList => format!("[\"{CANARY}\", {expr}]"),
            Canary::InTemplate => format!("\"{CANARY}-${{{expr}}}\""),
        }
    }

    pub fn to_hcl(&self) -> String {
        let hide = match self.hide {
            Hide::No => "",
            Hide::Sensitive => "\n  sensitive = true",
            Hide::Ephemeral => "\n  ephemeral = true",
        };
        format!(
            r##"variable "v" {{
  default = {default}{hide}
}}

locals {{
  a = {a}
  b = {b}
  c = {c}
}}

resource "aws_ecs_task_definition" "t" {{
  count                    = {count}
  family                   = "f"
  requires_compatibilities = [local.a]
  cpu                      = local.b
  container_definitions = jsonencode([{{
    name                 = local.b
    image                = "nvidia/cuda:12"
    resourceRequirements = [{{ type = "GPU", value = local.c }}]
  }}])
}}

resource "aws_ecs_task_definition" "e" {{
  for_each                 = {for_each}
  family                   = each.key
  requires_compatibilities = ["FARGATE"]
  container_definitions = jsonencode([{{
    name                 = each.key
    image                = "nvidia/cuda:12"
    resourceRequirements = [{{ type = "GPU", value = each.value }}]
  }}])
}}

resource "aws_ecs_task_definition" "through" {{
  family                   = "through"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{{
    name                 = {name}
    image                = {image}
    resourceRequirements = [{{ type = "GPU", value = "1" }}]
    }}, {{
    name                 = "second"
    image                = "nvidia/cuda:12"
    resourceRequirements = [{{ type = "GPU", value = {gpu} }}]
    environment          = [{{ name = "NVIDIA_DRIVER_CAPABILITIES", value = {capabilities} }}]
  }}])
}}

resource "aws_launch_template" "through" {{
  instance_type = "g5.xlarge"
  image_id      = "resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=${{{joins}}} >> /etc/ecs/ecs.config\necho ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config\n")
}}

resource "aws_autoscaling_group" "through" {{
  min_size = 0
  max_size = 1
  launch_template {{
    id = aws_launch_template.through.id
  }}
}}

resource "aws_ecs_capacity_provider" "through" {{
  name = "through"
  auto_scaling_group_provider {{
    auto_scaling_group_arn = aws_autoscaling_group.through.arn
  }}
}}

resource "aws_ecs_cluster" "through" {{
  name = "through"
}}

resource "aws_ecs_service" "through" {{
  name            = "through"
  cluster         = aws_ecs_cluster.through.id
  task_definition = aws_ecs_task_definition.through.arn
  desired_count   = 1
  capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.through.name
    weight            = 1
  }}
  placement_constraints {{
    type       = "memberOf"
    expression = "attribute:ecs.instance-type == ${{{member_of}}}"
  }}
}}

resource "aws_launch_template" "gpu" {{
  instance_type = {instance_type}
  image_id      = local.a
}}
"##,
            default = self.default(),
            a = self.a.0,
            b = self.b.0,
            c = self.c.0,
            count = self.count.0,
            for_each = self.for_each.0,
            instance_type = self.instance_type.0,
            name = self.name.0,
            gpu = self.gpu.0,
            capabilities = self.capabilities.0,
            image = self.image.0,
            joins = self.joins.0,
            member_of = self.member_of.0,
        )
    }
}
