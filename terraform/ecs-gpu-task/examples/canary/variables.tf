variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "vpc_id" {
  description = "VPC of the service and the load balancer."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets with a NAT gateway or VPC endpoints (ECS, ECR, S3, CloudWatch Logs), in Availability Zones that offer g6e.xlarge."
  type        = list(string)
}

variable "listener_arn" {
  description = "HTTPS listener of the platform's Application Load Balancer."
  type        = string
}

variable "alb_security_group_id" {
  description = "Security group of the load balancer (allowed into the tasks on 8000)."
  type        = string
}

variable "image" {
  description = "Chat server image on an nvidia/cuda base, serving HTTP on 8000 with /health."
  type        = string
}
