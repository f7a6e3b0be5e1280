#!/usr/bin/env python3
"""Generates what the Terraform modules keep in two places, so that the two cannot drift.

    scripts/gen-terraform.py            # write
    scripts/gen-terraform.py --check    # change nothing; exit 1 and name each file that differs

1. The input and output tables of each module's README.md, between the markers
   <!-- BEGIN_TF_DOCS --> and <!-- END_TF_DOCS -->, from its variables.tf and outputs.tf: name,
   description, type (object types with their fields) and default.
2. terraform/modules/service-v6: a copy of modules/service's *.tf files, next to the
   override files (*_override.tf) that add what only hashicorp/aws 6.x knows.
3. terraform/ecs-gpu-managed-instances/variables_service.tf: the service's inputs that the Managed
   Instances module passes through unchanged to modules/service-v6, copied from
   modules/service/variables.tf (with their validations); its main.tf must pass each of them
   (`<name> = var.<name>` in module "service"), which --check verifies.

The parser reads the modules' own `variable` and `output` blocks as `terraform fmt` writes them
(strings, heredocs, bracketed expressions); it is not a general HCL parser. Python 3 standard
library only.
"""

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TERRAFORM = ROOT / "terraform"
DOCS_MODULES = [
    "ecs-gpu-task",
    "modules/capacity",
    "modules/service",
    "modules/cluster",
    "ecs-gpu-managed-instances",
]
SERVICE = TERRAFORM / "modules/service"
SERVICE_V6 = TERRAFORM / "modules/service-v6"
BEGIN, END = "<!-- BEGIN_TF_DOCS -->", "<!-- END_TF_DOCS -->"
MI = TERRAFORM / "ecs-gpu-managed-instances"
# The service inputs the Managed Instances module sets itself (from its own inputs, or fixed by the
# capacity it builds); every other input of modules/service is passed through.
MI_OWN_SERVICE_INPUTS = {
    "name", "name_suffix", "tags", "cluster_name", "vpc_id", "subnet_ids", "instance_type",
    "instance_type_facts", "network_mode", "gpu_count", "mps", "task_cpu", "task_memory",
    "memory_margin_mib", "iam_permissions_boundary", "capacity_provider_name", "max_size",
    "capacity_availability_zones", "compatibility", "additional_instance_types", "efa",
    "gpu_metrics", "placement_constraint_instance_type",
    # A host path on an instance ECS Managed Instances manages: whether it persists, and where, is
    # not documented.
    "model_cache",
}


class ParseError(Exception):
    pass


