# One module folder called twice: the defect written once in it is one finding.
module "head" {
  source = "./modules/worker"
  name   = "head"
}

module "workers" {
  source = "./modules/worker"
  name   = "workers"
}
