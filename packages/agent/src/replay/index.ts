export { replay, type ReplayOptions, type ReplayReport, type ReplayRow, type ReplayVerdict } from './replay.js';
export { kernelReplayRunner, type ReplayRunner } from './runner.js';
