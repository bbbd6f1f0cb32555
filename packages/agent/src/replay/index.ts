export { replay, replayCallId, type ReplayOptions, type ReplaySource, type ReplayReport, type ReplayRow, type ReplayVerdict } from './replay.js';
export { kernelReplayRunner, type ReplayRunner } from './runner.js';
