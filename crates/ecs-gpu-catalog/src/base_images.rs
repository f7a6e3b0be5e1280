//! Well-known container images for NVIDIA GPUs that set `NVIDIA_DRIVER_CAPABILITIES` themselves
//! (`data/gpu-base-images.json`, each entry with its source keys).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The embedded list of CUDA-based images. Parsed once, on first use.
pub fn gpu_base_images() -> &'static BaseImages {
    static IMAGES: OnceLock<BaseImages> = OnceLock::new();
    IMAGES.get_or_init(|| {
        serde_json::from_str(include_str!("../data/gpu-base-images.json"))
            // The embedded file is checked by this crate's tests; a failure here is a build defect.
            .unwrap_or_else(|e| panic!("embedded data/gpu-base-images.json is invalid: {e}"))
    })
}

/// Images known to be built on the NVIDIA CUDA base images (which set
/// `NVIDIA_DRIVER_CAPABILITIES=compute,utility`), or to set the variable themselves.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseImages {
    #[allow(dead_code)]
    about: String,
    sources: BTreeMap<String, String>,
    images: Vec<BaseImage>,
}

/// One image (or a family of images under a registry prefix).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseImage {
    /// The repository, or a prefix of it when it ends with `/` or `.` (`nvcr.io/nvidia/`).
    pub repository: String,
    /// When not empty, the tag must contain one of these (a project that also publishes CPU
    /// images: `pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime`).
    pub tag_contains: Vec<String>,
    pub sources: Vec<String>,
}

impl BaseImages {
    /// The entry an image reference matches (`vllm/vllm-openai:v0.6.3`,
    /// `docker.io/ollama/ollama`, `nvcr.io/nvidia/tritonserver:24.08-py3`), if any. A reference
    /// without a tag matches only entries that ask for none.
    pub fn find(&self, image: &str) -> Option<&BaseImage> {
        let image = image.trim();
        let image = image
            .strip_prefix("docker.io/")
            .or_else(|| image.strip_prefix("index.docker.io/"))
            .unwrap_or(image);
        // The digest, then the tag: a `:` after the last `/` (a registry port comes before it).
        let image = image.split('@').next().unwrap_or(image);
        let (repository, tag) = match image.rfind(':') {
            Some(i) if !image[i..].contains('/') => (&image[..i], &image[i + 1..]),
            _ => (image, ""),
        };
        self.images.iter().find(|b| {
            let repo_matches = if b.repository.ends_with('/') || b.repository.ends_with('.') {
                repository.starts_with(&b.repository)
            } else {
                repository == b.repository
            };
            repo_matches
                && (b.tag_contains.is_empty() || b.tag_contains.iter().any(|t| tag.contains(t)))
        })
    }

    /// Whether a known prefix of an image reference (the literal start of a partly known
    /// `"${var.registry}..."` is not one) proves that the image is one of these: the whole
    /// repository is written and the entry needs no tag.
    pub fn find_prefix(&self, prefix: &str) -> Option<&BaseImage> {
        self.find(prefix)
            .filter(|b| b.tag_contains.is_empty())
            .filter(|b| prefix.contains(':') || b.repository.ends_with('/'))
    }

    /// What a source key stands for.
    pub fn source(&self, key: &str) -> Option<&str> {
        self.sources.get(key).map(String::as_str)
    }

    pub fn images(&self) -> &[BaseImage] {
        &self.images
    }
}

#[cfg(test)]
mod tests {
    use super::gpu_base_images;

    #[test]
    fn every_entry_names_sources_that_resolve() {
        let b = gpu_base_images();
        assert!(!b.images().is_empty());
        for i in b.images() {
            assert!(!i.sources.is_empty(), "{} has no source", i.repository);
            for k in &i.sources {
                assert!(
                    b.source(k).is_some(),
                    "{}: source key {k} is not defined",
                    i.repository
                );
            }
        }
    }

    #[test]
    fn images_seen_on_public_gpu_code_are_known() {
        let b = gpu_base_images();
        for image in [
            "vllm/vllm-openai:v0.10.2",
            "nvcr.io/nvidia/tritonserver:24.08-py3",
            "rayproject/ray-ml:2.9.0-gpu",
            "rayproject/ray:2.40.0-py311-gpu",
            "anyscale/ray-llm:2.44.1-py311-cu128",
            "ollama/ollama",
            "docker.io/ollama/ollama:0.5.7",
            "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
            "nvidia/cuda:12.4.1-runtime-ubuntu22.04",
            "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.3.0-gpu-py311-cu121-ubuntu20.04-ec2",
        ] {
            assert!(b.find(image).is_some(), "{image}");
        }
    }

    #[test]
    fn cpu_images_and_lookalikes_are_not() {
        let b = gpu_base_images();
        for image in [
            "pytorch/pytorch:2.4.0",
            "rayproject/ray:2.40.0-py311",
            "nvidia/cudax:1",
            "myregistry.example.com/nvidia/cuda:12.4.1-base",
            "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm-openai:latest",
            "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.3.0-cpu-py311",
            "public.ecr.aws/nginx/nginx:1.27",
        ] {
            assert!(b.find(image).is_none(), "{image}");
        }
        // A partly known reference proves nothing unless its repository is written whole.
        assert!(b.find_prefix("nvcr.io/nvidia/").is_some());
        assert!(b.find_prefix("vllm/vllm-openai:").is_some());
        assert!(b.find_prefix("vllm/vllm").is_none());
        assert!(b.find_prefix("pytorch/pytorch:").is_none());
    }
}
