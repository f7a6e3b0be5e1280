variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "vpc_id" {
  description = "VPC of the service."
  type        = string
}

variable "block_subnet_id" {
  description = "A private subnet in the Capacity Block's Availability Zone."
  type        = string
}

variable "capacity_block_id" {
  description = "The Capacity Block's reservation ID (cr-...)."
  type        = string
}

variable "block_instance_count" {
  description = "Instances the Capacity Block holds."
  type        = number
  default     = 2
}

variable "image" {
  description = "Training image, built on an nvidia/cuda base image."
  type        = string
}
