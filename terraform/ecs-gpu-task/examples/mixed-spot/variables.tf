variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "vpc_id" {
  description = "VPC of the service."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets in several Availability Zones (more Spot capacity pools)."
  type        = list(string)
}

variable "image" {
  description = "Batch embedding worker image, built on an nvidia/cuda base image."
  type        = string
}
