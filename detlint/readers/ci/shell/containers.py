"""Containers and remote shells that run a command: where that command starts.

``docker run [options] IMAGE COMMAND...``, ``docker exec CONTAINER COMMAND...``,
``docker compose [options] run|exec [options] SERVICE [COMMAND...]`` (and podman,
nerdctl, docker-compose), ``singularity exec IMAGE COMMAND...``, ``kubectl exec POD
-- COMMAND...``, ``ssh HOST COMMAND...``: the command is the rest of the words after
the options and the one operand that names where it runs, and the pytest launchers
(``launchers.py``) and the test runners (``runners.py``) both read it from there.
"""

from __future__ import annotations

from collections.abc import Sequence

from detlint.readers.ci.shell.wrappers import basename, word_set

# The options taking a value, before the image (or container, service, host).
_DOCKER_VALUES = word_set(
    "-e --env --env-file -v --volume -w --workdir -u --user --name --network --net"
    " --entrypoint -p --publish --mount --gpus --shm-size --ipc --platform -m --memory"
    " --cpus --runtime --device --add-host --label -l --hostname -h --cap-add --cap-drop"
    " --security-opt --ulimit --tmpfs --pull --cidfile --log-driver --log-opt --pid --group-add"
    " --volumes-from --link --dns --restart --stop-signal --cpuset-cpus --memory-swap"
)
_COMPOSE_VALUES = word_set(
    "-f --file -p --project-name --project-directory --profile --env-file --ansi --parallel"
)
_COMPOSE_RUN_VALUES = word_set(
    "-e --env -v --volume -w --workdir -u --user --name --entrypoint -p --publish -l --label"
    " --cap-add --cap-drop --pull"
)
SSH_VALUES = word_set("-p -i -l -o -F -J -L -R -D -b -c -E -e -m -O -Q -S -W -w -B")
SINGULARITY_VALUES = word_set("-B --bind -H --home --env --env-file -W --workdir --pwd")

CONTAINERS = frozenset({"docker", "podman", "nerdctl", "docker-compose", "podman-compose"})


def container_command(values: Sequence[str], i: int) -> tuple[int | None, str]:
    """Where the command a container runs starts in ``values`` (``values[i]`` names
    docker, podman or compose), and the image, container or service it runs in: ``docker
    run [options] IMAGE COMMAND...``, ``docker exec CONTAINER COMMAND...``, ``docker
    compose [options] run|exec [options] SERVICE [COMMAND...]``. The index is None when
    the command is the image's own (or the words run nothing), the name "" when the
    words run nothing."""
    name = basename(values[i])
    j = i + 1
    compose = name.endswith("-compose")
    if not compose and values[j : j + 1] == ["compose"]:
        compose, j = True, j + 1
    if compose:
        j = skip_options(values, j, _COMPOSE_VALUES)
        if j >= len(values) or values[j] not in ("run", "exec"):
            return None, ""
        j = skip_options(values, j + 1, _COMPOSE_RUN_VALUES)
    else:
        if values[j : j + 2] == ["container", "run"]:
            j += 1
        if j >= len(values) or values[j] not in ("run", "exec"):
            return None, ""
        j = skip_options(values, j + 1, _DOCKER_VALUES)
    if j >= len(values):
        return None, ""
    return (j + 1 if j + 1 < len(values) else None), values[j]


def skip_options(words: Sequence[str], j: int, values: frozenset[str]) -> int:
    """The index of the first word from ``j`` that is not an option (or its value)."""
    while j < len(words) and words[j].startswith("-"):
        if words[j] == "--":
            return j + 1
        j += 2 if words[j] in values else 1
    return j


def contained_start(values: Sequence[str]) -> int | None:
    """Where the command a container runs starts in ``values``, when ``values`` is
    ``docker exec|run ... COMMAND...`` (after ``env``/``timeout``-style wrappers) or
    ``kubectl exec ... -- COMMAND...``; None otherwise."""
    from detlint.readers.ci.shell.wrappers import skip_wrappers

    index = skip_wrappers(values)
    if index is None or index >= len(values):
        return None
    name = basename(values[index])
    if name in CONTAINERS:
        return container_command(values, index)[0]
    if name in ("kubectl", "oc") and "--" in values[index:]:
        start = values.index("--", index) + 1
        return start if start < len(values) else None
    return None
