#!/usr/bin/env bash
# Installs the pinned official MCP SDK clients: the Python `mcp` package into
# a venv under target/ (requirements.txt) and @modelcontextprotocol/sdk with
# `npm ci` (package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/mcp-clients-venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/mcp-clients/requirements.txt
npm ci --prefix tests/mcp-clients --no-audit --no-fund --silent
