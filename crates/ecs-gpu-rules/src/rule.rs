//! What a rule is, and how it reports.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::{Mutex, OnceLock};

use ecs_gpu_model::{
    Attribute, Loc, Model, Resource, ResourceId, TaskDefinition, TaskDefinitionOrigin,
};
use ecs_gpu_report::Severity;

use crate::capacity::{
    self, Capacity, GpuCapacity, GpuReason, GpuService, GroupCapacity, GroupMemo, Groups,
    ServiceIndex, TemplateUse, UserData,
};
use crate::Reads;

/// A check rule. Declare one with [`declare_rule!`](crate::declare_rule) in its own file under
/// `src/rules/`, and list it in [`RULES`](crate::RULES).
#[derive(Debug)]
pub struct Rule {
    /// Stable, never reused: `GPU101`.
    pub id: &'static str,
    /// Kebab-case, names the defect: `gpu-task-on-fargate`.
    pub name: &'static str,
    /// Error: the task will never run or the apply fails. Warning: it runs but will hurt. Info:
    /// worth knowing.
    pub severity: Severity,
    /// One line, lowercase, no trailing period: what the rule finds.
    pub summary: &'static str,
    /// The doc comment, as written (each line with its leading space).
    #[doc(hidden)]
    pub doc_source: &'static str,
    /// What the rule reads of the model: `check` loads no more than its rules read.
    pub reads: Reads,
    /// Reports every finding of this rule in the model.
    pub check: fn(&Model, &mut Findings<'_>),
}

impl Rule {
    /// The documentation (Markdown, headings What it checks / Why it matters / Example / How to
    /// fix), from the rule's doc comment.
    pub fn doc(&self) -> String {
        let mut out = String::new();
        for line in self.doc_source.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out.trim().to_string() + "\n"
    }

    /// The first paragraph under "What it checks", on one line.
    pub fn description(&self) -> String {
        let doc = self.doc();
        let after = doc
            .split_once("## What it checks")
            .map_or(doc.as_str(), |(_, rest)| rest);
        after
            .trim_start()
            .split("\n\n")
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn info(&self) -> ecs_gpu_report::RuleInfo {
        ecs_gpu_report::RuleInfo {
            id: self.id.into(),
            name: self.name.into(),
            default_severity: self.severity,
            summary: self.summary.into(),
            description: self.description(),
            doc: self.doc(),
        }
    }
}

/// Declares a rule: its doc comment becomes the rule's documentation.
///
/// ```ignore
/// declare_rule! {
///     /// ## What it checks
///     /// ...
///     pub static RULE = {
///         id: "GPU101",
///         name: "gpu-task-on-fargate",
///         severity: Error,
///         summary: "a GPU task definition is Fargate-compatible",
///         reads: { analyses: [TASK_DEFINITIONS] },
///         check: check,
///     }
/// }
/// ```
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub static $ident:ident = {
            id: $id:literal,
            name: $name:literal,
            severity: $severity:ident,
            summary: $summary:literal,
            reads: $reads:tt,
            check: $check:path $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        pub static $ident: $crate::Rule = $crate::Rule {
            id: $id,
            name: $name,
            severity: $crate::Severity::$severity,
            summary: $summary,
            doc_source: concat!($($doc, "\n"),*),
            reads: $crate::reads! $reads,
            check: $check,
        };
    };
}

/// One finding, as a rule reports it (locations still in model terms).
#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static Rule,
    pub severity: Severity,
    pub message: String,
    pub loc: Option<Loc>,
    /// Resource address relative to its module.
    pub resource: Option<String>,
    pub module: Option<String>,
    pub help: Option<String>,
    /// Secondary places: the other end of a link.
    pub labels: Vec<(Loc, String)>,
    /// The extent of the resource block the finding is about (a suppression above it silences it).
    pub block: Option<Loc>,
    /// How many more findings of this rule at this place were counted but not kept
    /// ([`MAX_PER_PLACE`](ecs_gpu_report::MAX_PER_PLACE)); 0 when none.
    pub omitted: usize,
}

impl Finding {
    /// Everything that tells two findings apart, hashed: two findings with the same hash are one
    /// (the report drops exact duplicates, so counting both would overstate the rest).
    fn fingerprint(&self, hasher: &impl BuildHasher) -> u64 {
        hasher.hash_one((
            self.rule.id,
            self.severity,
            &self.message,
            self.loc,
            &self.resource,
            &self.module,
            &self.help,
            &self.labels,
            self.block,
        ))
    }

