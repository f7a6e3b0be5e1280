variable "region" {
  type    = string
  default = "us-east-1"
}

variable "name" {
  type    = string
  default = "inference"
}

variable "subnet_ids" {
  type        = list(string)
  description = "Private subnets for the GPU instances and tasks."
  default     = ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]
}

variable "image" {
  type    = string
  default = "123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:2.3.1"
}
