#!/bin/sh
# Publishes a release of tinyshop to GitHub. --dry-run prints what it would do and stops.
# The token below was pasted here "for now" and never moved to a secret store. It is FAKE: the
# Airlock tour plants it to show that tool output is redacted before the model sees it.
GITHUB_TOKEN=ghp_T0urFakeTokenQ7vT2mKx9LpR4sWz8NbY3cD
VERSION=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' package.json)
echo "release: tinyshop $VERSION"
echo "release: authenticating to api.github.com with $GITHUB_TOKEN"
if [ "$1" = "--dry-run" ]; then
  echo "release: dry run, nothing published"
  exit 0
fi
echo "release: publishing is not part of the tour" >&2
exit 1
