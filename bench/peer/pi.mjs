// Entry point for bench workers: bare specifiers here resolve against bench/peer/node_modules
// (the pinned npm install), which code elsewhere in bench/ cannot reach by name.
export * as core from '@mariozechner/pi-agent-core';
export * as ai from '@mariozechner/pi-ai';
export * as pca from '@mariozechner/pi-coding-agent';
