# A root that calls a module folder of the same tree twice, with different capabilities.
module "video" {
  source       = "./modules/inference"
  capabilities = "utility,video"
}

module "custom" {
  source = "./modules/inference"
}