def blocks(text, kind, path):
    """Yield (name, body lines) of each top-level `kind "name" {` block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(rf'^{kind} "([^"]+)" \{{\s*$', lines[i])
        if not m:
            i += 1
            continue
        start = i
        depth, heredoc = 1, None
        i += 1
        body = []
        while i < len(lines):
            line = lines[i]
            if heredoc:
                if line.strip() == heredoc:
                    heredoc = None
            else:
                code = re.sub(r'"(\\.|[^"\\])*"', '""', line)
                code = code.split("#", 1)[0]
                h = re.search(r"<<-?([A-Za-z_]+)\s*$", code)
                depth += code.count("{") - code.count("}")
                if h:
                    heredoc = h.group(1)
                if depth == 0:
                    break
            body.append(line)
            i += 1
        if depth != 0:
            raise ParseError(f"{path}:{start + 1}: unterminated block {kind} {m.group(1)}")
        yield m.group(1), body
        i += 1


def attribute(body, name):
    """The raw text of a top-level attribute of a block body (its value, possibly multi-line)."""
    for i, line in enumerate(body):
        m = re.match(rf"^  {name}\s*=\s*(.*)$", line)
        if not m:
            continue
        value = m.group(1)
        h = re.match(r"<<-?([A-Za-z_]+)\s*$", value)
        if h:
            text = []
            for rest in body[i + 1 :]:
                if rest.strip() == h.group(1):
                    return ("heredoc", text)
                text.append(rest)
            raise ParseError(f"unterminated heredoc in {name}")
        lines = [value]
        depth = bracket_depth(value)
        j = i + 1
        while depth > 0 and j < len(body):
            lines.append(body[j])
            depth += bracket_depth(body[j])
            j += 1
        return ("expr", lines)
    return None


def bracket_depth(line):
    code = re.sub(r'"(\\.|[^"\\])*"', '""', line).split("#", 1)[0]
    return sum(code.count(c) for c in "{[(") - sum(code.count(c) for c in "}])")


def one_line(lines):
    """An HCL expression on one line: object and tuple items joined with commas."""
    out = ""
    for raw in lines:
        line = raw.split(" #", 1)[0].strip() if not raw.strip().startswith("#") else ""
        if not line:
            continue
        if out and not out.endswith(("{", "(", "[")) and not line.startswith(("}", ")", "]")) and not out.endswith(","):
            out += ","
        if out and not out.endswith(("(", "[")) and not line.startswith((")", "]")):
            out += " "
        out += line
    out = re.sub(r",(\s*[}\])])", r"\1", out)
    # `terraform fmt` aligns the `=` of an object's attributes: one space is enough on one line.
    parts = re.split(r'("(?:\\.|[^"\\])*")', out)
    return "".join(part if i % 2 else re.sub(r" {2,}", " ", part) for i, part in enumerate(parts))


def description(body):
    attr = attribute(body, "description")
    if attr is None:
        return ""
    kind, lines = attr
    if kind == "heredoc":
        return " ".join(l.strip() for l in lines if l.strip())
    text = lines[0].strip()
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return text


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def code(text):
    # A backtick in a code span would end it; none of the modules' types or defaults has one.
    return f"`{text}`"


def docs(module_dir):
    variables = (module_dir / "variables.tf").read_text()
    outputs_path = module_dir / "outputs.tf"
    outputs = outputs_path.read_text() if outputs_path.exists() else ""
    out = ["## Inputs", "", "| Name | Description | Type | Default |", "|---|---|---|---|"]
    for name, body in blocks(variables, "variable", module_dir / "variables.tf"):
        type_attr = attribute(body, "type")
        default_attr = attribute(body, "default")
        type_text = one_line(type_attr[1]) if type_attr else "any"
        if default_attr is None:
            default_text = "required"
        elif default_attr[0] == "heredoc":
            default_text = code("(text)")
        else:
            default_text = code(one_line(default_attr[1]))
        out.append(f"| `{name}` | {cell(description(body))} | {cell(code(type_text))} | {cell(default_text)} |")
    out += ["", "## Outputs", "", "| Name | Description |", "|---|---|"]
    for name, body in blocks(outputs, "output", outputs_path):
        out.append(f"| `{name}` | {cell(description(body))} |")
    return "\n".join(out)


def with_docs(readme_text, table, path):
    if BEGIN not in readme_text or END not in readme_text:
        raise ParseError(f"{path}: no {BEGIN} ... {END} markers")
    head, rest = readme_text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n<!-- generated by scripts/gen-terraform.py from variables.tf and outputs.tf: do not edit -->\n\n{table}\n\n{END}{tail}"


def mi_pass_through():
    """(names, file text) of the service inputs the Managed Instances module passes through."""
    text = (SERVICE / "variables.tf").read_text()
    names, out = [], [
        "# Generated by scripts/gen-terraform.py from ../modules/service/variables.tf: do not edit.",
        "# The inputs of the service that this module passes through unchanged to modules/service-v6 (main.tf).",
    ]
    lines = text.split("\n")
    for name, body in blocks(text, "variable", SERVICE / "variables.tf"):
        if name in MI_OWN_SERVICE_INPUTS:
            continue
        names.append(name)
        out += ["", f'variable "{name}" {{'] + body + ["}"]
    return names, "\n".join(out) + "\n"


def unpassed_inputs(names):
    """Pass-through inputs that main.tf's module "service" does not pass."""
    main = (MI / "main.tf").read_text()
    return [n for n in names if not re.search(rf"^\s+{n}\s+= var\.{n}\s*$", main, re.M)]


def planned_files():
    """(path, new text) of every generated file."""
    files = []
    _, mi_text = mi_pass_through()
    files.append((MI / "variables_service.tf", mi_text))
    for rel in DOCS_MODULES:
        module_dir = TERRAFORM / rel
        readme = module_dir / "README.md"
        files.append((readme, with_docs(readme.read_text(), docs(module_dir), readme)))
    for src in sorted(SERVICE.glob("*.tf")):
        files.append((SERVICE_V6 / src.name, src.read_text()))
    return files


def stale_files():
    """Copies in service-v6 whose original is gone."""
    keep = {p.name for p in SERVICE.glob("*.tf")}
    return [p for p in SERVICE_V6.glob("*.tf") if p.name not in keep and not p.name.endswith("_override.tf")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file differs")
    args = parser.parse_args()
    try:
        files = planned_files()
    except (ParseError, OSError) as error:
        print(f"gen-terraform: {error}", file=sys.stderr)
        return 2
    differ = [p for p, text in files if not p.exists() or p.read_text() != text]
    stale = stale_files()
    unpassed = unpassed_inputs(mi_pass_through()[0])
    for name in unpassed:
        print(f"gen-terraform: terraform/ecs-gpu-managed-instances/main.tf does not pass `{name} = var.{name}` to module \"service\"", file=sys.stderr)
    if args.check:
        for p in differ:
            print(f"gen-terraform: {p.relative_to(ROOT)} differs from what scripts/gen-terraform.py writes", file=sys.stderr)
        for p in stale:
            print(f"gen-terraform: {p.relative_to(ROOT)} has no original in modules/service", file=sys.stderr)
        if differ or stale:
            print("gen-terraform: run scripts/gen-terraform.py", file=sys.stderr)
            return 1
        return 1 if unpassed else 0
    for p, text in files:
        if p in differ:
            p.write_text(text)
            print(f"wrote {p.relative_to(ROOT)}")
    for p in stale:
        p.unlink()
        print(f"removed {p.relative_to(ROOT)}")
    return 1 if unpassed else 0


if __name__ == "__main__":
    sys.exit(main())
