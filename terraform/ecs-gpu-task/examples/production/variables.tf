variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "vpc_id" {
  description = "VPC of the services and the load balancer."
  type        = string
}

variable "vpc_cidr" {
  description = "CIDR block of the VPC (the embedding service accepts Service Connect traffic from it)."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets with a NAT gateway or VPC endpoints (ECS, ECR, S3, CloudWatch, the Amazon Linux repository), in Availability Zones that offer g6.12xlarge and g6.xlarge."
  type        = list(string)
}

variable "listener_arn" {
  description = "HTTPS listener of the platform's Application Load Balancer."
  type        = string
}

variable "load_balancer_arn_suffix" {
  description = "ARN suffix of that load balancer (app/<name>/<id>), the dimension of its CloudWatch metrics."
  type        = string
}

variable "alb_security_group_id" {
  description = "Security group of the load balancer (allowed into the vLLM tasks on 8000)."
  type        = string
}

variable "vllm_image" {
  description = "vLLM's OpenAI-compatible server image (vllm/vllm-openai, mirrored to ECR)."
  type        = string
}

variable "model" {
  description = "The model vLLM serves."
  type        = string
  default     = "meta-llama/Llama-3.1-70B-Instruct"
}

variable "hf_token_secret_arn" {
  description = "Secrets Manager ARN of a Hugging Face token for gated models; null for none."
  type        = string
  default     = null
}

variable "embed_image" {
  description = "Embedding server image on an nvidia/cuda base, serving HTTP on 8080."
  type        = string
}

variable "alarm_topic_arn" {
  description = "SNS topic of the on-call (the idle GPU alarm and the 5xx alarm); null for none."
  type        = string
  default     = null
}

variable "wait_for_steady_state" {
  description = "Make `terraform apply` wait until both services are steady."
  type        = bool
  default     = true
}

variable "tags" {
  description = "Tags of every resource."
  type        = map(string)
  default     = { project = "gpu-prod" }
}
