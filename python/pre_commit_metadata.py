"""The version and the one dependency of the root's pyproject.toml, from the workspace Cargo.toml."""

import re
from pathlib import Path

from hatchling.metadata.plugin.interface import MetadataHookInterface


def cargo_version(root: Path) -> str:
    """The `version` of `[workspace.package]` in the workspace Cargo.toml."""
    text = (root / "Cargo.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[workspace\.package\]$(.*?)(?=^\[)", text, re.M | re.S)
    match = section and re.search(r'^version\s*=\s*"([^"]+)"', section.group(1), re.M)
    if not match:
        raise ValueError(f"{root / 'Cargo.toml'}: no version in [workspace.package]")
    return match.group(1)


class CustomMetadataHook(MetadataHookInterface):
    def update(self, metadata: dict) -> None:
        version = cargo_version(Path(self.root))
        metadata["version"] = version
        metadata["dependencies"] = [f"ecs-gpu=={version}"]
