# The first plan of a caller's root that creates what it passes to the module in the same root (the
# subnets, the load balancer's security group, target group and listener, the instances' security
# group, the image repository, the task role): every such ID or ARN is known only after apply. A
# bare mock provider gives computed values only at apply, so these runs plan as a real first plan
# does. Needs Terraform >= 1.11.

mock_provider "aws" {}

run "a_first_plan_with_every_id_created_in_the_same_root" {
  command = plan

  module {
    source = "./tests/same_root"
  }

  assert {
    condition     = output.placement_expression == "attribute:ecs.instance-type == g5.xlarge"
    error_message = "the module plans when its network, load balancer, image and role are created beside it"
  }
}
