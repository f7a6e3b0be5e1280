variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "cluster_name" {
  description = "Name of the ECS cluster the example creates."
  type        = string
  default     = "gpu-vllm"
}

variable "vpc_id" {
  description = "VPC of the service."
  type        = string
}

variable "vpc_cidr" {
  description = "CIDR block of the VPC (the servers accept HTTP from it)."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets with a NAT gateway or VPC endpoints (ECS, ECR, S3, CloudWatch Logs, Hugging Face through the NAT) in Availability Zones that offer g6.12xlarge."
  type        = list(string)
}

variable "image" {
  description = "vLLM image (for example vllm/vllm-openai, mirrored to ECR)."
  type        = string
}

variable "model" {
  description = "Model the servers load (a Hugging Face name, downloaded into the model cache)."
  type        = string
  default     = "Qwen/Qwen2.5-7B-Instruct"
}
