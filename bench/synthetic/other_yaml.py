"""Synthetic YAML that is no pipeline, which detlint has to tell apart and skip.

Kubernetes manifests, helm values, docker-compose files, mkdocs, OpenAPI, app and
CI settings; some hold pipeline-like words (``retry:``, ``retries``, ``skip``).
"""

from __future__ import annotations

from collections.abc import Callable

from .pipeline_context import BK_QUEUES, PipelineContext, q
from .vocabulary import AREAS, NOUNS, QUALIFIERS, VERBS, WORDS, camel

COMPOSE_IMAGES = ("postgres:16", "redis:7", "minio/minio:latest", "bitnami/kafka:3.7")
INSTANCE_TYPES = ("c7i.2xlarge", "c7i.8xlarge", "g5.xlarge", "m7g.4xlarge")


# Over 60 lines: four literal Kubernetes documents, one per kind; kept whole.
def k8s_manifest(ctx: PipelineContext, area: str, size: int) -> str:
    """Deployments, services and config maps; some Istio routes with ``retryOn``."""
    rng = ctx.rng
    docs: list[str] = []
    total = 0
    while total < size or not docs:
        name = f"{area}-{ctx.pick(NOUNS)}-{rng.randint(1, 99)}".replace("_", "-")
        kind = rng.randrange(4)
        if kind == 0:
            doc = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/part-of: monorepo
