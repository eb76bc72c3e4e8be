"""The CI pass: pipeline files, read into facts about knobs and the commands steps run."""

# File names a pipeline (or a pipeline template) can have. Kept here, free of
# imports, so that a run over Python files alone never loads the CI pass.
YAML_SUFFIXES = (".yml", ".yaml", ".yml.j2", ".yaml.j2", ".yml.jinja", ".yaml.jinja", ".j2")
