//! `terraform/modules/facts/catalog.tf`: the catalog as Terraform locals, so that the modules'
//! checks read the same facts as `ecs-gpu` (the text is the catalog crate's
//! [`ecs_gpu_catalog::Catalog::terraform_locals`]).

use crate::tree::{Error, Tree};

const CATALOG_TF: &str = "terraform/modules/facts/catalog.tf";

/// Writes `catalog.tf`.
pub fn terraform_locals(tree: &mut Tree) -> Result<(), Error> {
    tree.write(CATALOG_TF, ecs_gpu_catalog::catalog().terraform_locals());
    Ok(())
}
