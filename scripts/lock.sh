#!/usr/bin/env bash
# Refresh requirements.lock: every dependency of the project (its runtime, the dev, dist and
# env extras, and the build backend), direct and transitive, at exact versions with the hashes
# of their files, for every platform (markers say where a pin applies). pyproject.toml keeps
# open ranges for library users; this lock is what CI, the README and the developers install.
#
#   bash scripts/lock.sh            # re-resolve everything to today's newest releases
#   bash scripts/lock.sh --upgrade-package lxml   # move one package, keep the rest
#   bash scripts/lock.sh --keep     # add what pyproject.toml newly asks for, move nothing else
#
# Then run `bash scripts/latest.sh`-style checks by installing it: `bash .ci/run` installs
# exactly the lock. Uses uv (pinned in the dev extra); the file names no index and no host.
set -euo pipefail
cd "$(dirname "$0")/.."
uv=${UV:-$(command -v uv || echo .venv/bin/uv)}
args=(--upgrade)
if [ "$#" -gt 0 ]; then args=("$@"); fi
if [ "${1:-}" = "--keep" ]; then args=("${@:2}"); fi
"$uv" pip compile pyproject.toml scripts/build-requirements.in \
  --extra dev --extra dist --extra env --generate-hashes --universal --python-version 3.11 \
  --custom-compile-command "bash scripts/lock.sh" --quiet -o requirements.lock "${args[@]}"
if grep -nE '(--index-url|--extra-index-url|--find-links|://)' requirements.lock; then
  echo "requirements.lock names an index or a host: refused" >&2
  exit 1
fi
echo "requirements.lock: $(grep -cE '^[a-z0-9]' requirements.lock) packages pinned" >&2
