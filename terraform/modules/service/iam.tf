# Two roles, each with only what its holder needs, created unless you bring your own
# (`execution_role_arn`, `task_role_arn`); policies are attached only to the roles the module creates:
# - the execution role: ECS itself, to pull the image and fetch the task's secrets;
# - the task role: the application's own AWS calls (no permissions unless you add policy ARNs).

locals {
  # Secrets Manager ARNs may carry a JSON key / version suffix (secret:name-AbCdEf:key:stage:version);
  # the IAM resource is the secret itself: the first seven colon-separated parts. The registry
  # credentials of `repository_credentials` are a secret the execution role reads too.
  secret_resource_arns = distinct(concat([
    for v in flatten([for c in local.containers : values(c.secrets)]) :
    can(regex(":secretsmanager:", v)) ? join(":", slice(split(":", v), 0, 7)) : v
  ], var.repository_credentials == null ? [] : [join(":", slice(split(":", var.repository_credentials), 0, 7))]))
  ssm_secret_arns     = [for a in local.secret_resource_arns : a if can(regex(":ssm:", a))]
  manager_secret_arns = [for a in local.secret_resource_arns : a if can(regex(":secretsmanager:", a))]

  execution_role_arn = var.create_execution_role ? aws_iam_role.execution[0].arn : var.execution_role_arn
  task_role_arn      = var.create_task_role ? aws_iam_role.task[0].arn : var.task_role_arn

  # Policies are written with jsonencode rather than aws_iam_policy_document: the JSON is then known
  # at plan time under any provider, a caller's mock provider included (hashicorp/aws validates
  # assume_role_policy as JSON when it plans).
  # Only tasks of this account may assume the roles (confused-deputy protection).
  tasks_assume_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Action    = "sts:AssumeRole"
      Principal = { Service = "ecs-tasks.amazonaws.com" }
      Condition = { StringEquals = { "aws:SourceAccount" = local.account_id } }
    }]
  })

  # AmazonECSTaskExecutionRolePolicy does not cover secrets: allow exactly the ones the task names.
  execution_secrets_statements = concat(
    length(local.ssm_secret_arns) == 0 ? [] : [{
      Sid      = "ReadSsmParameters"
      Effect   = "Allow"
      Action   = ["ssm:GetParameters"]
      Resource = local.ssm_secret_arns
    }],
    length(local.manager_secret_arns) == 0 ? [] : [{
      Sid      = "ReadSecrets"
      Effect   = "Allow"
      Action   = ["secretsmanager:GetSecretValue"]
      Resource = local.manager_secret_arns
    }],
    length(var.secrets_kms_key_arns) == 0 ? [] : [{
      Sid      = "DecryptSecrets"
      Effect   = "Allow"
      Action   = ["kms:Decrypt"]
      Resource = var.secrets_kms_key_arns
    }],
  )

  # ECS Exec: the SSM agent the ECS agent injects into the containers opens its channels with the
  # task role's credentials. The ssmmessages channel actions support no resource-level
  # permissions, so the resource is "*".
  task_exec_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid    = "EcsExec"
      Effect = "Allow"
      Action = [
        "ssmmessages:CreateControlChannel",
        "ssmmessages:CreateDataChannel",
        "ssmmessages:OpenControlChannel",
        "ssmmessages:OpenDataChannel",
      ]
      Resource = "*"
    }]
  })
}

# --- task execution role -------------------------------------------------------------------------

resource "aws_iam_role" "execution" {
  count = var.create_execution_role ? 1 : 0

  name_prefix          = "${var.name}-execution-"
  path                 = var.iam_role_path
  permissions_boundary = var.iam_permissions_boundary
  description          = "ECS task execution role of ${var.name}: image pull, logs, secrets"
  assume_role_policy   = local.tasks_assume_policy
  tags                 = local.tags
}

resource "aws_iam_role_policy_attachment" "execution" {
  count = var.create_execution_role ? 1 : 0

  role       = aws_iam_role.execution[0].name
  policy_arn = "arn:${local.partition}:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy"
}

resource "aws_iam_role_policy" "execution_secrets" {
  count = var.create_execution_role && length(local.secret_resource_arns) > 0 ? 1 : 0

  name   = "secrets"
  role   = aws_iam_role.execution[0].id
  policy = jsonencode({ Version = "2012-10-17", Statement = local.execution_secrets_statements })
}

# --- task role ------------------------------------------------------------------------------------

resource "aws_iam_role" "task" {
  count = var.create_task_role ? 1 : 0

  name_prefix          = "${var.name}-task-"
  path                 = var.iam_role_path
  permissions_boundary = var.iam_permissions_boundary
  description          = "ECS task role of ${var.name}: the application's AWS permissions"
  assume_role_policy   = local.tasks_assume_policy
  tags                 = local.tags
}

resource "aws_iam_role_policy_attachment" "task" {
  count = var.create_task_role ? length(var.task_role_policy_arns) : 0

  role       = aws_iam_role.task[0].name
  policy_arn = var.task_role_policy_arns[count.index]
}

resource "aws_iam_role_policy" "task_exec" {
  #checkov:skip=CKV_AWS_290:the ssmmessages channel actions support no resource-level permissions; granted to this task role only with enable_execute_command
  #checkov:skip=CKV_AWS_355:the ssmmessages channel actions support no resource-level permissions, so the resource must be "*"
  count = var.create_task_role && var.enable_execute_command ? 1 : 0

  name   = "ecs-exec"
  role   = aws_iam_role.task[0].id
  policy = local.task_exec_policy
}
