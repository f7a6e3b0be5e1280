//! `ecs-gpu route`: where should this workload run?

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use ecs_gpu_route::{render, route, Accelerator, Ec2Lifecycle, K8sPrimitive, Workload};

use crate::Outcome;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ecs-gpu route --gpu\n  ecs-gpu route --gpu --fargate --format json\n  ecs-gpu route --gpu --k8s karpenter,kserve\n  ecs-gpu route --from workload.toml\n\nA workload file takes the same keys: accelerator = \"gpu\"|\"neuron\"|\"none\", managed_model_api, kubernetes = [...], managed_ml, windows, fargate, on_premises, ec2_lifecycle = \"own\"|\"aws\". Flags add to what the file says.\n\nA GPU workload is never routed to Fargate: Fargate has no GPU."
)]
pub struct Args {
    /// The workload needs NVIDIA GPUs.
    #[arg(long, conflicts_with = "neuron")]
    gpu: bool,
    /// The workload needs AWS Neuron devices (Inferentia, Trainium).
    #[arg(long)]
    neuron: bool,
    /// A managed model API (Amazon Bedrock) is enough: the model need not be self-hosted.
    #[arg(long)]
    managed_model_api: bool,
    /// Kubernetes primitives the workload relies on (comma-separated): karpenter, kuberay, kserve, device-plugins, mig, time-slicing, dra, volcano, kueue, eks-estate.
    #[arg(long = "k8s", value_name = "PRIMITIVE", value_delimiter = ',', value_parser = parse_k8s)]
    kubernetes: Vec<K8sPrimitive>,
    /// Fully managed training or hosting is wanted (Amazon SageMaker).
    #[arg(long)]
    managed_ml: bool,
    /// The containers are Windows containers.
    #[arg(long)]
    windows: bool,
    /// Fargate is asked for.
    #[arg(long)]
    fargate: bool,
    /// The hosts are on premises.
    #[arg(long)]
    on_premises: bool,
    /// Who should own the EC2 lifecycle (AMI, patching, scaling): own = your team, aws = AWS.
    #[arg(long, value_enum, value_name = "OWNER")]
    ec2_lifecycle: Option<LifecycleArg>,
    /// Read the workload from a TOML file with the same keys (flags add to it).
    #[arg(long, value_name = "FILE")]
    from: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LifecycleArg {
    Own,
    Aws,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Human,
    Json,
}

fn parse_k8s(s: &str) -> Result<K8sPrimitive, String> {
    K8sPrimitive::parse(s).ok_or_else(|| {
        let known: Vec<&str> = K8sPrimitive::ALL.iter().map(|p| p.as_str()).collect();
        format!(
            "unknown Kubernetes primitive `{s}`; known: {}",
            known.join(", ")
        )
    })
}

pub fn run(args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let mut w = match &args.from {
        Some(path) => Workload::from_file(path).map_err(|e| match (e.line, e.column) {
            (Some(l), Some(c)) => anyhow::anyhow!("{}:{l}:{c}: {}", path.display(), e.message),
            _ => anyhow::anyhow!("{}: {}", path.display(), e.message),
        })?,
        None => Workload::default(),
    };
    if args.gpu {
        w.accelerator = Accelerator::Gpu;
    }
    if args.neuron {
        w.accelerator = Accelerator::Neuron;
    }
    w.managed_model_api |= args.managed_model_api;
    w.managed_ml |= args.managed_ml;
    w.windows |= args.windows;
    w.fargate |= args.fargate;
    w.on_premises |= args.on_premises;
    for p in &args.kubernetes {
        if !w.kubernetes.contains(p) {
            w.kubernetes.push(*p);
        }
    }
    if let Some(l) = args.ec2_lifecycle {
        w.ec2_lifecycle = Some(match l {
            LifecycleArg::Own => Ec2Lifecycle::Own,
            LifecycleArg::Aws => Ec2Lifecycle::Aws,
        });
    }

    let r = route(&w);
    match args.format {
        Format::Json => render::json(out, &r)?,
        Format::Human => render::human(out, &r)?,
    }
    Ok(Outcome::Clean)
}
