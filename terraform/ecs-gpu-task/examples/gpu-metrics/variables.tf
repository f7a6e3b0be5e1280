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
  description = "Private subnets with a NAT gateway, or VPC endpoints for ECS, ECR, S3, CloudWatch, CloudWatch Logs and the Amazon Linux package repository (S3), in Availability Zones that offer g6.xlarge."
  type        = list(string)
}

variable "image" {
  description = "Inference image on an nvidia/cuda base, serving HTTP on 8080."
  type        = string
}

variable "alarm_topic_arn" {
  description = "SNS topic the GPUs-idle-while-tasks-pend alarm notifies; null for no notification."
  type        = string
  default     = null
}

variable "wait_for_steady_state" {
  description = "Wait for the service's tasks to run at apply."
  type        = bool
  default     = true
}
