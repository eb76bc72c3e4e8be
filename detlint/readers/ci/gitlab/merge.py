"""How GitLab assembles a job from several places, kept with where each value is written.

GitLab builds a job from included files (merged first, the including file
overriding), ``extends:`` templates (deep merge: mappings merged key by key,
lists replaced) and the ``default:`` block, each subject to the job's
``inherit:``. A knob that hides a test failure is often written in one of
those places rather than in the job, so this module merges the configuration
the same way while every value keeps its file and key path: a finding then
points at the template or included file that sets ``allow_failure`` or
``retry``, not at the job that inherits it. ``gitlab.py`` reads the jobs.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from detlint.readers.ci.yaml_spans import items_of, key_name
from detlint.readers.yaml.tree import YMap, YNode, YScalar, YSeq, text_of

LoadLocal = Callable[[str], tuple[YNode, ...] | None]
"""Loads an included file by its repository-relative path (no leading slash); None if absent."""

DEFAULT_KEYS = frozenset(
    {"after_script", "artifacts", "before_script", "cache", "hooks", "id_tokens", "image"}
    | {"interruptible", "retry", "services", "tags", "timeout"}
)
"""Keys a job takes from ``default:`` when it does not set them."""
_GLOBAL_DEFAULTS = ("image", "services", "cache", "before_script", "after_script")
MAX_INCLUDES = 150  # GitLab's own limit on included files per pipeline
MAX_EXTENDS = 11  # GitLab's nesting limit for extends


@dataclass(frozen=True)
class Merged:
    """A value as GitLab sees it after merging, with where it is written."""

    key: YScalar | None
    raw: YNode  # as written (for spans and the knob's value text)
    node: YScalar | YSeq | dict[str, Merged]  # mappings converted, so that they can be merged
    path: str  # the file it is written in, as displayed
    where: str  # its key path in that file, e.g. ".base.retry"


Tree = dict[str, Merged]


def load_config(
    documents: tuple[YNode, ...],
    path: str,
    load_local: LoadLocal | None,
    shown_base: str | None = None,
) -> tuple[Tree, tuple[str, ...]]:
    """A pipeline's configuration with its local includes merged under it, and every
    include as written (see ``read_gitlab``), each once."""
    base = posixpath.dirname(path) if shown_base is None else shown_base
    reader = _Includes(base, load_local)
    config = reader.load(documents, path)
    return config, tuple(dict.fromkeys(reader.references))


@dataclass
class _Includes:
    """Loads local includes (each once, at most MAX_INCLUDES) and records every include."""

    base: str  # where a local include's path starts, as displayed
    load_local: LoadLocal | None
    references: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def load(self, documents: tuple[YNode, ...], path: str) -> Tree:
        """One file's configuration, its local includes merged under it."""
        maps = [doc for doc in documents if isinstance(doc, YMap)]
        # A file with `spec: inputs:` has that header as its own first document.
        body = next((d for d in maps if d.keys() != ["spec"] or len(maps) == 1), None)
        if body is None:
            return {}
        tree = _tree(body, path, "")
        include = tree.pop("include", None)
        merged: Tree = {}
        for local in self.includes(include.raw if include else None):
            merged = _merge(merged, self.load_included(local))
        return _merge(merged, tree)

    def load_included(self, local: str) -> Tree:
        relative = local.strip().lstrip("/")
        if relative in self.seen or len(self.seen) >= MAX_INCLUDES or self.load_local is None:
            return {}
        self.seen.add(relative)
        try:
            documents = self.load_local(relative)
        except Exception:  # the caller's loader failing costs this include, not the pipeline
            documents = None
        if not documents:
            return {}
        shown = posixpath.normpath(posixpath.join(self.base, relative))
        return self.load(documents, shown)

    def includes(self, node: YNode | None) -> Iterator[str]:
        """Record every include as written; yield the local ones that can be loaded."""
        for item in items_of(node):
            text = text_of(item)
            if isinstance(item, YScalar) and text:
                self.references.append(text)
                remote = text.startswith(("http://", "https://"))
                if not remote and not any(c in text for c in "*?["):
                    yield text
            elif isinstance(item, YMap):
                local = text_of(item.get("local"))
                if local:
                    self.references.append(local)
                    if not any(c in local for c in "*?["):
                        yield local
                address = text_of(item.get("remote"))
                self.references += [address] if address else []
                for kind in ("template", "component"):
                    value = text_of(item.get(kind))
                    self.references += [f"{kind}:{value}"] if value else []
                project, files = text_of(item.get("project")), item.get("file")
                for file in items_of(files):
                    if project and text_of(file):
                        self.references.append(f"project:{project}:{text_of(file)}")


def _tree(node: YMap, path: str, where: str) -> Tree:
    tree: Tree = {}
    for key, value in node.items:
        name = key_name(key)
        here = f"{where}.{name}" if where else name
        converted = _tree(value, path, here) if isinstance(value, YMap) else value
        tree[name] = Merged(key, value, converted, path, here)
    return tree


def _merge(base: Tree, over: Tree) -> Tree:
    """GitLab's deep merge: mappings merged key by key, anything else replaced by ``over``."""
    merged = dict(base)
    for name, val in over.items():
        old = merged.get(name)
        if old is not None and isinstance(old.node, dict) and isinstance(val.node, dict):
            val = dataclasses.replace(val, node=_merge(old.node, val.node))
        merged[name] = val
    return merged


def extended(name: str, config: Tree, chain: tuple[str, ...]) -> Tree:
    """The job ``name`` with its ``extends:`` templates merged under it (later ones win)."""
    val = config.get(name)
    if val is None or not isinstance(val.node, dict) or name in chain or len(chain) > MAX_EXTENDS:
        return {}
    own = dict(val.node)
    parents = own.pop("extends", None)
    merged: Tree = {}
    for parent in strings_of(parents.raw if parents else None):
        merged = _merge(merged, extended(parent, config, (*chain, name)))
    return _merge(merged, own)


def defaults(config: Tree) -> Tree:
    """What a job may take from ``default:`` (or the old top-level keys for it)."""
    block = config.get("default")
    default = dict(block.node) if block is not None and isinstance(block.node, dict) else {}
    for name in _GLOBAL_DEFAULTS:  # the deprecated top-level spelling of the same defaults
        if name not in default and name in config:
            default[name] = config[name]
    return {name: val for name, val in default.items() if name in DEFAULT_KEYS}


def inherits(job: Tree, what: str, name: str) -> bool:
    """Whether ``inherit: <what>:`` lets the job take ``name`` (true, false or a list)."""
    inherit = job.get("inherit")
    option = inherit.node.get(what) if inherit and isinstance(inherit.node, dict) else None
    if option is None or not isinstance(option.raw, YScalar | YSeq):
        return True
    if isinstance(option.raw, YSeq):
        return name in strings_of(option.raw)
    return option.raw.value is not False


def strings_of(node: YNode | None) -> list[str]:
    """The non-empty strings of a value written as one string or a list of them."""
    return [text for text in (text_of(item) for item in items_of(node)) if text]