    /// Findings with the same place are capped together: the same rule (one [`Findings`] per
    /// rule), place, block, module and severity. The block and the module are part of it because a
    /// suppression reads the block and the merge of module instances reads the module: a finding
    /// kept stands for the ones left out in both.
    fn place(&self) -> Place {
        (self.loc, self.block, self.module.clone(), self.severity)
    }
}

type Place = (Option<Loc>, Option<Loc>, Option<String>, Severity);

/// What every rule of one run shares: the model, and the analyses several rules need, each done
/// once (an analysis per rule and per task definition would be quadratic in the size of a
/// monorepo). Rules run on several threads, so it is `Sync`.
#[derive(Debug)]
pub struct Context<'m> {
    model: &'m Model,
    /// What every Auto Scaling group launches: the analyses below borrow from it.
    groups: OnceLock<GroupMemo<'m>>,
    services: OnceLock<ServiceIndex<'m>>,
    capacities: Mutex<HashMap<ResourceId, Option<Capacity>>>,
    gpu_services: OnceLock<Vec<GpuService<'m>>>,
    gpu_capacity: OnceLock<GpuCapacity<'m>>,
    /// The user data of each GPU launch template, in the order of `gpu_capacity.templates`.
    gpu_user_data: OnceLock<Vec<(UserData, Option<Loc>)>>,
    provider_groups: OnceLock<Vec<(&'m Resource, Cow<'m, GroupCapacity<'m>>)>>,
    gpu_ids: OnceLock<GpuIds>,
}

/// The resources of [`Findings::gpu_services`] and [`Findings::gpu_capacity`], by kind, for
/// [`Findings::is_gpu_resource`]: a rule asks it of each resource it reads.
#[derive(Debug, Default)]
struct GpuIds {
    services: HashSet<ResourceId>,
    providers: HashSet<ResourceId>,
    groups: HashSet<ResourceId>,
    fleets: HashSet<ResourceId>,
    templates: HashSet<ResourceId>,
}

