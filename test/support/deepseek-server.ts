/** The loopback DeepSeek-format server lives in the devkit with the demo that ships it; tests use the same one. */
export * from '@diagnosis/devkit';
