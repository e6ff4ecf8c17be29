#!/usr/bin/env bash
# Installs the pinned official MCP SDK clients: the Python `mcp` package 2.x
# and 1.x into two venvs under target/ (requirements.txt,
# requirements-v1.txt) and the TypeScript SDKs with `npm ci`
# (package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/mcp-clients-venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/mcp-clients/requirements.txt
venv_v1=target/mcp-clients-v1-venv
[[ -x $venv_v1/bin/python ]] || python3 -m venv "$venv_v1"
"$venv_v1/bin/pip" install --quiet --disable-pip-version-check -r tests/mcp-clients/requirements-v1.txt
npm ci --prefix tests/mcp-clients --no-audit --no-fund --silent
