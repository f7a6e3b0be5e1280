# Where the instances can run: the subnets' Availability Zones, the instance types EC2 offers there,
# and the cluster they join.

# The subnets' zones, by position (count, not for_each: a subnet created in the same apply has an ID
# known only then).
data "aws_subnet" "instances" {
  count = length(var.subnet_ids)

  id = var.subnet_ids[count.index]
}

# Every instance type EC2 offers in those zones. Filtered by zone only, so that a real answer is never
# empty (every zone offers some types): an empty one comes from a mock provider or an emulator that
# knows no offerings, and the check is then skipped.
data "aws_ec2_instance_type_offerings" "zones" {
  location_type = "availability-zone"

  filter {
    name   = "location"
    values = distinct(local.subnet_zones)
  }
}

locals {
  subnet_zones = data.aws_subnet.instances[*].availability_zone
  # A real zone name is a region and a letter (us-east-1a, us-west-2-lax-1a); only a mock provider
  # yields anything else (random strings).
  subnet_zones_are_real = alltrue([for z in local.subnet_zones : can(regex("^[a-z]{2}(-[a-z0-9]+)+[a-z]$", z))])
  offered_types         = toset(data.aws_ec2_instance_type_offerings.zones.instance_types)
  types_not_offered = !local.subnet_zones_are_real || length(local.offered_types) == 0 ? [] : [
    for t in local.instance_types : t if !contains(local.offered_types, t)
  ]
}

# The cluster must exist before the instances are launched into it: ECS_CLUSTER names it, and an
# agent whose cluster does not exist registers nowhere. The list is read once the gate below exists,
# so that a cluster created in the same apply (by the root module, or by the caller, whose name then
# flows in by reference) is read after its creation; later plans read it at plan time.
resource "terraform_data" "cluster" {
  input = var.cluster_name
}

data "aws_ecs_clusters" "all" {
  depends_on = [terraform_data.cluster]

  lifecycle {
    # Cluster ARNs end in cluster/<name>.
    postcondition {
      condition     = contains([for arn in self.cluster_arns : element(split("/", arn), length(split("/", arn)) - 1)], var.cluster_name)
      error_message = "ECS cluster `${var.cluster_name}` does not exist in this account and region (ListClusters): GPU instances would register nowhere and the service could not be created. Fix cluster_name, create the cluster first, or let the root module create it (create_cluster = true)."
    }
  }
}
