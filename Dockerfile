# Lore for deployments (docker compose up). No build step: bin/lore.mjs transpiles the TypeScript
# sources once into node_modules/.cache/lore, and `lore prepare` builds the workers' workflow bundle
# there too (both done here, so a container starts from them).
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap util-linux ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts
COPY bin ./bin
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY tsconfig.json ./
RUN node bin/lore.mjs prepare
ENV NODE_ENV=production
# Memory settings (src/local/node-flags.ts): malloc arenas and mapping threshold; V8 flags in CMD.
ENV MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072 MALLOC_MMAP_THRESHOLD_=131072
EXPOSE 3001
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=25", "bin/lore.mjs", "start", "--role", "api"]
