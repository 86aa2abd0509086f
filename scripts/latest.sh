#!/usr/bin/env bash
# The `latest` check: install the newest release of every dependency (ignoring the lock, as a
# library user's `pip install strat-tools` would) in a throwaway virtual environment, say how
# it differs from requirements.lock, and run the fast test tier there. An upgrade of the lock
# is then a deliberate step: `bash scripts/lock.sh`, commit, CI.
#
# Then PyTorch: the README's command for requirements-torch.lock, run as on a fresh machine
# (needs the network: PyPI and PyTorch's CPU index).
#
#   bash scripts/latest.sh            # exit 0: today's newest releases pass the fast tier
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q --upgrade --upgrade-strategy eager -e ".[dev,dist,env]"
echo "== newer than the lock:" >&2
"$venv/bin/python" - <<'PY'
import re
from importlib import metadata
locked = dict(re.findall(r"^([A-Za-z0-9_.-]+)==([^ ;\\\n]+)", open("requirements.lock").read(), re.M))
norm = lambda name: re.sub(r"[-_.]+", "-", name).lower()
locked = {norm(k): v for k, v in locked.items()}
for dist in sorted(metadata.distributions(), key=lambda d: norm(d.metadata["Name"])):
    name = norm(dist.metadata["Name"])
    if name in locked and locked[name] != dist.version:
        print(f"  {name}: locked {locked[name]}, newest {dist.version}")
PY
echo "== fast tier on the newest releases" >&2
"$venv/bin/python" -m pytest -q -p no:cacheprovider

# PyTorch as the README installs it on a fresh machine: its very command (read from the
# README), in a new virtual environment, with pip's configuration and environment ignored
# (--isolated: no local mirror or find-links), so only PyPI and the index the README names
# serve the files, each checked against requirements-torch.lock's hashes.
echo "== PyTorch by the README's command, as on a fresh machine" >&2
torch_args=$(sed -n 's|^\.venv/bin/pip install \(--require-hashes -r requirements-torch\.lock .*\)$|\1|p' README.md)
if [ -z "$torch_args" ]; then
  echo "README.md gives no 'pip install --require-hashes -r requirements-torch.lock' command" >&2
  exit 1
fi
torch_venv=$(dirname "$venv")/torch
python3 -m venv "$torch_venv"
# shellcheck disable=SC2086  # the README's arguments, split as the shell splits them there
"$torch_venv/bin/python" -m pip --isolated install -q $torch_args
"$torch_venv/bin/python" -c "import torch; print('torch', torch.__version__, 'installed as the README says')"
