variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "cluster_name" {
  description = "The platform's existing ECS cluster."
  type        = string
}

variable "other_capacity_providers" {
  description = "The capacity providers the cluster keeps besides the GPU one (for example FARGATE)."
  type        = list(string)
  default     = []
}

variable "vpc_id" {
  description = "VPC of the service."
  type        = string
}

variable "vpc_cidr" {
  description = "CIDR block of the VPC (the service accepts HTTP from it)."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets with a NAT gateway or VPC endpoints (ECS, ECR, S3, CloudWatch Logs) in Availability Zones that offer g5.2xlarge."
  type        = list(string)
}

variable "task_role_arn" {
  description = "The platform's task role for the service (the module attaches nothing to it)."
  type        = string
}

variable "image" {
  description = "Embedding server image, built on an nvidia/cuda base image, serving HTTP on port 8080."
  type        = string
}
