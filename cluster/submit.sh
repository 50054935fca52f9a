#!/usr/bin/env bash
# Submit `distval run` to a running Ray cluster with the Ray Jobs CLI: the one-command
# counterpart of cluster/submit.py.
#
#   cluster/submit.sh [distval run arguments ...]
#   RAY_API_SERVER_ADDRESS=http://127.0.0.1:8265 cluster/submit.sh --folds 5 --output /results/k5
#
# The repository is uploaded as the job's working directory, and every node pip-installs
# it from there (cluster/runtime_env.json, shared with submit.py): Ray sets
# RAY_RUNTIME_ENV_CREATE_WORKING_DIR to the unpacked upload and pip expands it. Needs `ray[default]` of the
# cluster's version on this machine (and RAY_AUTH_MODE=token for token-auth clusters).
# It streams the job's logs and exits 1 if the job fails.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

exec ray job submit \
  --address "${RAY_API_SERVER_ADDRESS:-http://127.0.0.1:8265}" \
  --working-dir "$repo" \
  --runtime-env "$repo/cluster/runtime_env.json" \
  -- distval run --backend ray --address auto "$@"
