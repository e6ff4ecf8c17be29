#!/usr/bin/env bash
# Installs the pinned authorization server (oidc-provider and jose) for
# run.sh with `npm ci` (package-lock.json). The Python SDK comes from
# tests/mcp-clients/install.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm ci --prefix tests/remote-oauth --no-audit --no-fund --silent
