#!/bin/sh
# The simulated engine's "build" (tests/bisect/make_repo.py commits it): fails, exit 1,
# when engine.conf holds a line that reads exactly "syntax error"; else exit 0.
if [ ! -f engine.conf ]; then
  echo "build.sh: no engine.conf in $(pwd)" >&2
  exit 1
fi
if grep -qx 'syntax error' engine.conf; then
  echo "build.sh: engine.conf: syntax error" >&2
  exit 1
fi
exit 0
