/** UTF-8 size of a string: every byte limit of the spec is counted this way. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The first `maxChars` UTF-16 units of `text`, never ending inside a surrogate pair, so a cut string is still
 * well-formed text.
 */
export function truncateChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = maxChars > 0 && isHighSurrogate(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, never cutting a character in two. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  return Buffer.from(text, 'utf8')
    .subarray(0, Math.max(0, maxBytes))
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}
