# The project's image, used by the `ui` and `bot` services in docker-compose.yml.
FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PIP_NO_CACHE_DIR=1
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# CPU torch first: a plain `torch` requirement would pull the CUDA build.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY pyproject.toml README.md ./
COPY agent ./agent
COPY bot ./bot
COPY ui ./ui
COPY sql ./sql
RUN pip install .
# the MCP server's SDK on its own: chainlit 2.x declares mcp<2 (see scripts/setup.sh)
RUN pip install "mcp>=2.3,<3"
RUN useradd --create-home app && mkdir -p /data && chown app /data
USER app
ENV GODOT_RAG_HOME=/data
EXPOSE 8000
CMD ["godot-rag", "ui", "--host", "0.0.0.0", "--port", "8000"]
