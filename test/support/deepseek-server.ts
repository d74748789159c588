/** The loopback DeepSeek-format server lives with the demo that ships it; tests use the same one. */
export * from '../../scripts/replay-model-server.ts';
