import { safeErrorName } from '@diagnosis/core';
import { SettingsError } from '@diagnosis/core/config';

/** A cold start that failed: names the setting keys or the error class, never a value, a URL or a cause. */
class ColdStartError extends Error {
  override readonly name = 'ColdStartError';
}

/**
 * Runs a function's cold-start work. NOTE: whatever it throws is replaced by a new error that carries no cause and no
 * fields: Lambda logs a failed init with the error's message, stack and enumerable fields, and a library error may
 * hold a secret (Node's `TypeError: Invalid URL` keeps the whole URL, password included, in `input`).
 */
export async function coldStart<T>(build: () => T | Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (error) {
    if (error instanceof SettingsError) throw new SettingsError([...error.keys]);
    throw new ColdStartError(`the function could not start (${safeErrorName(error)})`);
  }
}
