# conformance: fmt-only — a module call needs its module installed by `terraform init`
module "gpu_service" {
  source = "./modules/gpu-service"
  count  = 0

  name = "inference"
  containers = {
    triton = {
      image = "nvcr.io/nvidia/tritonserver:24.08-py3"
      gpus  = 1
      gpus  = 2
    }
  }
  ready = { for k in ["triton"] : k =>
    true &&
    false
  }
  providers = {}
}
