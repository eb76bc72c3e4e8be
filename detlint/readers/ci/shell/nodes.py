"""The syntax tree of a CI shell script, and how a node is named in a message.

The parser (``parser.py``) builds these nodes; the walk that finds pytest
runs (``walk.py``), the static pre-analysis (``effects.py``) and the
exit-status interpreter (``simulation.py``) read them. They are kept apart
from the parser so that the readers need not know how the tree was built.

Every node records the offsets of the text it covers in the outermost script
(``start``/``end``), so a finding can point at the construct that hides
pytest's failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from detlint.readers.ci.shell.lexer import Op, Word

Redirect = tuple[Op, Word | None]  # the operator and its target word (None when missing)


@dataclass(eq=False)
class Simple:
    """A simple command: ``NAME=value... word... redirections``."""

    assigns: list[Word]
    words: list[Word]
    redirects: list[Redirect]
    start: int
    end: int
    subs: list[CommandList] = field(default_factory=list)  # parsed command substitutions
    nested: CommandList | None = None  # the script of bash -c '...' or eval '...'
    nested_shell: tuple[bool, bool] | None = None  # bash -c: (errexit, pipefail); None: eval


@dataclass(eq=False)
class Pipeline:
    """``a | b |& c``, or a single command under ``!``."""

    commands: list[Node]
    bars: list[Op]
    bang: Word | None
    start: int
    end: int


@dataclass(eq=False)
class AndOr:
    """``a && b || c``."""

    first: Node
    rest: list[tuple[Op, Node]]
    start: int
    end: int


@dataclass(eq=False)
class CommandList:
    """Commands run one after another: a script, or the body of a compound command."""

    items: list[tuple[Node, Op | None]]  # a node and the "&" that backgrounds it


@dataclass(eq=False)
class Subshell:
    """``( ... )``."""

    body: CommandList
    start: int
    end: int
    redirects: list[Redirect] = field(default_factory=list)


@dataclass(eq=False)
class Group:
    """``{ ...; }``."""

    body: CommandList
    start: int
    end: int
    redirects: list[Redirect] = field(default_factory=list)


@dataclass(eq=False)
class If:
    """``if ...; then ...; elif ...; then ...; else ...; fi``."""

    clauses: list[tuple[CommandList, CommandList, Word]]  # condition, body, the if/elif keyword
    orelse: CommandList | None
    start: int
    end: int


@dataclass(eq=False)
class Loop:
    """``while``/``until``/``for``/``select`` loops."""

    kind: str  # while, until, for, select
    condition: CommandList | None  # None for for/select
    body: CommandList
    start: int
    end: int
    rounds: int = 1  # for over literal words: how many; otherwise 1 (unknown)


@dataclass(eq=False)
class Case:
    """``case WORD in PATTERN) ...;; esac``."""

    subject: Word | None
    arms: list[tuple[list[Word], CommandList]]
    start: int
    end: int


@dataclass(eq=False)
class Function:
    """A function definition, ``name() { ...; }`` or ``function name { ...; }``."""

    name: str
    body: Node
    start: int
    end: int


Node = Simple | Pipeline | AndOr | Subshell | Group | If | Loop | Case | Function
Parent = Node | CommandList


def children(node: Parent) -> list[Parent]:
    """The nodes and lists directly inside ``node``, substituted and nested scripts included."""
    if isinstance(node, CommandList):
        return [item for item, _ in node.items]
    if isinstance(node, Simple):
        return [*node.subs, *([node.nested] if node.nested is not None else [])]
    if isinstance(node, Pipeline):
        return list(node.commands)
    if isinstance(node, AndOr):
        return [node.first, *(member for _, member in node.rest)]
    if isinstance(node, (Subshell, Group)):
        return [node.body]
    if isinstance(node, If):
        parts: list[Parent] = []
        for condition, body, _ in node.clauses:
            parts += [condition, body]
        return parts + ([node.orelse] if node.orelse is not None else [])
    if isinstance(node, Loop):
        return [*([node.condition] if node.condition is not None else []), node.body]
    if isinstance(node, Case):
        return [body for _, body in node.arms]
    return [node.body]


# ------------------------------------------------------------ names in messages


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 30 else text[:27] + "..."


def head(node: Node) -> str:
    """The first word of a command, for phrases."""
    if isinstance(node, Simple):
        words = node.words or node.assigns
        return _clip(words[0].raw) if words else "..."
    if isinstance(node, Pipeline):
        return head(node.commands[0])
    if isinstance(node, AndOr):
        return head(node.first)
    if isinstance(node, Subshell):
        return "(...)"
    if isinstance(node, Group):
        return "{ ...; }"
    if isinstance(node, If):
        return "if ...; fi"
    if isinstance(node, Loop):
        return f"{node.kind} ..."
    if isinstance(node, Case):
        return "case ... esac"
    return f"{node.name}()"


def short(node: Node) -> str:
    """A command shortened for a phrase: ``true``, ``exit 0``, ``echo ...``."""
    if isinstance(node, Simple):
        words = [*node.assigns, *node.words]
        if len(words) == 1:
            return _clip(words[0].raw)
        if len(words) == 2 and node.words and node.words[0].value in ("exit", "return"):
            return f"{words[0].raw} {_clip(words[1].raw)}"
        return f"{head(node)} ..."
    if isinstance(node, (Pipeline, AndOr)):
        return f"{head(node)} ..."
    return head(node)
