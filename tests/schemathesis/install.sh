#!/usr/bin/env bash
# Installs the pinned schemathesis (requirements.txt) into a venv under
# target/, as tests/mcp-clients/install.sh does for the MCP SDK.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/schemathesis-venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/schemathesis/requirements.txt