spec:
  replicas: {rng.randint(1, 12)}
  selector:
    matchLabels:
      app.kubernetes.io/name: {name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {name}
    spec:
      containers:
        - name: app
          image: registry.example.invalid/monorepo/{area}:{rng.randint(100, 999)}
          args: ["serve", "--port", "8080"]
          ports:
            - containerPort: 8080
          env:
            - name: LOG_FORMAT
              value: json
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
            failureThreshold: {rng.randint(2, 6)}
          resources:
            limits:
              cpu: "{rng.randint(1, 4)}"
              memory: {rng.choice((256, 512, 1024, 2048))}Mi"""
        elif kind == 1:
            doc = f"""apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  selector:
    app.kubernetes.io/name: {name}
  ports:
    - port: 80
      targetPort: 8080"""
        elif kind == 2:
            data = "\n".join(
                f"  {ctx.pick(NOUNS)}_{i}: {q(str(ctx.pick(WORDS)))}"
                for i in range(rng.randint(3, 12))
            )
            doc = (
                f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}-config\ndata:\n{data}"
            )
        else:
            doc = f"""apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata:
  name: {name}
spec:
  hosts:
    - {name}
  http:
    - route:
        - destination:
            host: {name}
      timeout: {rng.randint(2, 30)}s
      retries:
        attempts: {rng.randint(1, 5)}
        perTryTimeout: 2s
        retryOn: 5xx,reset,connect-failure"""
        docs.append(doc)
        total += len(doc) + 4
    return "---\n" + "\n---\n".join(docs) + "\n"


def helm_values(ctx: PipelineContext, area: str, size: int) -> str:
    rng = ctx.rng
    lines = [
        f"# Default values for the {area} chart.",
        "replicaCount: 2",
        "image:",
        f"  repository: registry.example.invalid/monorepo/{area}",
        "  pullPolicy: IfNotPresent",
        '  tag: ""',
        "retry:",
        "  enabled: true",
        f"  maxAttempts: {rng.randint(2, 6)}",
        "  backoffSeconds: 2",
        "migrations:",
        "  skipOnUpgrade: false",
    ]
    total, index = sum(len(line) + 1 for line in lines), 0
    while total < size:
        noun = ctx.pick(NOUNS)
        block = [
            f"{noun}{camel(ctx.pick(QUALIFIERS))}{index}:",
            f"  enabled: {ctx.pick(('true', 'false'))}",
            f"  size: {rng.randint(1, 500)}",
            f"  region: {ctx.pick(WORDS)}",
            "  annotations:",
            f"    monorepo.example.invalid/owner: {area}",
            f"    monorepo.example.invalid/tier: {ctx.pick(('gold', 'silver', 'bronze'))}",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
        index += 1
    return "\n".join(lines) + "\n"


def compose(ctx: PipelineContext, area: str, size: int) -> str:
    rng = ctx.rng
    lines = ["services:"]
    total, index = 10, 0
    while total < size or index < 2:
        name = f"{ctx.pick(('postgres', 'redis', 'minio', 'kafka', 'app', 'worker'))}{index}"
        block = [
            f"  {name}:",
            f"    image: {ctx.pick(COMPOSE_IMAGES)}",
            "    restart: on-failure",
            "    environment:",
            f"      {area.upper()}_MODE: test",
            "    healthcheck:",
            '      test: ["CMD", "true"]',
            "      interval: 5s",
            f"      retries: {rng.randint(3, 10)}",
            "    ports:",
            f'      - "{rng.randint(5000, 9000)}:{rng.randint(5000, 9000)}"',
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
        index += 1
    lines += ["volumes:", "  data: {}"]
    return "\n".join(lines) + "\n"


def mkdocs(ctx: PipelineContext, area: str, size: int) -> str:
    lines = [
        f"site_name: monorepo {area}",
        "theme:",
        "  name: material",
        "plugins:",
        "  - search",
        "  - mkdocstrings:",
        "      handlers:",
        "        python:",
        "          paths: [src]",
        "exclude_docs: |",
        "  drafts/",
        "  *.skip.md",
        "markdown_extensions:",
        "  - admonition",
        "  - toc:",
        "      permalink: true",
        "nav:",
        "  - Home: index.md",
    ]
    total = sum(len(line) + 1 for line in lines)
    while total < size:
        sub = ctx.pick(AREAS[area])
        page = f"{ctx.pick(VERBS)}-{ctx.rng.randint(1, 999)}.md"
        page = f"  - {camel(sub)} {ctx.pick(NOUNS)}s: {area}/{sub}/{page}"
        lines.append(page)
        total += len(page) + 1
    return "\n".join(lines) + "\n"


def openapi(ctx: PipelineContext, area: str, size: int) -> str:
    """An OpenAPI spec whose list endpoints take a ``skip`` parameter."""
    rng = ctx.rng
    lines = [
        "openapi: 3.0.3",
        "info:",
        f"  title: monorepo {area} API",
        f"  version: 1.{rng.randint(0, 40)}.0",
        "paths:",
    ]
    total, seen = 60, set[str]()
    while total < size or len(seen) < 2:
        noun = ctx.pick(NOUNS)
        route = f"/v1/{area}/{noun}s/{rng.randint(1, 10**6)}"
        if route in seen:
            continue
        seen.add(route)
        block = [
            f"  {route}:",
            "    get:",
            f"      operationId: list{camel(noun)}s{len(seen)}",
            f"      summary: {ctx.pick(VERBS).capitalize()} {noun}s page by page",
            "      parameters:",
            "        - name: skip",
            "          in: query",
            "          schema: {type: integer, minimum: 0}",
            "        - name: limit",
            "          in: query",
            f"          schema: {{type: integer, maximum: {rng.choice((50, 100, 500))}}}",
            "      responses:",
            '        "200":',
            f"          description: A page of {noun}s",
            "          content:",
            "            application/json:",
            "              schema:",
            f"                $ref: '#/components/schemas/{camel(noun)}Page'",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
    lines += ["components:", "  schemas:", "    Page:", "      type: object"]
    return "\n".join(lines) + "\n"


def _app_config(ctx: PipelineContext, area: str, size: int) -> str:
    rng = ctx.rng
    lines = [f"# {area} service settings; overridden per environment."]
    total, index = 60, 0
    while total < size or index < 1:
        noun = ctx.pick(NOUNS)
        block = [
            f"{noun}_client_{index}:",
            f"  base_url: https://{noun}.{area}.internal.example.invalid",
            f"  timeout_seconds: {rng.randint(1, 30)}",
            "  retry:",
            f"    attempts: {rng.randint(1, 5)}",
            f"    backoff: {ctx.pick(('exponential', 'linear', 'constant'))}",
            f"  pool_size: {rng.randint(1, 64)}",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
        index += 1
    return "\n".join(lines) + "\n"


def _ci_config(ctx: PipelineContext, area: str, size: int) -> str:
    """CI settings that are not a pipeline (queues, owners), kept next to the pipelines."""
    lines = ["# Agent queues and the areas that own them; read by ci/render.py.", "queues:"]
    total = 80
    while total < size or len(lines) < 6:
        queue = ctx.pick(BK_QUEUES)
        block = [
            f"  - name: {queue}-{len(lines)}",
            f"    instance_type: {ctx.pick(INSTANCE_TYPES)}",
            f"    owners: [{area}, {ctx.pick(tuple(AREAS))}]",
            f"    max_agents: {ctx.rng.randint(4, 200)}",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
    return "\n".join(lines) + "\n"


def dependabot(ctx: PipelineContext, area: str, size: int) -> str:
    lines = ["version: 2", "updates:"]
    total = 20
    while total < size or len(lines) < 8:
        block = [
            f"  - package-ecosystem: {ctx.pick(('pip', 'docker', 'github-actions'))}",
            f'    directory: "/{ctx.pick(("", "requirements", "ci/docker"))}"',
            "    schedule:",
            f"      interval: {ctx.pick(('daily', 'weekly'))}",
        ]
        lines += block
        total += sum(len(line) + 1 for line in block)
    return "\n".join(lines) + "\n"


OTHER_YAML: tuple[tuple[str, Callable[[PipelineContext, str, int], str], str, int], ...] = (
    # (kind, generator, path pattern, weight)
    ("k8s", k8s_manifest, "deploy/k8s/{area}/{noun}-{n}.yaml", 6),
    ("helm", helm_values, "deploy/helm/{area}/values-{word}-{n}.yaml", 3),
    ("compose", compose, "services/{area}/docker-compose.{word}-{n}.yml", 2),
    ("mkdocs", mkdocs, "docs/{area}/mkdocs-{word}-{n}.yml", 1),
    ("openapi", openapi, "api/openapi/{area}-{noun}-{n}.yaml", 2),
    ("config", _app_config, "config/{area}/{word}-{n}.yml", 4),
    ("ci-config", _ci_config, "ci/config/{area}-{word}-{n}.yml", 1),
    ("ci-compose", compose, "ci/docker/docker-compose.{area}-{n}.yml", 1),
)
