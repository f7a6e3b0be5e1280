variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "cluster_name" {
  description = "Existing ECS cluster."
  type        = string
}

variable "other_capacity_providers" {
  description = "Capacity providers already on the cluster that must stay on it (for example [\"FARGATE\"])."
  type        = list(string)
  default     = []
}

variable "vpc_id" {
  description = "VPC of the service and the load balancer."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets of the GPU instances and tasks."
  type        = list(string)
}

variable "listener_arn" {
  description = "Listener of the existing Application Load Balancer."
  type        = string
}

variable "alb_security_group_id" {
  description = "Security group of the load balancer (allowed into the tasks on 8080)."
  type        = string
}

variable "image" {
  description = "Inference image on an nvidia/cuda base, serving HTTP on 8080 with /health."
  type        = string
}

variable "secrets" {
  description = "Secrets of the container (name => SSM parameter or Secrets Manager ARN)."
  type        = map(string)
  default     = {}
}

variable "load_balancer_tags" {
  description = "Tags of the target group and the listener rule."
  type        = map(string)
  default     = {}
}