impl<'m> Context<'m> {
    pub fn model(&self) -> &'m Model {
        self.model
    }

    pub fn new(model: &'m Model) -> Context<'m> {
        Context {
            model,
            groups: OnceLock::new(),
            services: OnceLock::new(),
            capacities: Mutex::new(HashMap::new()),
            gpu_services: OnceLock::new(),
            gpu_capacity: OnceLock::new(),
            gpu_user_data: OnceLock::new(),
            provider_groups: OnceLock::new(),
            gpu_ids: OnceLock::new(),
        }
    }

    fn gpu_ids(&'m self) -> &'m GpuIds {
        self.gpu_ids.get_or_init(|| {
            let gpu = self.gpu_capacity();
            let by_service = gpu.providers.iter().filter_map(|(_, why)| match why {
                GpuReason::Service(s) => Some(s.id),
                _ => None,
            });
            GpuIds {
                services: (self.gpu_services().iter().map(|s| s.service.id))
                    .chain(by_service)
                    .collect(),
                providers: gpu.providers.iter().map(|(p, _)| p.id).collect(),
                groups: gpu.groups.iter().map(|(g, _)| g.group.id).collect(),
                fleets: gpu.fleets.iter().map(|(f, _)| f.group.id).collect(),
                templates: gpu.templates.iter().map(|(t, _)| t.template.id).collect(),
            }
        })
    }

    fn gpu_user_data(&'m self) -> &'m [(UserData, Option<Loc>)] {
        self.gpu_user_data.get_or_init(|| {
            self.gpu_capacity()
                .templates
                .iter()
                .map(|(t, _)| capacity::user_data(t.template))
                .collect()
        })
    }

    fn groups(&'m self) -> Groups<'m> {
        Groups::from_memo(self.groups.get_or_init(|| GroupMemo::new(self.model)))
    }

    fn gpu_services(&'m self) -> &'m [GpuService<'m>] {
        self.gpu_services
            .get_or_init(|| capacity::gpu_services_with(self.model, self.groups()))
    }

    fn gpu_capacity(&'m self) -> &'m GpuCapacity<'m> {
        self.gpu_capacity.get_or_init(|| {
            capacity::gpu_capacity_with(self.model, self.groups(), self.gpu_services())
        })
    }

    fn provider_groups(&'m self) -> &'m [(&'m Resource, Cow<'m, GroupCapacity<'m>>)] {
        self.provider_groups
            .get_or_init(|| capacity::provider_groups_with(self.model, self.groups()))
    }

    fn services(&'m self) -> &'m ServiceIndex<'m> {
        self.services
            .get_or_init(|| ServiceIndex::with_groups(self.model, self.groups()))
    }
}

/// Where a rule reports its findings.
///
/// One line of code can make a million findings (a `for` that builds a container per element, in
/// a resource with a `count`), each a few kilobytes once rendered: a rule keeps the
/// first [`MAX_PER_PLACE`](ecs_gpu_report::MAX_PER_PLACE) of each place and only counts the others
/// (in [`Finding::omitted`] of the last one kept), as the report would print them. An exact
/// duplicate of a finding already reported is dropped, as the report drops it.
#[derive(Debug)]
pub struct Findings<'m> {
    model: &'m Model,
    ctx: &'m Context<'m>,
    rule: &'static Rule,
    out: Vec<Finding>,
    /// Whether the last finding in `out` is settled (kept, counted, or dropped as a duplicate):
    /// a finding is complete only once its builder is done, so it is settled at the next
    /// [`Findings::add`] or at [`Findings::into_findings`].
    settled: bool,
    /// The fingerprints of the findings reported so far, kept or counted.
    seen: HashSet<u64>,
    /// For each place: how many findings are kept, and the index in `out` of the last one.
    places: HashMap<Place, (usize, usize)>,
    hasher: std::collections::hash_map::RandomState,
    max_per_place: usize,
}

impl<'m> Findings<'m> {
    pub fn new(ctx: &'m Context<'m>, rule: &'static Rule) -> Findings<'m> {
        Findings {
            model: ctx.model,
            ctx,
            rule,
            out: Vec::new(),
            settled: true,
            seen: HashSet::new(),
            places: HashMap::new(),
            hasher: std::collections::hash_map::RandomState::new(),
            max_per_place: ecs_gpu_report::MAX_PER_PLACE,
        }
    }

    /// [`Findings::new`], keeping at most `max` findings of each place (at least 1).
    pub fn with_max_per_place(
        ctx: &'m Context<'m>,
        rule: &'static Rule,
        max: usize,
    ) -> Findings<'m> {
        Findings {
            max_per_place: max.max(1),
            ..Findings::new(ctx, rule)
        }
    }

    /// Keeps, counts or drops the last finding reported, now that its builder is done.
    fn settle(&mut self) {
        if std::mem::replace(&mut self.settled, true) {
            return;
        }
        let Some(last) = self.out.last() else { return };
        if !self.seen.insert(last.fingerprint(&self.hasher)) {
            self.out.pop();
            return;
        }
        let index = self.out.len() - 1;
        let entry = self.places.entry(last.place()).or_insert((0, index));
        if entry.0 < self.max_per_place {
            *entry = (entry.0 + 1, index);
        } else {
            let kept = entry.1;
            self.out.pop();
            self.out[kept].omitted += 1;
        }
    }

    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// [`capacity::capacity_for_task`], computed once per task definition and run.
    pub fn capacity(&self, td: &TaskDefinition) -> Option<Capacity> {
        let TaskDefinitionOrigin::Resource(id) = td.origin else {
            return None;
        };
        if let Some(c) = self
            .ctx
            .capacities
            .lock()
            .ok()
            .and_then(|m| m.get(&id).cloned())
        {
            return c;
        }
        let index = self.ctx.services();
        let c = capacity::capacity_for_task_in(self.model, index, td);
        if let Ok(mut m) = self.ctx.capacities.lock() {
            m.insert(id, c.clone());
        }
        c
    }

    /// [`capacity::gpu_services`], found once per run.
    pub fn gpu_services(&self) -> &'m [GpuService<'m>] {
        self.ctx.gpu_services()
    }

    /// [`capacity::gpu_capacity`], computed once per run.
    pub fn gpu_capacity(&self) -> &'m GpuCapacity<'m> {
        self.ctx.gpu_capacity()
    }

    /// Each launch template of [`Findings::gpu_capacity`], why it is GPU capacity, and its user
    /// data with where it is written (decoded once per run for the rules that read it).
    pub fn gpu_templates_with_user_data(
        &self,
    ) -> impl Iterator<
        Item = (
            &'m TemplateUse<'m>,
            &'m GpuReason<'m>,
            &'m UserData,
            Option<Loc>,
        ),
    > {
        let templates = &self.ctx.gpu_capacity().templates;
        templates
            .iter()
            .zip(self.ctx.gpu_user_data())
            .map(|((t, reason), (data, loc))| (t, reason, data, *loc))
    }

    /// Whether `r` is a GPU service, a GPU task definition or GPU capacity: the only resources the
    /// rules of the 4xx and 5xx ranges speak of (a generic ECS module's services, an Inferentia
    /// service, are someone else's business). Reads [`capacity::GPU_CAPACITY`].
    pub fn is_gpu_resource(&self, r: &Resource) -> bool {
        let model = self.model;
        let gpu = self.ctx.gpu_ids();
        match r.kind.as_str() {
            "aws_ecs_service" => {
                gpu.services.contains(&r.id)
                    || capacity::service_capacity_with(model, self.ctx.groups(), r)
                        .providers
                        .iter()
                        .any(|p| gpu.providers.contains(&p.provider.id))
            }
            "aws_ecs_task_definition" => model
                .task_definition_of(r.id)
                .is_some_and(crate::task::is_gpu_task),
            "aws_ecs_capacity_provider" => gpu.providers.contains(&r.id),
            "aws_autoscaling_group" => gpu.groups.contains(&r.id),
            "aws_ec2_fleet" | "aws_spot_fleet_request" => gpu.fleets.contains(&r.id),
            _ => gpu.templates.contains(&r.id),
        }
    }

    /// [`capacity::service_capacity`], with the groups' capacities worked out once per run.
    pub fn service_capacity(&self, svc: &'m Resource) -> capacity::ServiceCapacity<'m> {
        capacity::service_capacity_with(self.model, self.ctx.groups(), svc)
    }

    /// [`capacity::provider_groups`], computed once per run.
    /// [`capacity::tenants_with`], with the groups worked out once per run.
    pub fn tenants(&self, provider: &'m Resource) -> Option<capacity::Tenants<'m>> {
        capacity::tenants_with(self.model, self.ctx.groups(), provider)
    }

    pub fn provider_groups(&self) -> &'m [(&'m Resource, Cow<'m, GroupCapacity<'m>>)] {
        self.ctx.provider_groups()
    }

    /// Reports a finding at `loc` with the rule's default severity. Chain the builder's methods to
    /// add the help line, labels and the resource.
    pub fn add(&mut self, loc: Option<Loc>, message: impl Into<String>) -> FindingBuilder<'_> {
        self.settle();
        self.settled = false;
        self.out.push(Finding {
            rule: self.rule,
            severity: self.rule.severity,
            message: message.into(),
            loc,
            resource: None,
            module: None,
            help: None,
            labels: Vec::new(),
            block: None,
            omitted: 0,
        });
        let model = self.model;
        FindingBuilder {
            model,
            finding: self.out.last_mut().expect("just pushed"),
        }
    }

    /// The findings kept, in the order reported; each place's last one counts the findings of
    /// that place left out.
    pub fn into_findings(mut self) -> Vec<Finding> {
        self.settle();
        self.out
    }
}

/// Adds details to the finding just reported.
#[derive(Debug)]
pub struct FindingBuilder<'a> {
    model: &'a Model,
    finding: &'a mut Finding,
}

impl FindingBuilder<'_> {
    pub fn severity(self, severity: Severity) -> Self {
        self.finding.severity = severity;
        self
    }

    /// The remedy: lowercase, no trailing period.
    pub fn help(self, help: impl Into<String>) -> Self {
        self.finding.help = Some(help.into());
        self
    }

    /// A secondary place (ignored when `loc` is `None`).
    pub fn label(self, loc: Option<Loc>, message: impl Into<String>) -> Self {
        if let Some(loc) = loc {
            self.finding.labels.push((loc, message.into()));
        }
        self
    }

    /// The resource the finding is about: its address, module address and block extent.
    pub fn resource(self, r: &Resource) -> Self {
        self.finding.resource = Some(self.model.local_address(r));
        self.finding.module = self.model.module_address(r).map(str::to_string);
        self.finding.block = Some(block_extent(r));
        self
    }

    /// The task definition the finding is about (its resource, when it comes from one).
    pub fn task(self, td: &TaskDefinition) -> Self {
        match td.origin {
            TaskDefinitionOrigin::Resource(id) => {
                let model = self.model;
                self.resource(model.resource(id))
            }
            TaskDefinitionOrigin::JsonFile(_) => self,
        }
    }
}

/// From the block header to the end of its body.
pub fn block_extent(r: &Resource) -> Loc {
    let mut loc = r.loc;
    if let Some(b) = r.body.loc {
        if b.file == loc.file {
            loc.span = loc.span.to(b.span);
        }
    }
    loc
}

/// Where to point for "`r` sets `attr`", and where its value comes from when that is elsewhere.
/// A value written in the block (a literal) is the place itself. A value that comes from
/// elsewhere (a variable's default, a `.tfvars` file, a module input) would point away from the
/// block to change: the attribute's name in the block is the place then, and the value's own place
/// is returned second, for a label.
pub fn attribute_site(r: &Resource, attr: &Attribute) -> (Option<Loc>, Option<Loc>) {
    let block = block_extent(r);
    match (attr.value.loc, attr.name_loc) {
        (Some(value), Some(name)) if !block.contains(&value) => (Some(name), Some(value)),
        (Some(value), _) => (Some(value), None),
        (None, name) => (name, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecs_gpu_model::FileId;

    fn at(start: u32) -> Option<Loc> {
        let mut loc = Loc {
            file: FileId(0),
            span: Default::default(),
        };
        (loc.span.start, loc.span.end) = (start, start + 1);
        Some(loc)
    }

    fn rule() -> &'static Rule {
        &crate::rules::gpu105_nvidia_driver_capabilities::RULE
    }

    #[test]
    fn past_the_cap_a_place_counts_its_findings_without_keeping_them() {
        let model = Model::default();
        let ctx = Context::new(&model);
        let mut findings = Findings::with_max_per_place(&ctx, rule(), 3);
        for i in 0..10 {
            findings.add(at(1), format!("container `c{i}`"));
            // Another place, interleaved: capped on its own.
            findings.add(at(2), format!("container `d{i}`"));
        }
        // An error at the first place is a place of its own: the summary counts by severity.
        findings.add(at(1), "raised").severity(Severity::Error);
        let out = findings.into_findings();
        let shown: Vec<(&str, usize)> = out
            .iter()
            .map(|f| (f.message.as_str(), f.omitted))
            .collect();
        assert_eq!(
            shown,
            [
                ("container `c0`", 0),
                ("container `d0`", 0),
                ("container `c1`", 0),
                ("container `d1`", 0),
                ("container `c2`", 7),
                ("container `d2`", 7),
                ("raised", 0),
            ]
        );
    }

    #[test]
    fn an_exact_duplicate_is_neither_kept_nor_counted() {
        let model = Model::default();
        let ctx = Context::new(&model);
        let mut findings = Findings::with_max_per_place(&ctx, rule(), 2);
        for _ in 0..5 {
            findings.add(at(1), "one").help("fix");
            findings.add(at(1), "two").help("fix");
            findings.add(at(1), "three").help("fix");
        }
        // The same message with another help is another finding.
        findings.add(at(1), "one").help("other");
        let out = findings.into_findings();
        let shown: Vec<(&str, usize)> = out
            .iter()
            .map(|f| (f.message.as_str(), f.omitted))
            .collect();
        assert_eq!(shown, [("one", 0), ("two", 2)]);
    }

    #[test]
    fn findings_in_other_blocks_or_modules_are_other_places() {
        let model = Model::default();
        let ctx = Context::new(&model);
        let mut findings = Findings::with_max_per_place(&ctx, rule(), 1);
        findings.add(at(1), "a");
        findings.add(at(1), "b");
        // A suppression above another block must find its own findings kept.
        findings.add(at(1), "c").finding.block = at(0);
        findings.add(at(1), "d").finding.module = Some("module.x".into());
        let out = findings.into_findings();
        let shown: Vec<(&str, usize)> = out
            .iter()
            .map(|f| (f.message.as_str(), f.omitted))
            .collect();
        assert_eq!(shown, [("a", 1), ("c", 0), ("d", 0)]);
    }
}
