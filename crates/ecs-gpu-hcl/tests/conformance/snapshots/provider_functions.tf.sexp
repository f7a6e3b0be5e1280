(block terraform (block required_providers (attr aws (object (source "hashicorp/aws")))))
(block locals (attr parsed (call provider::aws::arn_parse "arn:aws:iam::444455556666:role/example")))
