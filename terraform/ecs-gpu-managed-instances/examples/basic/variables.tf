variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "vpc_id" {
  description = "VPC of the subnets."
  type        = string
}

variable "vpc_cidr" {
  description = "CIDR block of the VPC, allowed to reach the service."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets with a route to ECS, ECR, S3 and CloudWatch Logs."
  type        = list(string)
}

variable "image" {
  description = "Image of the inference server."
  type        = string
}
