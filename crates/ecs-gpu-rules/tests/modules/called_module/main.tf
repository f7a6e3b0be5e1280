# A root that calls a module folder of the same tree twice, with different images.
module "cuda" {
  source = "./modules/inference"
  image  = "nvidia/cuda:12.4.1-runtime-ubuntu22.04"
}

module "custom" {
  source = "./modules/inference"
}
