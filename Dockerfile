# deepresearch: the API (`deepresearch serve`) and the workers (`deepresearch worker`) in
# one slim image. Build: docker build -t deepresearch .   Run: see compose.yaml and
# docs/operations.md. Every dependency installs from wheels: no compiler in either stage.
# The base image is pinned to a published tag (a patch release on Debian bookworm), as
# compose.yaml pins its images: an upgrade is a change to review, never a rebuild's surprise.

# --- build: the project's wheel (hatchling needs no build tools) -----------------------
FROM python:3.11.11-slim-bookworm AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# --- runtime ---------------------------------------------------------------------------
FROM python:3.11.11-slim-bookworm
# which extras to install: PostgreSQL for many processes, the model providers' clients
# (add "embeddings" for the audit's embedding similarity)
ARG EXTRAS=postgres,openai,anthropic,google,ollama
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEEPRESEARCH_DATA_DIR=/data \
    DEEPRESEARCH_SERVE_HOST=0.0.0.0 \
    DEEPRESEARCH_SERVE_PORT=8000
COPY --from=build /wheels /wheels
RUN set -eux; \
    wheel="$(ls /wheels/deepresearch-*.whl)"; \
    pip install --no-cache-dir "${wheel}[${EXTRAS}]"; \
    rm -rf /wheels; \
    groupadd --system --gid 10001 deepresearch; \
    useradd --system --uid 10001 --gid deepresearch --home-dir /home/deepresearch \
        --create-home --shell /usr/sbin/nologin deepresearch; \
    mkdir -p /data; \
    chown deepresearch:deepresearch /data
USER deepresearch
WORKDIR /home/deepresearch
VOLUME ["/data"]
EXPOSE 8000
# the API's liveness; a worker container replaces it (compose.yaml: its health file)
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('DEEPRESEARCH_SERVE_PORT', '8000'), timeout=4)"]
ENTRYPOINT ["deepresearch"]
CMD ["serve"]
