variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
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
  description = "Private subnets with a NAT gateway or VPC endpoints (ECS, ECR, S3, CloudWatch Logs) in Availability Zones that offer g5.xlarge."
  type        = list(string)
}

variable "image" {
  description = "Inference image, built on an nvidia/cuda base image, serving HTTP on port 8080."
  type        = string
}
