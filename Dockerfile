# The service's container image (docs/deployment.md, "Container image"):
# built in one stage with every dependency, run in another with production
# dependencies only, as the unprivileged `node` user.
#
#   docker build -t saved-query-endpoints .
#   docker run -p 8080:8080 -v sqe-data:/data saved-query-endpoints

# Build: src/gen/ from proto/ (buf, a dev dependency), the dist/ bundles (esbuild)
# and the explorer page from web/ (dist/web/).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json buf.yaml buf.gen.yaml ./
COPY proto proto
COPY scripts scripts
COPY src src
COPY web web
RUN node scripts/build.mjs

# Production dependencies: the packages the bundles leave outside (chdb and its
# engine library, @clickhouse/client, jose) and the rest of `dependencies`.
FROM node:20-bookworm-slim AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
# Listen on every interface of the container; the embedded engine keeps its
# data (and the API key it makes when none is configured) in the /data volume.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 CHDB_PATH=/data
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY sql sql
RUN mkdir /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
# 200 once the warehouse answers and the schema is migrated; node:20-slim has no curl or wget.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node itself as PID 1 (no npm in between), so SIGTERM reaches the service and it stops cleanly.
CMD ["node", "dist/main.js"]
